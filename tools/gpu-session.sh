#!/usr/bin/env bash
# Runs on the lent GPU machine (see ../shared/tools/gpu-wheel.sh): installs the wheel carried in
# .device/, then `ember info`, the gpu-marked tests, the whole suite on CUDA, the demo and the
# benchmarks. Logs go to $OUT.
# Usage there: bash tools/gpu-session.sh [quick]   (BENCH="transfer pool_alloc" picks benchmarks)
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .device/ember-*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
nvidia-smi -L | tee "$OUT/gpu.txt"
python3 -m ember info 2>&1 | tee "$OUT/info.txt"
python3 -m pytest -q -m gpu tests 2>&1 | tee "$OUT/gpu-tests.log" | tail -25
python3 -m pytest -q tests 2>&1 | tee "$OUT/all-tests.log" | tail -15
python3 -m ember demo 2>&1 | tee "$OUT/demo.txt"
if [ "${1:-}" != quick ]; then
  for b in ${BENCH:-kernels_from_strings transfer pool_alloc}; do
    python3 "benchmarks/$b.py" 2>&1 | tee "$OUT/$b.txt"
  done
fi
