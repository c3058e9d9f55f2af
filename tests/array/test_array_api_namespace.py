"""The Array API standard's face of ember (2024.12): ``__array_namespace__`` and
``__array_namespace_info__``, ``device=`` on the creation functions, ``asarray(copy=)``,
``std``/``var(correction=)``, ``clip(min=, max=)`` and ``vecdot``'s dtype, each against NumPy's
own Array API namespace (NumPy 2 implements the standard) or the standard's text."""

from __future__ import annotations

import ember as cp
import numpy as np
import pytest


def test_namespace_is_ember_for_every_supported_version():
    x = cp.zeros(3)
    assert x.__array_namespace__() is cp
    for version in ("2021.12", "2022.12", "2023.12", "2024.12"):
        assert x.__array_namespace__(api_version=version) is cp
    with pytest.raises(ValueError, match="Unrecognized array API version: '2099.12'"):
        x.__array_namespace__(api_version="2099.12")
    assert cp.__array_api_version__ == "2024.12"


def test_inspection_object_matches_numpys_where_the_dtypes_agree():
    mine, numpys = cp.__array_namespace_info__(), np.__array_namespace_info__()
    assert mine.capabilities() == numpys.capabilities()
    assert mine.default_dtypes() == numpys.default_dtypes()
    for kind in (None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric", ("bool", "real floating")):
        assert mine.dtypes(kind=kind) == numpys.dtypes(kind=kind), kind
    assert mine.default_device() == cp.zeros(1).device
    assert mine.devices() == [cp.cuda.Device(i) for i in range(cp.cuda.runtime.getDeviceCount())]
    with pytest.raises(ValueError, match="unsupported kind"):
        mine.dtypes(kind="strings")


@pytest.mark.parametrize("make", [
    lambda xp, **d: xp.zeros((2, 3), dtype=xp.int16, **d),
    lambda xp, **d: xp.ones(4, **d),
    lambda xp, **d: xp.full(2, 7, **d),
    lambda xp, **d: xp.empty(0, **d),
    lambda xp, **d: xp.arange(1, 7, 2, **d),
    lambda xp, **d: xp.linspace(0, 1, 5, **d),
    lambda xp, **d: xp.eye(3, 2, k=-1, **d),
    lambda xp, **d: xp.asarray([1.5, 2.5], **d),
    lambda xp, **d: xp.zeros_like(xp.ones((2, 2), dtype=xp.uint8), **d),
    lambda xp, **d: xp.ones_like(xp.ones(3), **d),
    lambda xp, **d: xp.full_like(xp.ones(3), 4, **d),
    lambda xp, **d: xp.empty_like(xp.ones((1, 2)), **d).shape,
])
def test_creation_functions_take_a_device(make):
    device = cp.cuda.Device(0)
    got, want = make(cp, device=device), make(np, device="cpu")
    if isinstance(want, tuple):
        assert got == want
        return
    assert got.device == device
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.size and make.__code__.co_names[-1] != "empty":
        np.testing.assert_array_equal(got.get(), want)
    assert make(cp, device=0).device == device  # a device id works too


def test_asarray_copy_follows_numpy_2():
    a = cp.arange(4.0)
    assert cp.asarray(a, copy=False) is a and cp.asarray(a) is a
    b = cp.asarray(a, copy=True)
    assert b is not a and not cp.shares_memory(a, b)
    np.testing.assert_array_equal(b.get(), a.get())
    for obj, kwargs in ((a, {"dtype": np.float32}), ([1, 2], {}), (cp.ones((2, 3))[:, ::2], {"order": "C"})):
        with pytest.raises(ValueError, match="Unable to avoid copy while creating an array as requested."):
            cp.asarray(obj, copy=False, **kwargs)
    with pytest.raises(ValueError, match="Unable to avoid copy while creating an array as requested."):
        np.asarray(np.arange(3.0), dtype=np.float32, copy=False)


def test_std_var_correction_clip_bounds_and_vecdot_dtype_match_numpy():
    rng = np.random.default_rng(11)
    h = rng.standard_normal((4, 5))
    a = cp.asarray(h)
    for name in ("std", "var"):
        for correction in (0, 1, 2.5):
            np.testing.assert_allclose(getattr(cp, name)(a, axis=1, correction=correction).get(),
                                       getattr(np, name)(h, axis=1, correction=correction), rtol=1e-12)
            np.testing.assert_allclose(getattr(a, name)(correction=correction).get(),
                                       getattr(np, name)(h, correction=correction), rtol=1e-12)
        for xp, x in ((np, h), (cp, a)):
            with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously."):
                getattr(xp, name)(x, ddof=1, correction=1)
    np.testing.assert_array_equal(cp.clip(a, min=-0.5, max=0.5).get(), np.clip(h, min=-0.5, max=0.5))
    np.testing.assert_array_equal(cp.clip(a, max=0.1).get(), np.clip(h, max=0.1))
    for xp, x in ((np, h), (cp, a)):
        with pytest.raises(ValueError, match="Passing `min` or `max` keyword argument when `a_min` and `a_max`"):
            xp.clip(x, 0, None, min=1)
    u = rng.integers(0, 255, (3, 4), dtype=np.uint8)
    got, want = cp.vecdot(cp.asarray(u), cp.asarray(u)), np.vecdot(u, u)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)
