"""Matrix products (``dot matmul @ inner outer vdot``) and ``linalg.norm`` against NumPy.

On PoCL every new kernel costs about a second to compile, so most cases share a few dtypes:
float64 for shapes and layouts, plus int32, float32 and complex64 once each.
"""

import ember
import numpy as np
import pytest

F64 = {"rtol": 1e-12, "atol": 1e-12}


def randn(rng, shape, dtype=np.float64):
    if np.dtype(dtype).kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def check(got, want, **tol):
    assert isinstance(got, ember.ndarray)
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype, (got.shape, got.dtype)
    np.testing.assert_allclose(got.get(), want, **(tol or F64))


# --- matmul -----------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [((37, 53), (53, 29)), ((64, 64), (64, 64)), ((1, 7), (7, 1)), ((70, 3), (3, 90))],
                         ids=str)
def test_matmul_2d_matches_numpy(rng, shapes):
    a, b = randn(rng, shapes[0]), randn(rng, shapes[1])
    check(ember.matmul(ember.asarray(a), ember.asarray(b)), a @ b)


@pytest.mark.parametrize("shapes", [((53,), (53, 29)), ((37, 53), (53,)), ((53,), (53,)), ((3, 37, 53), (53,)),
                                    ((53,), (2, 53, 29))], ids=str)
def test_one_d_operands_are_promoted_and_removed(rng, shapes):
    a, b = randn(rng, shapes[0]), randn(rng, shapes[1])
    check(ember.asarray(a) @ ember.asarray(b), a @ b)


@pytest.mark.parametrize("shapes", [
    ((2, 1, 5, 7), (3, 7, 4)),   # batch axes broadcast both ways
    ((4, 5, 7), (7, 3)),         # a shared B: one product over all rows
    ((5, 7), (2, 7, 3)),         # a shared A
    ((2, 3, 1, 5, 7), (3, 4, 7, 2)),
], ids=str)
def test_batched_matmul_broadcasts_batch_axes(rng, shapes):
    a, b = randn(rng, shapes[0]), randn(rng, shapes[1])
    check(ember.asarray(a) @ ember.asarray(b), a @ b)


def test_transposed_and_sliced_operands_are_read_in_place(rng):
    a, b = randn(rng, (41, 30)), randn(rng, (41, 23))
    ea, eb = ember.asarray(a), ember.asarray(b)
    check(ea.T @ eb, a.T @ b)
    check(eb.T @ ea, b.T @ a)
    c = randn(rng, (30, 5))
    check(ea[::2, ::-1] @ ember.asarray(c)[::-1], a[::2, ::-1] @ c[::-1])
    batched = randn(rng, (3, 30, 41))
    check(ember.asarray(batched).transpose(0, 2, 1) @ ember.asarray(c), batched.transpose(0, 2, 1) @ c)


def test_long_shared_dimension_with_small_result(rng):
    # Few output tiles and a long k: the product is split over k and the parts summed.
    a, b = randn(rng, (3, 4100)), randn(rng, (4100, 2))
    check(ember.asarray(a) @ ember.asarray(b), a @ b, rtol=1e-11, atol=1e-11)
    v, w = randn(rng, 20000), randn(rng, 20000)
    check(ember.dot(ember.asarray(v), ember.asarray(w)), np.dot(v, w), rtol=1e-11, atol=1e-11)


def test_skinny_products_use_tall_and_wide_tiles(rng):
    a, v = randn(rng, (300, 50)), randn(rng, 50)
    check(ember.asarray(a) @ ember.asarray(v), a @ v)
    check(ember.asarray(v) @ ember.asarray(a.T), v @ a.T)


def test_integer_matmul_sums_in_the_result_dtype_and_wraps(rng):
    a = rng.integers(-(2**31), 2**31, (19, 33), dtype=np.int32)
    b = rng.integers(-(2**31), 2**31, (33, 21), dtype=np.int32)
    got = ember.asarray(a) @ ember.asarray(b)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got.get(), a @ b)


