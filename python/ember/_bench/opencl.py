"""ember's own kernels timed through the OpenCL driver of the same GPU (NVIDIA's OpenCL on
the H100), beside the vendor library ember calls on CUDA: the rows that say how far the
OpenCL path is from cuFFT / cuSOLVER. Each timing runs in a fresh interpreter with
``EMBER_BACKEND=opencl`` (a process holds one backend), and is taken as the vendor's figure is:
device time between two events (OpenCL markers), median of the repeats after warm-up."""

from __future__ import annotations

import json
import os
import subprocess
import sys

_PROGRAM = """
import json, sys, numpy as np, ember
from ember._bench.measure import device_ms
if ember.backend() != "opencl" or ember.Device(0).attributes.get("is_cpu"):
    raise SystemExit("no OpenCL GPU: " + ember.backend())
ns = {"ember": ember, "np": np}
exec(sys.argv[1], ns)
events = lambda: (ember.cuda.Event(), ember.cuda.Event())
print(json.dumps(device_ms(ns["run"], events, ember.synchronize, ember.cuda.get_elapsed_time, int(sys.argv[2]))))
"""


def opencl_ms(setup: str, repeat: int, timeout: int = 600) -> float:
    """Median milliseconds of ``run()`` (defined by ``setup``, with ``ember`` and ``np`` in
    scope) on the first OpenCL GPU; raises with the reason when there is none."""
    env = dict(os.environ, EMBER_BACKEND="opencl")
    done = subprocess.run([sys.executable, "-c", _PROGRAM, setup, str(repeat)], capture_output=True, text=True,
                          env=env, timeout=timeout)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise RuntimeError(lines[-1] if lines else f"exit status {done.returncode}")
    return json.loads(done.stdout.strip().splitlines()[-1])
