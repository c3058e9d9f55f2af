#!/usr/bin/env bash
# Runs on the lent GPU machine (see ../shared/tools/gpu-wheel.sh): installs what travels in
# .device/ (ember's wheel; NumPy 2.3 for numba-cuda; matplotlib for the bench chart), then one
# part of the session. Logs go to $OUT.
#   bash tools/gpu-session.sh smoke   # ember info, demo, bench --quick, the example and CLI tests
#   bash tools/gpu-session.sh tests   # the gpu-marked tests, then the whole suite on CUDA
#   bash tools/gpu-session.sh demo    # ember demo
#   bash tools/gpu-session.sh bench   # ember bench (full sizes) into $OUT/bench
#   bash tools/gpu-session.sh bench-ab # ember bench of .device/before/ (an older wheel) and of
#                                     # this one, alternately (old, new, old, new) into $OUT/ab
#   TESTS="tests/a.py tests/b.py" bash tools/gpu-session.sh files opencl-files
#   NEW_FILES="..." OLD_FILES="..." bash tools/gpu-session.sh opencl-ab
#                                     # on NVIDIA's OpenCL, test files of this wheel and of the older
#                                     # one, each file in its own process (a fault poisons the rest),
#                                     # failures by name in $OUT/ocl-new.log and $OUT/ocl-old.log
#                                     # those test files on CUDA, then on NVIDIA's OpenCL (same GPU)
# Several parts run in turn: bash tools/gpu-session.sh tests demo bench
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
rm -rf /tmp/site  # a warm machine keeps the last wheel: replace it
python3 -m pip install -q --no-index --no-deps --target /tmp/site .device/ember-*.whl || exit 1
# ml_dtypes (ember's bfloat16 on the host), if the machine lacks it.
if ! python3 -c "import ml_dtypes" 2>/dev/null && ls .device/ml_dtypes-*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .device/ml_dtypes-*.whl
fi
if [ ! -d /tmp/np23 ] && ls .device/numpy-2.3.*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/np23 .device/numpy-2.3.*.whl
fi
if [ ! -d /tmp/mpl ] && ls .device/mpl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/mpl .device/mpl/*.whl
fi
export PYTHONUNBUFFERED=1
SITE=/tmp/site:/tmp/mpl
# numba-cuda imports only with NumPy 2.3; the peers' rows need it in the same process.
PEERS=/tmp/np23:$SITE
nvidia-smi -L | tee "$OUT/gpu.txt"

# The older wheel of .device/before, for comparisons.
install_before() {
  rm -rf /tmp/site-before
  python3 -m pip install -q --no-index --no-deps --target /tmp/site-before .device/before/ember-*.whl
}
# NVIDIA's OpenCL is installed but not registered: an ICD file of our own registers it.
register_icd() { mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd; }
# Each test file on NVIDIA's OpenCL with the ember of $1, summaries appended to $OUT/$2.
opencl_each() {
  site=$1; log=$2; shift 2
  for f in "$@"; do
    echo "== $f" >> "$OUT/$log"
    OCL_ICD_VENDORS=/tmp/icd EMBER_BACKEND=opencl PYTHONPATH=$site timeout 280 python3 -m pytest -q -rf \
      -p no:cacheprovider "$f" 2>&1 | grep -E "^FAILED|passed|failed" >> "$OUT/$log"
  done
}
for part in "${@:-smoke}"; do
case "$part" in
  smoke)
    PYTHONPATH=$SITE python3 -m ember info > "$OUT/info.txt" 2>&1
    PYTHONPATH=$SITE python3 -m ember demo 2>&1 | tee "$OUT/demo.txt"
    PYTHONPATH=$PEERS python3 -m ember bench --quick --out "$OUT/bench-quick" 2>&1 | tee "$OUT/bench-quick.txt"
    PYTHONPATH=$SITE python3 -m pytest -q tests/tools/test_examples.py tests/tools/test_cli.py 2>&1 | tail -30 ;;
  tests)
    PYTHONPATH=$SITE python3 -m pytest -q -m gpu tests 2>&1 | tee "$OUT/gpu-tests.log" | tail -25
    PYTHONPATH=$SITE python3 -m pytest -q tests 2>&1 | tee "$OUT/all-tests.log" | tail -25 ;;
  demo)
    PYTHONPATH=$SITE python3 -m ember demo 2>&1 | tee "$OUT/demo.txt" ;;
  bench)
    PYTHONPATH=$PEERS python3 -m ember bench --out "$OUT/bench" 2>&1 | tee "$OUT/bench.txt" ;;
  bench-ab)
    install_before || exit 1
    mkdir -p "$OUT/ab"
    for run in ${RUNS:-1 2}; do
      for side in old new; do
        site=$SITE; [ $side = old ] && site=/tmp/site-before:/tmp/mpl
        PYTHONPATH=/tmp/np23:$site python3 -m ember bench ${BENCH_ARGS:-} --out "$OUT/ab/$side-$run" 2>&1 \
          | tee "$OUT/ab/$side-$run.txt" | tail -40
      done
    done ;;
  files)
    PYTHONPATH=$SITE python3 -m pytest -q -p no:cacheprovider ${TESTS:-tests} 2>&1 \
      | tee "$OUT/files-cuda.log" | tail -25 ;;
  opencl-files)
    register_icd
    OCL_ICD_VENDORS=/tmp/icd EMBER_BACKEND=opencl PYTHONPATH=$SITE python3 -m ember info > "$OUT/info-opencl.txt" 2>&1
    OCL_ICD_VENDORS=/tmp/icd EMBER_BACKEND=opencl PYTHONPATH=$SITE python3 -m pytest -q -p no:cacheprovider \
      ${TESTS:-tests} 2>&1 | tee "$OUT/files-opencl.log" | tail -25 ;;
  opencl-ab)
    register_icd
    install_before || exit 1
    opencl_each "$SITE" ocl-new.log $NEW_FILES
    opencl_each /tmp/site-before ocl-old.log $OLD_FILES
    tail -n 100 "$OUT/ocl-new.log" "$OUT/ocl-old.log" | cut -c1-220 ;;
  *) echo "unknown part $part; see the head of this script" >&2; exit 2 ;;
esac
done
