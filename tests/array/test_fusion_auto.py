"""Automatic fusion of eager elementwise code: large ufunc results wait, a chain of them runs
as one kernel, and nothing a user can observe changes (values, errors, ordering with writes).

The module turns fusion on for every size and from the first sighting, so small arrays take
the fused path; each test checks against NumPy and, where fusion may change how a result is
computed, against the same code with fusion off.
"""

import ember
import numpy as np
import pytest
from ember import _ember


def expression(a, b):
    return (a * 10 + 2) * ((b + 2) * 10 - 5) * 5


def stats():
    recorded, fused, alone, skipped = _ember.fusion_stats()
    return {"recorded": recorded, "fused": fused, "alone": alone, "skipped": skipped}


def delta(before, after):
    return {k: after[k] - before[k] for k in before}


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(7)
    an = rng.standard_normal(3000).astype(np.float32)
    bn = rng.standard_normal(3000).astype(np.float32)
    return an, bn


def test_a_chain_runs_as_one_kernel_and_matches_eager_bit_for_bit(fusion, inputs):
    an, bn = inputs
    a, b = ember.asarray(an), ember.asarray(bn)
    s0 = stats()
    got = expression(a, b).get()
    d = delta(s0, stats())
    # Seven ufuncs asked for; the final result fused, the six intermediates never computed.
    assert d == {"recorded": 7, "fused": 1, "alone": 0, "skipped": 6}, d
    _ember.set_fusion(False, 1, 1)
    eager = expression(a, b).get()
    np.testing.assert_array_equal(got, eager)
    np.testing.assert_allclose(got, expression(an, bn), rtol=1e-6)


def test_an_expression_fuses_from_its_nth_sighting():
    before = _ember.set_fusion(True, 1, 3)
    try:
        rng = np.random.default_rng(8)
        xn = rng.random(777).astype(np.float64)
        x = ember.asarray(xn)
        plans = []
        for _ in range(4):
            s0 = stats()
            r = (x * 3.0 - 1.5) / 7.0
            got = r.get()
            d = delta(s0, stats())
            plans.append((d["fused"], d["alone"]))
            np.testing.assert_allclose(got, (xn * 3.0 - 1.5) / 7.0, rtol=1e-15)
        # Twice ufunc by ufunc (three kernels already compiled), then one fused kernel.
        assert plans == [(0, 3), (0, 3), (1, 0), (1, 0)], plans
    finally:
        _ember.set_fusion(*before)


def test_an_intermediate_the_user_keeps_is_computed_too(fusion, inputs):
    an, _ = inputs
    a = ember.asarray(an)
    t = a * 2
    u = t + 1
    v = t * t
    np.testing.assert_array_equal(u.get(), an * 2 + 1)
    np.testing.assert_array_equal(t.get(), an * 2)
    np.testing.assert_array_equal(v.get(), (an * 2) * (an * 2))


def test_writes_after_the_request_do_not_leak_into_the_result(fusion, inputs):
    an, bn = inputs
    a, b = ember.asarray(an), ember.asarray(bn)
    x = a + b
    y = x * 2
    a[0] = 1000.0          # setitem
    b += 1                 # an in-place ufunc
    a[a > 0] = -1.0        # a mask assignment
    np.testing.assert_array_equal(y.get(), (an + bn) * 2)
    np.testing.assert_array_equal(x.get(), an + bn)


def test_in_place_operator_on_a_pending_result(fusion, inputs):
    an, _ = inputs
    a = ember.asarray(an)
    r = a * 3
    r += 1
    r *= r
    np.testing.assert_array_equal(r.get(), (an * 3 + 1) * (an * 3 + 1))


def test_views_and_reductions_of_pending_results(fusion, inputs):
    an, bn = inputs
    a, b = ember.asarray(an[:2400].reshape(40, 60)), ember.asarray(bn[:60])
    r = (a - b) * 0.5
    view = r[::-3, 5:]
    np.testing.assert_array_equal(view.get(), ((an[:2400].reshape(40, 60) - bn[:60]) * 0.5)[::-3, 5:])
    total = ((a + 1) * (a - 1)).sum(axis=1)
    np.testing.assert_allclose(total.get(), ((an[:2400].reshape(40, 60) + 1) *
                                             (an[:2400].reshape(40, 60) - 1)).sum(axis=1), rtol=1e-5)
    # A view of a pending result feeding another ufunc.
    w = (a * 2)[1:, ::2] + 1
    np.testing.assert_array_equal(w.get(), (an[:2400].reshape(40, 60) * 2)[1:, ::2] + 1)


