"""``pycuda.autoinit`` as ember's."""

from ember.cuda.autoinit import context, device  # noqa: F401
