"""``pycuda`` as ember, for running PyCUDA's own tests (a measuring harness only):
``pycuda.X`` is ``ember.cuda.X``; what ember lacks is missing, so tests needing it fail."""

import sys

import ember.cuda.compiler as compiler
import ember.cuda.driver as driver
import ember.cuda.gpuarray as gpuarray
import ember.cuda.tools as tools

for _name, _module in (("driver", driver), ("gpuarray", gpuarray), ("compiler", compiler), ("tools", tools)):
    sys.modules[f"pycuda.{_name}"] = _module
