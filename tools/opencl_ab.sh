# NVIDIA's OpenCL: the failing test files of this wheel, and the same files of the older wheel
# (.device/before, its tests in .device/before-tests), failures listed by name in one log each.
mkdir -p /tmp/icd "$OUT" && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
rm -rf /tmp/site-before
python3 -m pip install -q --no-index --no-deps --target /tmp/site-before .device/before/ember-*.whl
run() {  # site, log, files...
  site=$1; log=$2; shift 2
  for f in "$@"; do
    echo "== $f" >> "$OUT/$log"
    OCL_ICD_VENDORS=/tmp/icd EMBER_BACKEND=opencl PYTHONPATH=$site timeout 280 python3 -m pytest -q -rf \
      -p no:cacheprovider "$f" 2>&1 | grep -E "^FAILED|passed|failed" >> "$OUT/$log"
  done
}
run /tmp/site ocl-new.log $NEW_FILES
run /tmp/site-before ocl-old.log $OLD_FILES
tail -n 100 "$OUT/ocl-new.log" "$OUT/ocl-old.log" | cut -c1-220
