"""What counts as an array operand is decided in one place (ember._operands) for every entry
point: ember arrays, other libraries' device arrays (CUDA array interface or DLPack, NumPy's
arrays excepted) and host data NumPy would convert."""

from __future__ import annotations

import ember
import numpy as np
from ember._operands import is_device_array, needs_conversion, on_device


class CudaArrayLike:
    __cuda_array_interface__ = {"shape": (1,), "typestr": "<f4", "data": (0, False), "version": 3}


class DLPackLike:
    def __dlpack__(self, stream=None):
        raise NotImplementedError

    def __dlpack_device__(self):
        return (2, 0)


def test_each_kind_of_operand_is_classified_once():
    e, n = ember.ones(3), np.ones(3)
    cases = {
        "ember": (e, False, True, False),
        "numpy": (n, False, False, False),
        "list": ([1, 2], False, False, True),
        "tuple": ((1, 2), False, False, True),
        "cuda array interface": (CudaArrayLike(), True, True, True),
        "dlpack": (DLPackLike(), True, True, True),
        "scalar": (2.5, False, False, False),
    }
    for what, (x, device, on, convert) in cases.items():
        assert (is_device_array(x), on_device(x), needs_conversion(x)) == (device, on, convert), what


def test_ufuncs_and_indexing_convert_what_numpy_converts():
    a = ember.arange(5)
    np.testing.assert_array_equal(ember.add(a, [1, 1, 1, 1, 1]).get(), np.arange(5) + 1)
    np.testing.assert_array_equal(ember.add((1, 2, 3, 4, 5), a).get(), np.arange(5) + [1, 2, 3, 4, 5])
    np.testing.assert_array_equal(a[[0, 2]].get(), [0, 2])