def test_float32_matmul_is_accurate_to_float32(rng):
    a, b = randn(rng, (37, 200), np.float32), randn(rng, (200, 29), np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    check(ember.asarray(a) @ ember.asarray(b), want.astype(np.float32), rtol=2e-5, atol=2e-4)


def test_complex64_matmul(rng):
    a, b = randn(rng, (9, 17), np.complex64), randn(rng, (2, 17, 6), np.complex64)
    check(ember.asarray(a) @ ember.asarray(b), a @ b, rtol=1e-5, atol=1e-5)


def test_result_dtype_follows_numpy_promotion(rng):
    a = rng.integers(-50, 50, (6, 5)).astype(np.int32)
    b = randn(rng, (5, 4), np.float32)
    got = ember.asarray(a) @ ember.asarray(b)
    assert got.dtype == np.float64  # int32 with float32 promotes to float64
    check(got, a @ b)


def test_empty_and_zero_length_products(rng):
    check(ember.zeros((0, 3)) @ ember.zeros((3, 4)), np.zeros((0, 4)))
    check(ember.ones((2, 0)) @ ember.ones((0, 3)), np.zeros((2, 3)))


# --- out= and the operators -------------------------------------------------------------------
def test_out_receives_the_product_cast_and_broadcast(rng):
    a, b = randn(rng, (5, 7)), randn(rng, (7, 3))
    ea, eb = ember.asarray(a), ember.asarray(b)
    out = ember.empty((5, 3))
    assert ember.matmul(ea, eb, out=out) is out
    check(out, a @ b)
    wide = ember.zeros((5, 3), np.complex128)
    ember.matmul(ea, eb, out=wide)
    check(wide, (a @ b).astype(np.complex128))
    stacked = ember.empty((2, 5, 3))  # out may broadcast the batch, as NumPy allows
    ember.matmul(ea, eb, out=stacked)
    check(stacked, np.matmul(a, b, out=np.empty((2, 5, 3))))
    strided = ember.zeros((5, 6))[:, ::2]
    ember.matmul(ea, eb, out=strided)
    check(strided, a @ b)


def test_out_errors_match_numpy(rng):
    ea, eb = ember.ones((5, 7)), ember.ones((7, 3))
    core = r"Output operand 0 has a mismatch in its core dimension 0.*size 4 is different"
    with pytest.raises(ValueError, match=core):
        ember.matmul(ea, eb, out=ember.empty((4, 3)))
    cast = r"Cannot cast ufunc 'matmul' output from dtype\('float64'\) to dtype\('int32'\)"
    with pytest.raises(TypeError, match=cast):
        ember.matmul(ea, eb, out=ember.empty((5, 3), np.int32))


def test_operators_and_method(rng):
    a, b = randn(rng, (4, 4)), randn(rng, (4, 4))
    ea = ember.asarray(a)
    check(ea @ ember.asarray(b), a @ b)
    check(ea.dot(ember.asarray(b)), a.dot(b))
    check(b.tolist() @ ea, b @ a)  # __rmatmul__
    ea @= ember.asarray(b)
    check(ea, a @ b)


def test_matmul_errors_match_numpy():
    mismatch = (r"^matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                r"signature \(n\?,k\),\(k,m\?\)->\(n\?,m\?\) \(size 4 is different from 3\)$")
    with pytest.raises(ValueError, match=mismatch):
        ember.ones((2, 3)) @ ember.ones((4, 2))
    scalar = r"^matmul: Input operand 0 does not have enough dimensions \(has 0, gufunc core"
    with pytest.raises(ValueError, match=scalar):
        ember.matmul(2.0, ember.ones(3))
    with pytest.raises(ValueError, match=r"Input operand 1 does not have enough dimensions"):
        ember.ones(3) @ 2
    with pytest.raises(ValueError, match=r"remapped shapes \[original->remapped\]: \(2,3,4\)->\(2,newaxis,newaxis\)"):
        ember.ones((2, 3, 4)) @ ember.ones((3, 4, 5))
    with pytest.raises(TypeError, match="ember.asarray"):
        ember.matmul(np.ones((2, 2)), ember.ones((2, 2)))


# --- dot inner outer vdot ---------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [((6,), (6,)), ((4, 6), (6, 3)), ((2, 4, 6), (6,)), ((6,), (2, 6, 3)),
                                    ((2, 4, 6), (3, 6, 5))], ids=str)
def test_dot_matches_numpy(rng, shapes):
    a, b = randn(rng, shapes[0]), randn(rng, shapes[1])
    check(ember.dot(ember.asarray(a), ember.asarray(b)), np.dot(a, b))


