"""A custom torch.autograd.Function whose forward and backward are CuPy ElementwiseKernels (leaky ReLU),
exchanged with PyTorch zero-copy through DLPack. Written for CuPy and PyTorch; on ember only the imports change."""

import sys

import ember as cp  # was: import cupy as cp
import numpy as np

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("SKIP: PyTorch is not installed")
    sys.exit(77)
if cp.backend() != "cuda" or not torch.cuda.is_available():
    why = f"ember is on {cp.backend()}" if cp.backend() != "cuda" else "this PyTorch is built without CUDA"
    print(f"SKIP: zero-copy with PyTorch needs the CUDA backend; {why}")
    sys.exit(77)

leaky_forward = cp.ElementwiseKernel("T x, T a", "T y", "y = x > 0 ? x : x * a", "leaky_forward")
leaky_backward = cp.ElementwiseKernel("T x, T gy, T a", "T gx", "gx = x > 0 ? gy : gy * a", "leaky_backward")


class LeakyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, a):
        ctx.save_for_backward(x)
        ctx.a = a
        y = leaky_forward(cp.from_dlpack(x.detach()), a)
        return torch.from_dlpack(y)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        gx = leaky_backward(cp.from_dlpack(x.detach()), cp.from_dlpack(gy.contiguous()), ctx.a)
        return torch.from_dlpack(gx), None


rng = np.random.default_rng(6)
a = 0.1

# gradcheck: finite differences in float64 against the backward kernel
x64 = torch.from_numpy(rng.standard_normal((8, 16))).cuda().requires_grad_()
assert torch.autograd.gradcheck(LeakyReLU.apply, (x64, a), eps=1e-6, atol=1e-5)

# float32 forward and gradient against PyTorch's own leaky ReLU
x = torch.from_numpy(rng.standard_normal((1000, 1000), dtype=np.float32)).cuda().requires_grad_()
g = torch.from_numpy(rng.standard_normal((1000, 1000), dtype=np.float32)).cuda()
y = LeakyReLU.apply(x, a)
(gx,) = torch.autograd.grad(y, x, g)
x_ref = x.detach().clone().requires_grad_()
y_ref = F.leaky_relu(x_ref, negative_slope=a)
(gx_ref,) = torch.autograd.grad(y_ref, x_ref, g)
torch.testing.assert_close(y.detach(), y_ref.detach())
torch.testing.assert_close(gx, gx_ref)
print(f"y[0, :3] = {y[0, :3].tolist()}, grad[0, :3] = {gx[0, :3].tolist()}")
print("leaky ReLU as a torch.autograd.Function of ember kernels: gradcheck passes, matches F.leaky_relu")
