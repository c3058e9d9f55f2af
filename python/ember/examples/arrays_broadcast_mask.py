"""CuPy array code: creation, broadcasting, integer and boolean indexing, reductions, dot and cp.random,
each checked against NumPy. Written for CuPy; on ember only the imports change."""

import ember as cp  # was: import cupy as cp
import numpy as np

rng = np.random.default_rng(3)
a_host = rng.standard_normal((4, 5), dtype=np.float32)
b_host = rng.standard_normal(5, dtype=np.float32)
a, b = cp.asarray(a_host), cp.asarray(b_host)

# creation and broadcasting in 2-D and 3-D
cols = cp.arange(5, dtype=cp.float32)
np.testing.assert_allclose((a * b + cols).get(), a_host * b_host + np.arange(5, dtype=np.float32), rtol=1e-6)
c3 = a.reshape(4, 1, 5) - a.reshape(1, 4, 5)
np.testing.assert_allclose(c3.get(), a_host[:, None, :] - a_host[None, :, :], rtol=1e-6)
print("broadcast shapes:", (a * b).shape, c3.shape)

# integer-array indexing and an upper-triangle mask
rows = cp.asarray(np.array([3, 0, 2], dtype=np.int64))
np.testing.assert_array_equal(a[rows].get(), a_host[[3, 0, 2]])
z = cp.asarray(a_host[:3, :3])
upper = z[cp.triu(cp.ones((3, 3), dtype=cp.bool_))]
np.testing.assert_array_equal(upper.get(), a_host[:3, :3][np.triu(np.ones((3, 3), dtype=bool))])
print("upper triangle of z:", upper.get())

# masks, reductions, assignment through a mask
matrix = cp.asarray(a_host)
mask = matrix < -0.5
np.testing.assert_array_equal(matrix[mask].get(), a_host[a_host < -0.5])
np.testing.assert_allclose(matrix.mean(axis=0).get(), a_host.mean(axis=0), rtol=1e-5, atol=1e-6)
matrix[matrix < 0] = 0
relu = np.where(a_host < 0, 0, a_host)
np.testing.assert_array_equal(matrix.get(), relu)

# dot, sqrt, sum
d = cp.dot(matrix[1], b)
np.testing.assert_allclose(float(d), np.dot(relu[1], b_host), rtol=1e-5, atol=1e-6)
s = cp.sqrt(matrix).sum()
np.testing.assert_allclose(float(s), np.sqrt(relu).sum(), rtol=1e-5)
print(f"dot(matrix[1], b) = {float(d):.6f}, sum(sqrt(matrix)) = {float(s):.6f}")

# cp.random: a different generator than NumPy's, so check shape, dtype, range and moments
cp.random.seed(4)
u = cp.random.rand(100_000, dtype=cp.float32)
nrm = cp.random.randn(100_000, dtype=cp.float32)
assert u.shape == nrm.shape == (100_000,) and u.dtype == nrm.dtype == cp.float32
u_host, nrm_host = cp.asnumpy(u), cp.asnumpy(nrm)
assert 0 <= u_host.min() and u_host.max() < 1 and abs(u_host.mean() - 0.5) < 0.01
assert abs(nrm_host.mean()) < 0.02 and abs(nrm_host.std() - 1) < 0.02
print(f"random: uniform mean {u_host.mean():.4f}, normal mean {nrm_host.mean():.4f} std {nrm_host.std():.4f}")
print("arrays: creation, 2-D/3-D broadcasting, integer and mask indexing, mean, dot, sqrt, sum, random: match NumPy")