def test_dot_with_a_scalar_multiplies(rng):
    a = randn(rng, (3, 2))
    check(ember.dot(ember.asarray(a), 2.5), np.dot(a, 2.5))


def test_dot_out(rng):
    a, b = randn(rng, (4, 6)), randn(rng, (6, 3))
    out = ember.empty((4, 3))
    assert ember.dot(ember.asarray(a), ember.asarray(b), out=out) is out
    check(out, a @ b)


def test_dot_not_aligned_error():
    with pytest.raises(ValueError, match=r"^shapes \(2,3\) and \(4,\) not aligned: 3 \(dim 1\) != 4 \(dim 0\)$"):
        ember.dot(ember.ones((2, 3)), ember.ones(4))
    with pytest.raises(ValueError, match=r"^shapes \(2,3\) and \(2,4,5\) not aligned: 3 \(dim 1\) != 4 \(dim 1\)$"):
        ember.dot(ember.ones((2, 3)), ember.ones((2, 4, 5)))


@pytest.mark.parametrize("shapes", [((6,), (6,)), ((4, 6), (6,)), ((4, 6), (3, 6)), ((2, 4, 6), (5, 3, 6))], ids=str)
def test_inner_matches_numpy(rng, shapes):
    a, b = randn(rng, shapes[0]), randn(rng, shapes[1])
    check(ember.inner(ember.asarray(a), ember.asarray(b)), np.inner(a, b))


def test_inner_errors_like_numpy():
    with pytest.raises(ValueError, match=r"^shapes \(2,3\) and \(5,4\) not aligned: 3 \(dim 1\) != 5 \(dim 0\)$"):
        ember.inner(ember.ones((2, 3)), ember.ones((4, 5)))


def test_outer_flattens_and_multiplies(rng):
    a, b = randn(rng, (2, 3)), randn(rng, 4)
    check(ember.outer(ember.asarray(a), ember.asarray(b)), np.outer(a, b))
    out = ember.empty((6, 4))
    ember.outer(ember.asarray(a), ember.asarray(b), out=out)
    check(out, np.outer(a, b))


def test_vdot_conjugates_the_first_operand(rng):
    a, b = randn(rng, (3, 5), np.complex64), randn(rng, 15, np.complex64)
    check(ember.vdot(ember.asarray(a), ember.asarray(b)), np.vdot(a, b), rtol=1e-5, atol=1e-5)
    x, y = randn(rng, (2, 4)), randn(rng, (8,))
    check(ember.vdot(ember.asarray(x), ember.asarray(y)), np.vdot(x, y))
    with pytest.raises(ValueError, match="cannot reshape array of size 4 into shape"):
        ember.vdot(ember.ones(3), ember.ones(4))


# --- linalg.norm ------------------------------------------------------------------------------
@pytest.mark.parametrize("ord", [None, 2, 1, np.inf, -np.inf, 0, 3, 0.5])
def test_vector_norms(rng, ord):
    x = randn(rng, 40)
    x[3] = 0
    check(ember.linalg.norm(ember.asarray(x), ord), np.linalg.norm(x, ord))


@pytest.mark.parametrize("ord", [None, "fro", 1, -1, np.inf, -np.inf])
def test_matrix_norms(rng, ord):
    x = randn(rng, (7, 9))
    check(ember.linalg.norm(ember.asarray(x), ord), np.linalg.norm(x, ord))


@pytest.mark.parametrize("ord,axis", [(None, 1), (1, 0), (None, (0, 2)), (np.inf, (2, 0)), (-1, (1, 2))], ids=str)
def test_norm_axis_and_keepdims(rng, ord, axis):
    x = randn(rng, (3, 4, 5))
    for keepdims in (False, True):
        want = np.linalg.norm(x, ord, axis, keepdims)
        check(ember.linalg.norm(ember.asarray(x), ord, axis, keepdims), want)


def test_norm_dtypes_follow_numpy(rng):
    ints = rng.integers(-9, 9, (4, 5)).astype(np.int32)
    check(ember.linalg.norm(ember.asarray(ints)), np.linalg.norm(ints))
    c = randn(rng, 10, np.complex64)
    check(ember.linalg.norm(ember.asarray(c)), np.linalg.norm(c), rtol=1e-6)
    x = randn(rng, (2, 3, 4))
    check(ember.linalg.norm(ember.asarray(x), keepdims=True), np.linalg.norm(x, keepdims=True))


