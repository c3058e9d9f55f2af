"""The tiled product's GPU tiles and the in-place trailing updates of LU and Cholesky, checked
on whatever device runs the tests (PoCL's CPU device in CI) by taking the GPU shapes there:
``EMBER_MATMUL_TILE=gpu`` (the 128 x 128 tiles of 256 threads, register prefetch, the narrow
panel tiles) and ``EMBER_LAPACK_GPU_SHAPES`` (blocks of 128, leaves of 16), each read once per
process, hence a fresh interpreter per setting.

Tolerances: products against NumPy to ``k * eps`` of the dtype relative to the operands'
scale (float16: its own eps); factorizations by their reconstruction, to ``30 * n * eps``.
"""

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import sys

    import numpy as np
    import ember as em
    from ember import _ember
    from ember._ndarray import _wrap

    _ember.lapack_use_portable(True)
    rng = np.random.default_rng(20261127)

    def random(shape, dtype):
        x = rng.standard_normal(shape)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        return x.astype(dtype)

    # Shapes that take each tile: square, few columns, few rows, partial tiles, a batch, and
    # transposed operands (the staging walks their contiguous axis).
    for dtype in (np.float32, np.float64, np.complex64, np.complex128, np.float16, np.int32):
        eps = np.finfo(dtype).eps if np.dtype(dtype).kind in "fc" else 0
        for shape_a, shape_b, transpose in [
            ((130, 70), (70, 150), False),
            ((300, 20), (20, 24), False),
            ((24, 33), (33, 300), True),
            ((3, 129, 17), (3, 17, 131), True),
            ((200, 5), (5, 7), False),
        ]:
            if dtype == np.int32:
                a = rng.integers(-9, 9, shape_a).astype(dtype)
                b = rng.integers(-9, 9, shape_b).astype(dtype)
            else:
                a, b = random(shape_a, dtype), random(shape_b, dtype)
            da, db = em.asarray(a), em.asarray(b)
            if transpose:
                da = em.asarray(np.ascontiguousarray(np.swapaxes(a, -1, -2))).swapaxes(-1, -2)
            got = (da @ db).get()
            want = a.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64) @ b
            k = shape_a[-1]
            err = np.abs(got - want).max() / max(1.0, np.abs(want).max())
            assert err <= 8 * k * eps, (dtype, shape_a, shape_b, err)

    def reconstruct_lu(lu, piv):
        n = lu.shape[0]
        a = (np.tril(lu, -1) + np.eye(n, dtype=lu.dtype)) @ np.triu(lu)
        for k in reversed(range(n)):
            a[[k, piv[k]]] = a[[piv[k], k]]
        return a

    factor_dtypes = (np.float32, np.float64, np.complex64, np.complex128)
    for dtype in factor_dtypes if sys.argv[1] == "all" else ():
        eps = np.finfo(dtype).eps
        n = 260
        a = random((2, n, n), dtype)
        x = em.asarray(np.ascontiguousarray(np.swapaxes(a, -1, -2)))
        piv, info = _ember.lapack_getrf(x._a)
        lu, piv, info = np.swapaxes(x.get(), -1, -2), _wrap(piv).get() - 1, _wrap(info).get()
        assert (info == 0).all(), info
        for i in range(2):
            err = np.abs(reconstruct_lu(lu[i], piv[i]) - a[i]).max() / np.abs(a[i]).max()
            assert err <= 30 * n * eps, ("getrf", dtype, err)
        h = a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n, dtype=dtype)
        for lower in (True, False):
            x = em.asarray(np.ascontiguousarray(np.swapaxes(h, -1, -2)))
            info = _wrap(_ember.lapack_potrf(x._a, lower)).get()
            assert (info == 0).all(), info
            f = np.swapaxes(x.get(), -1, -2)
            for i in range(2):
                if lower:
                    t = np.tril(f[i])
                    rec = t @ np.conj(t.T)
                    other = np.triu(f[i], 1) == np.triu(h[i], 1)
                else:
                    t = np.triu(f[i])
                    rec = np.conj(t.T) @ t
                    other = np.tril(f[i], -1) == np.tril(h[i], -1)
                err = np.abs(rec - h[i]).max() / np.abs(h[i]).max()
                assert err <= 30 * n * eps, ("potrf", dtype, lower, err)
                assert other.all(), ("potrf changed the other triangle", dtype, lower)
    print("ok")
    """
)


def run(env_extra, what):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-c", SCRIPT, what], env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.parametrize(
    ("tile", "what"),
    [("gpu", "all"), ("8,16,2,4,8", "products")],
    ids=["gpu-tiles", "explicit-tile"],
)
def test_products_and_factorizations_on_gpu_tiles(tile, what):
    r = run({"EMBER_MATMUL_TILE": tile, "EMBER_LAPACK_GPU_SHAPES": "1"}, what)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


def test_a_bad_tile_setting_is_a_clear_error():
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            # int32: the tiled kernel on every device (cuBLAS takes no integers).
            "import ember as em; em.ones((4, 4), dtype='int32') @ em.ones((4, 4), dtype='int32')",
        ],
        env=dict(os.environ, EMBER_MATMUL_TILE="16,16,8"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode != 0
    assert "EMBER_MATMUL_TILE" in r.stderr and "is not a tile" in r.stderr, r.stderr
