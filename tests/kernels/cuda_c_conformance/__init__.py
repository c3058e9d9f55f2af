"""The CUDA C conformance suite: kernels in the style of CuPy's, PyCUDA's and Numba's documentation
and tests and of NVIDIA's CUDA samples (written here, not copied), each run through ember and
checked against NumPy. On OpenCL devices each runs through ember's CUDA C -> OpenCL C translation,
on CUDA through NVRTC; `compare.py` sets the outputs of two runs side by side."""