def test_norm_errors_match_numpy():
    with pytest.raises(ValueError, match="Invalid norm order 'fro' for vectors"):
        ember.linalg.norm(ember.ones(3), "fro")
    with pytest.raises(ValueError, match="Invalid norm order for matrices."):
        ember.linalg.norm(ember.ones((3, 3)), 3)
    with pytest.raises(ValueError, match="Improper number of dimensions to norm."):
        ember.linalg.norm(ember.ones((3, 3, 3)), 1)
    with pytest.raises(ValueError, match="Duplicate axes given."):
        ember.linalg.norm(ember.ones((3, 3)), axis=(0, -2))
    with pytest.raises(TypeError, match="array type float16 is unsupported in linalg"):
        ember.linalg.norm(ember.ones((3, 3), dtype=np.float16), 2)
    with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):
        ember.linalg.norm(ember.asarray(np.array([[np.nan, 1.0], [1.0, 1.0]])), "nuc")
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        ember.linalg.norm(ember.zeros((0, 3)), -2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_singular_values_of_a_larger_matrix_are_within_a_few_ulps(rng, dtype):
    """Hundreds of rotations per column must not drift: 200x150 against float64 LAPACK."""
    x = rng.standard_normal((200, 150)).astype(dtype)
    sigma = np.linalg.svd(x.astype(np.float64), compute_uv=False)
    eps = np.finfo(dtype).eps
    d = ember.asarray(x)
    for ord_, want in ((2, sigma[0]), (-2, sigma[-1]), ("nuc", sigma.sum())):
        got = float(ember.linalg.norm(d, ord_).get())
        assert abs(got / want - 1) < 8 * eps, (ord_, got, want)


def test_singular_value_norms_of_many_small_matrices(rng):
    """More matrices than a CUDA grid's second axis holds (65,535)."""
    x = rng.standard_normal((70_000, 2, 3))
    check(ember.linalg.norm(ember.asarray(x), 2, axis=(1, 2)), np.linalg.norm(x, 2, axis=(1, 2)), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int32])
def test_singular_value_norms_match_numpy(rng, dtype):
    """ord=2, -2 and 'nuc' from singular values computed on the device (one-sided Jacobi):
    tall, wide, square and stacked matrices, complex ones in their real form."""
    rtol = 2e-6 if dtype == np.float32 else 1e-12
    for shape, axis in [((7, 4), None), ((3, 6), None), ((5, 5), (1, 0)), ((2, 6, 3), (2, 0)), ((9, 1), None)]:
        x = randn(rng, shape, dtype) if dtype != np.int32 else rng.integers(-9, 9, shape).astype(dtype)
        for ord_ in (2, -2, "nuc"):
            for keepdims in (False, True):
                got = ember.linalg.norm(ember.asarray(x), ord_, axis=axis, keepdims=keepdims)
                check(got, np.linalg.norm(x, ord_, axis=axis, keepdims=keepdims), rtol=rtol)


def test_singular_values_of_an_ill_conditioned_matrix_are_accurate(rng):
    """Singular values from 1 down to 1e-12, against the ones the matrix was built from:
    one-sided Jacobi loses no more than NumPy's LAPACK (absolute error about eps * sigma_max)."""
    u, _ = np.linalg.qr(rng.standard_normal((30, 30)))
    v, _ = np.linalg.qr(rng.standard_normal((20, 20)))
    sigma = np.logspace(0, -12, 20)
    a = u[:, :20] @ np.diag(sigma) @ v.T
    d = ember.asarray(a)
    assert abs(ember.linalg.norm(d, 2).get() - 1.0) < 1e-14
    assert abs(ember.linalg.norm(d, -2).get() - 1e-12) < 1e-15
    assert abs(ember.linalg.norm(d, "nuc").get() - sigma.sum()) < 1e-14
    # Rank one: the smallest singular value is zero up to rounding.
    r = np.outer(rng.standard_normal(6), rng.standard_normal(4))
    assert ember.linalg.norm(ember.asarray(r), -2).get() < 1e-14 * np.linalg.norm(r, 2)
    # Entries of very different sizes: columns whose squares underflow still converge, and
    # tiny singular values come out exactly as NumPy's.
    wide = [np.array([[1e-23, 1e-20], [0, 1]], np.float32), np.array([[1e-170, 1e-140], [0, 1]]),
            np.diag([1.0, 1e-200]), np.array([[1e-25, 1e-12], [1e-25, 1]], np.float32)]
    for x in wide:
        for ord_ in (2, -2):
            check(ember.linalg.norm(ember.asarray(x), ord_), np.linalg.norm(x, ord_), rtol=1e-6)
    # Zeros, and an infinite entry (NumPy answers NaN).
    assert ember.linalg.norm(ember.zeros((3, 2)), 2).get() == 0.0
    assert np.isnan(ember.linalg.norm(ember.asarray(np.array([[np.inf, 1.0], [1.0, 1.0]])), "nuc").get())


