"""``numba.cuda.core.config``: ember's own settings module (``ember.cuda.config``: what ember
reads, such as ``CUDA_ARRAY_INTERFACE_SYNC``), with the harness switches numba-cuda's tests read
added to it.

``ENABLE_CUDASIM`` is ember's own switch (``NUMBA_ENABLE_CUDASIM=1`` turns ember's simulator on,
and numba-cuda's tests then skip what they skip on a simulator); the two
warning switches exist because ``CUDATestCase`` saves and restores them, ``CUDA_ENABLE_NRT``
(Numba's in-kernel allocator, off by default) because array-method tests save and set it: ember
reads none of those. Any other setting is missing (``AttributeError``), so a test that overrides
it fails as it would.
"""

import sys

import ember.cuda

config = ember.cuda.config
config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
config.CUDA_WARN_ON_IMPLICIT_COPY = 0
config.CUDA_ENABLE_NRT = False
sys.modules[__name__] = config
