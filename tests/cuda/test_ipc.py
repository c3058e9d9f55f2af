"""CUDA interprocess memory (Numba's ``get_ipc_handle``/``open_ipc_array``): another process
opens a device array's memory and reads what this one wrote."""

import pickle
import subprocess
import sys

import ember.cuda as cuda
import numpy as np
import pytest

pytestmark = pytest.mark.gpu

# The other process: unpickles what stdin holds, opens it and prints the values it reads.
CHILD = """
import pickle, sys
import numpy as np
import ember.cuda as cuda
kind, payload = pickle.load(sys.stdin.buffer)
if kind == "array":
    with payload as arr:
        got = arr.copy_to_host()
elif kind == "handle":
    arr = payload.open_array(cuda.current_context(), shape=payload.size // 8, dtype=np.int64)
    got = arr.copy_to_host()
    payload.close()
else:
    raw, n = payload
    with cuda.open_ipc_array(raw, shape=n, dtype=np.int64) as arr:
        got = arr.copy_to_host()
sys.stdout.write(repr(got.tolist()))
"""


def _in_another_process(kind, payload):
    out = subprocess.run([sys.executable, "-c", CHILD], input=pickle.dumps((kind, payload)),
                         capture_output=True, check=True, timeout=120)
    return np.array(eval(out.stdout.decode()))


@pytest.mark.parametrize("index", [slice(None), slice(3, None), slice(3, 8), slice(None, None, -2)],
                         ids=["whole", "tail", "middle", "reversed"])
def test_another_process_reads_an_array_through_its_handle(index):
    host = np.random.default_rng(11).integers(-2**40, 2**40, 10)
    d = cuda.to_device(host)[index]
    np.testing.assert_array_equal(_in_another_process("array", d.get_ipc_handle()), host[index])


def test_a_memory_handle_pickles_and_opens_at_its_offset():
    host = np.random.default_rng(12).integers(-2**40, 2**40, 10)
    d = cuda.to_device(host)[3:8]
    handle = cuda.current_context().get_ipc_handle(d.gpu_data)
    again = pickle.loads(pickle.dumps(handle))
    assert again.base is None and again.size == handle.size == 40
    assert again.handle.reserved == handle.handle.reserved and len(handle.handle.reserved) == 64
    np.testing.assert_array_equal(_in_another_process("handle", handle), host[3:8])
    whole = cuda.to_device(host)
    raw = cuda.current_context().get_ipc_handle(whole.gpu_data)
    assert raw.offset == 0
    np.testing.assert_array_equal(_in_another_process("raw", (raw.handle.reserved, 10)), host)
