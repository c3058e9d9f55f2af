"""Zero-copy exchange with PyTorch (DLPack) and CuPy (CUDA array interface, DLPack): same memory, writes seen
both ways. Written for CuPy and PyTorch; on ember only the imports change."""

import sys

import ember as cp  # was: import cupy as cp
import numpy as np

try:
    import torch
except ImportError:
    torch = None
try:
    import cupy
except ImportError:
    cupy = None

if torch is None and cupy is None:
    print("SKIP: PyTorch and CuPy are not installed")
    sys.exit(77)
if cp.backend() != "cuda":
    print(f"SKIP: zero-copy with PyTorch/CuPy needs the CUDA backend; ember is on {cp.backend()}")
    sys.exit(77)
if torch is not None and not torch.cuda.is_available():
    torch = None  # a CPU-only build of PyTorch cannot see GPU memory
    if cupy is None:
        print("SKIP: zero-copy with PyTorch needs PyTorch built with CUDA, and CuPy is not installed")
        sys.exit(77)

rng = np.random.default_rng(5)
host = rng.standard_normal((256, 128), dtype=np.float32)
shared_with = []

if torch is not None:
    x = cp.asarray(host)
    t = torch.from_dlpack(x)  # ember -> PyTorch
    assert t.is_cuda and t.data_ptr() == x.data.ptr and tuple(t.shape) == x.shape
    t.mul_(2)  # written by PyTorch, seen by ember
    torch.cuda.synchronize()
    np.testing.assert_allclose(x.get(), host * 2, rtol=1e-6)
    tt = torch.from_numpy(host).cuda().t()  # PyTorch -> ember, a transposed view
    e1, e2 = cp.from_dlpack(tt), cp.asarray(tt)  # DLPack and __cuda_array_interface__
    assert e1.data.ptr == e2.data.ptr == tt.data_ptr() and e1.strides == e2.strides
    e1 += 1  # written by ember, seen by PyTorch
    cp.cuda.Device().synchronize()
    np.testing.assert_allclose(tt.cpu().numpy(), host.T + 1, rtol=1e-6)
    shared_with.append("PyTorch")

if cupy is not None:
    x = cp.asarray(host)
    c1, c2 = cupy.asarray(x), cupy.from_dlpack(x)  # ember -> CuPy (CAI and DLPack)
    assert c1.data.ptr == c2.data.ptr == x.data.ptr
    c1 -= 3  # written by CuPy, seen by ember
    cupy.cuda.Device().synchronize()
    np.testing.assert_allclose(x.get(), host - 3, rtol=1e-6)
    c = cupy.asarray(host)[:, ::2]  # CuPy -> ember, a strided view
    e1, e2 = cp.asarray(c), cp.from_dlpack(c)
    assert e1.data.ptr == e2.data.ptr == c.data.ptr and e1.strides == c.strides
    e1 *= 0.5  # written by ember, seen by CuPy
    cp.cuda.Device().synchronize()
    np.testing.assert_allclose(cupy.asnumpy(c), host[:, ::2] * 0.5, rtol=1e-6)
    shared_with.append("CuPy")

print(f"{host.shape} float32 shared without copies with {' and '.join(shared_with)}: writes seen on both sides")
