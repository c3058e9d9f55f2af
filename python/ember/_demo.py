"""``ember demo``: what ember does on this machine, checked against NumPy."""

from __future__ import annotations

import time

import numpy as np


def _step(title, fn):
    t0 = time.perf_counter()
    try:
        detail = fn()
        ok = True
    except Exception as e:  # the demo reports every failure and carries on
        detail, ok = f"{type(e).__name__}: {e}", False
    ms = (time.perf_counter() - t0) * 1e3
    print(f"  [{'ok' if ok else 'FAIL'}] {title} ({ms:.1f} ms)\n        {detail}")
    return ok


def run() -> int:
    """Runs the demo; returns the number of failed checks."""
    import ember as em

    print(f"ember {em.__version__} demo")
    failures = 0
    try:
        dev = em.Device(0)
        info = dev.attributes
        print(f"  device: {info['name']} [{info['arch']}] on the {em.backend()} backend")
    except em.EmberError as e:
        print(f"  no device: {e}")
        return 1
    rng = np.random.default_rng(7)

    def round_trip():
        host = rng.standard_normal((1000, 1000)).astype(np.float32)
        d = em.asarray(host)
        back = d.get()
        assert np.array_equal(back, host), "data changed on the way"
        return f"1000x1000 float32 to the device and back, identical (checksum {back.sum():.4f})"

    def generated_kernels():
        a = em.arange(0, 12, dtype=em.float64).astype(em.float16)
        ref = np.arange(0, 12, dtype=np.float64).astype(np.float16)
        assert np.array_equal(a.get(), ref)
        lin = em.linspace(-1, 1, 5)
        assert np.allclose(lin.get(), np.linspace(-1, 1, 5))
        host = rng.integers(-100, 100, (3, 4)).astype(np.int32)
        t = em.asarray(host).T.astype(em.complex64)
        assert np.array_equal(t.get(), host.T.astype(np.complex64)), "strided cast differs from NumPy"
        return f"arange->float16 {a.get()[:4]}..., linspace {lin.get()}, strided int32->complex64 cast of a transpose"

    def pool():
        p = em.get_default_memory_pool()
        x = em.zeros((256, 256), em.float32)
        held = p.used_bytes()
        del x
        y = em.ones((256, 256), em.float32)
        assert float(y.get().sum()) == 256 * 256
        return f"{held} bytes in use for one array; freed block reused (pool holds {p.total_bytes()} bytes)"

    failures += not _step("round trip of data", round_trip)
    failures += not _step("generated kernels (arange, linspace, casts of strided views)", generated_kernels)
    failures += not _step("caching memory pool", pool)
    print(f"{'all checks passed' if not failures else f'{failures} check(s) failed'}")
    return failures
