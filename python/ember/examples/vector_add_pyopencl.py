"""Vector add with an OpenCL C kernel through PyOpenCL's API, checked against NumPy.
Written for PyOpenCL; on ember only the imports change."""

import numpy as np
from ember import cl  # was: import pyopencl as cl

n = 1_000_000
rng = np.random.default_rng(7)
a_np = rng.random(n, dtype=np.float32)
b_np = rng.random(n, dtype=np.float32)

ctx = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(ctx)

mf = cl.mem_flags
a_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a_np)
b_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b_np)
res_g = cl.Buffer(ctx, mf.WRITE_ONLY, a_np.nbytes)

prg = cl.Program(ctx, """
__kernel void sum(__global const float *a_g, __global const float *b_g, __global float *res_g)
{
    int gid = get_global_id(0);
    res_g[gid] = a_g[gid] + b_g[gid];
}
""").build()

prg.sum(queue, a_np.shape, None, a_g, b_g, res_g)

res_np = np.empty_like(a_np)
cl.enqueue_copy(queue, res_np, res_g)

expected = a_np + b_np
np.testing.assert_allclose(res_np, expected, rtol=0, atol=0)
print(f"device: {ctx.devices[0].name}")
print(f"vector add of {n:,} float32 with OpenCL C: matches NumPy (max abs error {np.abs(res_np - expected).max()})")
