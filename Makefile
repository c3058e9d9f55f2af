# ember: `make demo` and `make test` set up everything on a fresh Debian/Ubuntu machine:
# PoCL (the CPU OpenCL device) through apt when run as root, else from pip into the .venv, Rust
# through rustup if cargo is missing, a .venv with the Python dependencies, and the release
# build of the package.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
CARGO := $(shell command -v cargo 2>/dev/null || echo $(HOME)/.cargo/bin/cargo)

.PHONY: demo test setup system-packages rust venv build lint clean

demo: build
	$(VENV)/bin/ember demo

test: build
	$(PY) -m pip install -q -r requirements-dev.txt
	EMBER_REQUIRE_NVRTC=1 EMBER_REQUIRE_DEVICE=1 VIRTUAL_ENV=$(abspath $(VENV)) $(CARGO) test --workspace --exclude ember-py -q
	EMBER_REQUIRE_NVRTC=1 $(PY) -m pytest -q

setup: system-packages rust venv

# PoCL and the OpenCL ICD loader. Without root, say what to install and go on.
system-packages:
	@if ldconfig -p 2>/dev/null | grep -q 'libOpenCL.so.1' && ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then \
		echo "OpenCL loader and driver found"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pocl-opencl-icd ocl-icd-libopencl1 python3-venv >/dev/null; \
	else \
		echo "NOTE: no OpenCL driver and not root: PoCL comes from pip into $(VENV) (pocl-binary-distribution);"; \
		echo "      'sudo apt-get install pocl-opencl-icd ocl-icd-libopencl1' gives a newer, faster PoCL."; \
	fi

rust:
	@if ! [ -x "$(CARGO)" ]; then \
		echo "installing Rust with rustup"; \
		curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal; \
	fi

venv: system-packages
	@[ -x $(PY) ] || python3 -m venv $(VENV)
	@$(PY) -m pip install -q --upgrade pip >/dev/null
	@$(PY) -m pip install -q "maturin>=1.5,<2" "numpy>=1.24" "ml_dtypes>=0.4" pytest hypothesis
	@if ! (ldconfig -p 2>/dev/null | grep -q 'libOpenCL.so.1' && ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1); then \
		$(PY) -m pip install -q "pocl-binary-distribution>=3" "pyopencl>=2024.1"; \
	fi

build: setup
	PATH="$(dir $(CARGO)):$$PATH" VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --release -q

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -q -- -D warnings
	$(VENV)/bin/ruff check python tests benchmarks

clean:
	rm -rf $(VENV) target