# --- cuBLAS on the GPU ------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64], ids=str)
def test_cublas_products_match_numpy(rng, dtype):
    assert ember._ember.matmul_engine(0, np.dtype(dtype).name) == "cublas"
    tol = {"rtol": 1e-4, "atol": 1e-3} if np.dtype(dtype).itemsize <= 8 and dtype != np.float64 else F64
    a, b = randn(rng, (130, 257), dtype), randn(rng, (257, 67), dtype)
    ea, eb = ember.asarray(a), ember.asarray(b)
    wide = lambda x: x.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64)  # noqa: E731
    check(ea @ eb, (wide(a) @ wide(b)).astype(dtype), **tol)
    check(eb.T @ ea.T, (wide(b).T @ wide(a).T).astype(dtype), **tol)  # transposed: read in place
    check(ea[::2] @ eb[:, ::-1], (wide(a)[::2] @ wide(b)[:, ::-1]).astype(dtype), **tol)  # copied
    s, t = randn(rng, (4, 1, 33, 20), dtype), randn(rng, (3, 20, 17), dtype)
    check(ember.asarray(s) @ ember.asarray(t), (wide(s) @ wide(t)).astype(dtype), **tol)  # batched
    check(ember.asarray(s) @ ember.asarray(t[0]), (wide(s) @ wide(t[0])).astype(dtype), **tol)  # folded
    v = randn(rng, 257, dtype)
    check(ea @ ember.asarray(v), (wide(a) @ wide(v)).astype(dtype), **tol)
    check(ember.asarray(v) @ eb, (wide(v) @ wide(b)).astype(dtype), **tol)


@pytest.mark.gpu
def test_cublas_float32_is_not_tf32(rng):
    # TF32 keeps 10 mantissa bits: its error on a 512-long sum would be far above float32's.
    a, b = randn(rng, (256, 512), np.float32), randn(rng, (512, 256), np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    err = np.abs((ember.asarray(a) @ ember.asarray(b)).get() - want).max()
    assert err < 1e-3, err


@pytest.mark.gpu
def test_cublas_runs_on_the_current_stream(rng):
    a, b = randn(rng, (300, 200), np.float64), randn(rng, (200, 100), np.float64)
    with ember.cuda.Stream() as s:
        c = ember.asarray(a) @ ember.asarray(b)
        s.synchronize()
    check(c, a @ b)


def test_dot_takes_only_numpys_acceptable_out_and_returns_c_order():
    a, b = ember.ones((2, 3)), ember.ones((3, 4))
    for bad in (ember.empty((2, 4), dtype=np.float32), ember.empty((4, 2)).T, ember.empty((2, 5))):
        with pytest.raises(ValueError, match="output array is not acceptable"):
            ember.dot(a, b, out=bad)
    with pytest.raises(ValueError, match="output array is not acceptable"):
        ember.dot(ember.asarray(2.0), b, out=ember.empty((3, 4), dtype=np.float32))
    for shape_a, shape_b in (((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2))):
        want = np.dot(np.ones(shape_a), np.ones(shape_b))
        out = ember.empty(want.shape)
        assert ember.dot(ember.ones(shape_a), ember.ones(shape_b), out=out) is out
        np.testing.assert_array_equal(out.get(), want)
        with pytest.raises(ValueError, match="output array is not acceptable"):
            ember.dot(ember.ones(shape_a), ember.ones(shape_b), out=ember.empty(want.shape, dtype=np.float32))
    stacked = ember.dot(ember.ones((2, 3)), ember.arange(24.0).reshape(4, 3, 2))
    assert stacked.flags.c_contiguous
    np.testing.assert_array_equal(stacked.get(), np.dot(np.ones((2, 3)), np.arange(24.0).reshape(4, 3, 2)))
