"""``numba.cuda.core.config``: harness plumbing, the switches numba-cuda's tests read.

``ENABLE_CUDASIM`` is False (ember runs kernels on a device, not in Numba's simulator); the two
warning switches exist because ``CUDATestCase`` saves and restores them, ``CUDA_ENABLE_NRT``
(Numba's in-kernel allocator, off by default) because array-method tests save and set it: ember
reads none of them. Any other setting is missing (``AttributeError``), so a test that overrides
it fails as it would.
"""

ENABLE_CUDASIM = False
CUDA_LOW_OCCUPANCY_WARNINGS = 0
CUDA_WARN_ON_IMPLICIT_COPY = 0
CUDA_ENABLE_NRT = False


def __getattr__(name: str):
    raise AttributeError(f"module 'numba.cuda.core.config' has no attribute {name!r}")