def test_promotion_and_weak_scalars_follow_numpy(fusion):
    rng = np.random.default_rng(9)
    i8 = rng.integers(-100, 100, 500, dtype=np.int8)
    i32 = rng.integers(-10**6, 10**6, 500, dtype=np.int32)
    f32 = rng.standard_normal(500).astype(np.float32)
    x8, x32, xf = ember.asarray(i8), ember.asarray(i32), ember.asarray(f32)
    cases = [
        (lambda m, p, q: (p * 3 + 100) // 7, "int8 wraps, weak ints"),
        (lambda m, p, q: (q + p) * 2.5 - q, "int32 + float32 -> float64"),
        (lambda m, p, q: m.float32(2) * q + (p > 0), "a strong NumPy scalar and a bool array"),
        (lambda m, p, q: m.where(q > 0, q * 2, p), "where over fused operands"),
        (lambda m, p, q: m.sqrt(m.abs(q)) + m.exp(q * 0.1), "math functions"),
    ]
    for body, what in cases:
        want = body(np, i8 if "int8" in what else i32, f32)
        got = body(ember, x8 if "int8" in what else x32, xf)
        assert got.dtype == want.dtype, what
        np.testing.assert_allclose(got.get(), want, rtol=2e-6, err_msg=what)


def test_errors_are_raised_when_asked_not_when_computed(fusion, inputs):
    an, bn = inputs
    a8 = ember.asarray(np.arange(-50, 50, dtype=np.int8))
    with pytest.raises(OverflowError, match="300 out of bounds for int8"):
        (a8 + 1) + 300
    with pytest.raises(ValueError, match="could not be broadcast|broadcast"):
        (ember.asarray(an) + 1) * ember.asarray(bn[:7])


def test_a_long_loop_is_cut_into_bounded_expressions(fusion):
    rng = np.random.default_rng(10)
    xn = rng.random(1000)
    yn = rng.random(1000)
    x, y = ember.asarray(xn), ember.asarray(yn)
    for _ in range(100):
        x = x * 0.5 + y
        xn = xn * 0.5 + yn
    np.testing.assert_allclose(x.get(), xn, rtol=1e-14)


def test_memory_handed_out_is_read_at_once(fusion):
    """Once another library can reach the memory (``data.ptr``, DLPack, the CUDA array
    interface), work reading it is not delayed: it may be written behind ember's back."""
    a = ember.asarray(np.arange(2000, dtype=np.float32))
    b = ember.asarray(np.arange(2000, dtype=np.float32))
    s0 = stats()
    y = b * 2
    assert delta(s0, stats())["recorded"] == 1
    assert a.data.ptr != 0
    s0 = stats()
    z = a * 2
    assert delta(s0, stats())["recorded"] == 0
    np.testing.assert_array_equal(y.get(), z.get())


@pytest.mark.gpu
def test_a_write_by_another_library_on_the_same_stream_comes_after(fusion):
    cupy = pytest.importorskip("cupy")
    a = ember.asarray(np.arange(2000, dtype=np.float32))
    other = cupy.asarray(a)  # the CUDA array interface: the memory is shared from here on
    other[0] = 99.0
    y = a * 2
    other[0] = -5.0  # a CuPy kernel on the same (null) stream, after ember's
    cupy.cuda.Device().synchronize()
    assert y.get()[0] == 198.0
    assert a.get()[0] == -5.0


def test_work_asked_for_on_a_stream_runs_on_it(fusion, inputs):
    an, bn = inputs
    a, b = ember.asarray(an), ember.asarray(bn)
    s = ember.cuda.Stream()
    with s:
        r = expression(a, b)
    s.synchronize()
    np.testing.assert_array_equal(r.get(), expression(ember.asarray(an), ember.asarray(bn)).get())


def test_synchronize_runs_pending_work(fusion, inputs):
    an, _ = inputs
    a = ember.asarray(an)
    s0 = stats()
    r = a + 1
    ember.synchronize()
    assert delta(s0, stats())["alone"] + delta(s0, stats())["fused"] == 1
    np.testing.assert_array_equal(r.get(), an + 1)


def test_fusion_off_launches_at_once(no_fusion, inputs):
    an, _ = inputs
    s0 = stats()
    r = ember.asarray(an) * 2 + 1
    assert delta(s0, stats())["recorded"] == 0
    np.testing.assert_array_equal(r.get(), an * 2 + 1)


def test_small_results_are_not_delayed_by_default():
    before = _ember.set_fusion(True, 1 << 16, 2)
    try:
        s0 = stats()
        r = ember.arange(100, dtype=ember.float32) * 2
        assert delta(s0, stats())["recorded"] == 0
        np.testing.assert_array_equal(r.get(), np.arange(100, dtype=np.float32) * 2)
    finally:
        _ember.set_fusion(*before)


OPS = {
    "add": lambda m, x, y: x + y, "subtract": lambda m, x, y: x - y, "multiply": lambda m, x, y: x * y,
    "maximum": lambda m, x, y: m.maximum(x, y), "where": lambda m, x, y: m.where(x > y, x, y * 2),
    "sqrt": lambda m, x, y: m.sqrt(m.abs(x) + y * y), "negative": lambda m, x, y: -x, "abs": lambda m, x, y: abs(y),
    "scalar": lambda m, x, y: x * 0.5 + 3,
}


def test_random_expressions_fuse_to_eagers_bits_and_numpys_values():
    """Expression trees over float32/float64/int32 arrays (broadcasting, a strided view):
    computed fused, eagerly, and by NumPy."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    rng = np.random.default_rng(11)
    hosts = [rng.standard_normal((6, 50)).astype(np.float32), rng.standard_normal(50),
             rng.integers(-9, 9, (6, 1)).astype(np.int32), rng.standard_normal((6, 100))[:, ::2]]
    devices = [ember.asarray(hosts[0]), ember.asarray(hosts[1]), ember.asarray(hosts[2]),
               ember.asarray(rng.standard_normal((6, 100)))[:, ::2]]
    devices[3][...] = ember.asarray(hosts[3])
    trees = st.recursive(st.integers(0, 3), lambda kids: st.tuples(st.sampled_from(sorted(OPS)), kids, kids),
                         max_leaves=6)

    def evaluate(tree, m, leaves):
        if isinstance(tree, int):
            return leaves[tree]
        op, x, y = tree
        return OPS[op](m, evaluate(x, m, leaves), evaluate(y, m, leaves))

    @settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(trees)
    def check(tree):
        before = _ember.set_fusion(True, 1, 1)
        try:
            fused = evaluate(tree, ember, devices)
            fused = fused.get() if isinstance(fused, ember.ndarray) else fused
            _ember.set_fusion(False, 1, 1)
            eager = evaluate(tree, ember, devices)
            eager = eager.get() if isinstance(eager, ember.ndarray) else eager
        finally:
            _ember.set_fusion(*before)
        with np.errstate(all="ignore"):
            want = evaluate(tree, np, hosts)
        assert fused.dtype == want.dtype and fused.shape == want.shape
        np.testing.assert_array_equal(fused, eager)
        np.testing.assert_allclose(fused, want, rtol=2e-6 if want.dtype == np.float32 else 1e-12, atol=1e-6)

    check()


def test_float16_steps_round_as_eager_stores_do(fusion):
    rng = np.random.default_rng(12)
    h = (rng.standard_normal(700) * 10).astype(np.float16)
    g = rng.standard_normal(700).astype(np.float16)
    a, b = ember.asarray(h), ember.asarray(g)
    s0 = stats()
    fused = ((a * b) * (a - b) + a * a).get()
    assert delta(s0, stats())["fused"] == 1
    _ember.set_fusion(False, 1, 1)
    eager = ((a * b) * (a - b) + a * a).get()
    np.testing.assert_array_equal(fused, eager)
    np.testing.assert_array_equal(fused, (h * g) * (h - g) + h * h)


def test_work_left_on_a_stream_runs_before_the_stream_is_destroyed(fusion):
    import gc
    import threading

    x = ember.asarray(np.arange(1 << 12, dtype=np.float32))
    results = []

    def worker():
        s = ember.cuda.Stream()
        s.use()
        results.append(x * 2)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    gc.collect()
    np.testing.assert_array_equal(results[0].get(), np.arange(1 << 12, dtype=np.float32) * 2)


def test_a_ufunc_of_python_scalars_alone_is_a_strong_operand(fusion):
    x = ember.asarray(np.full(300, 127, np.int8))
    m = ember.multiply(2, 3)  # a 0-d int64 array: int8 + it is int64, as in NumPy
    got = ((x + m) > 0).get()
    np.testing.assert_array_equal(got, (np.full(300, 127, np.int8) + np.multiply(2, 3)) > 0)


def test_copies_and_assignment_do_not_turn_fusion_off(fusion):
    a = ember.asarray(np.arange(1000, dtype=np.float64))
    b = ember.zeros(1000)
    b[...] = a
    c = a.copy()
    s0 = stats()
    r = (a * 2 + b) - c
    assert delta(s0, stats())["recorded"] == 3
    np.testing.assert_array_equal(r.get(), np.arange(1000.0) * 2)


@pytest.mark.gpu
def test_handing_memory_out_runs_the_work_that_reads_it_first(fusion):
    cupy = pytest.importorskip("cupy")
    a = ember.asarray(np.arange(2000, dtype=np.float32))
    y = a * 2                 # waits
    other = cupy.asarray(a)   # the CUDA array interface hands the memory out: y runs first
    other[0] = -5.0
    cupy.cuda.Device().synchronize()
    assert y.get()[0] == 0.0
    assert a.get()[0] == -5.0
