"""Sets two saved runs of the suite side by side (EMBER_CUDA_C_SUITE_SAVE folders: PoCL's
translation, NVRTC's cubin on an NVIDIA GPU, NVIDIA's OpenCL through the translation):

    python tests/kernels/cuda_c_conformance/compare.py RUN_A RUN_B

Prints, per case, whether every array is equal bit for bit and otherwise the largest difference in
units in the last place; a case saved by only one run is listed as missing."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np


def ulps(a: np.ndarray, b: np.ndarray) -> float:
    if a.dtype.kind != "f":
        return float(np.count_nonzero(a != b))  # integers: how many differ
    both_nan = np.isnan(a) & np.isnan(b)
    spacing = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(a.dtype))
    with np.errstate(invalid="ignore"):
        d = np.where(both_nan, 0, np.abs(a.astype(np.float64) - b) / spacing)
    return float(np.nanmax(d, initial=0)) if d.size else 0.0


def main(a: str, b: str) -> int:
    left = {p.name: p for p in Path(a).glob("*.npz")}
    right = {p.name: p for p in Path(b).glob("*.npz")}
    equal = differ = 0
    for name in sorted(left.keys() | right.keys()):
        if name not in left or name not in right:
            print(f"{name[:-4]}: missing in {'the first' if name not in left else 'the second'} run")
            continue
        x, y = np.load(left[name]), np.load(right[name])
        worst = max((ulps(x[k], y[k]) for k in x.files), default=0.0)
        if worst == 0:
            equal += 1
        else:
            differ += 1
            print(f"{name[:-4]}: differs, at most {worst:g} ulp (integers: elements)")
    print(f"{equal} cases equal bit for bit, {differ} differ, of {len(left.keys() & right.keys())} in both")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
