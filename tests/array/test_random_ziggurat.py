"""ember's standard exponential by the ziggurat (crates/ember-codegen/src/sampler/ziggurat.rs):
the float64 fill kernel (``exponential`` with a scalar scale, 1024 layers) and the samplers'
``ember_std_exponential`` (an array scale and the laws built on it, 256 layers as NumPy), each
against NumPy's generator and against the exact law where the ziggurat's rare branches work:
the tail beyond the base layer's edge ``r`` and the wedges next to each layer's edge.

Fixed seeds, so every check is deterministic; a p-value below ``P_MIN`` is a wrong law.
"""

import ember
import numpy as np
import pytest
from conftest import opencl_arrays
from scipy import stats

P_MIN = 1e-4
BIG = 1 << 24
SEED = 20261127


def ziggurat_edges(layers):
    """Marsaglia and Tsang's edges x_1 < ... < x_{n-1} = r for the exponential, r by bisection
    on the layers' recurrence (written here again, as the tests' own reference)."""

    def overshoot(r):
        v = (r + 1.0) * np.exp(-r)
        x = r
        for _ in range(layers - 2):
            y = v / x + np.exp(-x)
            if y >= 1.0:
                return 1.0
            x = -np.log(y)
        return v / x + np.exp(-x) - 1.0

    lo, hi = 0.5, 50.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if overshoot(mid) > 0 else (lo, mid)
    r = 0.5 * (lo + hi)
    v = (r + 1.0) * np.exp(-r)
    x = [r]
    for _ in range(layers - 2):
        x.append(-np.log(v / x[-1] + np.exp(-x[-1])))
    return np.array(x[::-1])


def fill(n, seed=SEED):
    return ember.random.default_rng(seed).exponential(size=n).get()


def sampler(n, seed=SEED):
    # An array scale takes the sampler kernel: scale * ember_std_exponential.
    return ember.random.default_rng(seed).exponential(ember.ones(n)).get()


PATHS = [pytest.param(fill, 1024, id="fill"), pytest.param(sampler, 256, id="sampler")]


def test_the_reference_edges_are_the_papers():
    # Marsaglia and Tsang's r for 256 layers.
    assert ziggurat_edges(256)[-1] == pytest.approx(7.69711747013104972, rel=1e-13)


@pytest.mark.parametrize("draw, layers", PATHS)
def test_two_sample_ks_against_numpy(draw, layers):
    x = draw(1 << 21)
    assert x.dtype == np.float64 and np.all(np.isfinite(x)) and x.min() >= 0.0
    ref = np.random.default_rng(SEED).standard_exponential(1 << 21)
    assert stats.ks_2samp(x, ref).pvalue > P_MIN
    assert stats.kstest(x, "expon").pvalue > P_MIN


@pytest.mark.parametrize("draw, layers", PATHS)
def test_the_tail_beyond_the_base_layer(draw, layers):
    x = draw(BIG)
    r = ziggurat_edges(layers)[-1]
    for edge in (8.0, r, r + 1.0):
        # A binomial count: within five standard deviations of n exp(-edge).
        p = np.exp(-edge)
        count = np.count_nonzero(x > edge)
        assert abs(count - BIG * p) < 5 * np.sqrt(BIG * p * (1 - p)), (edge, count, BIG * p)
    # Beyond r the law forgets r: what is left is exponential again.
    tail = x[x > r] - r
    assert stats.kstest(tail, "expon").pvalue > P_MIN
    assert x.max() > r + 3.0


@pytest.mark.parametrize("draw, layers, chunks", [pytest.param(fill, 1024, 8, id="fill"),
                                                   pytest.param(sampler, 256, 2, id="sampler")])
def test_the_wedges_next_to_each_layer_edge(draw, layers, chunks):
    edges = ziggurat_edges(layers)
    # Eight bins across each wedge [x_{i-1}, x_i] of the layers up to x = 3 (the wedges are
    # widest there), against the exact law; then the same bins summed over the layers, where
    # a wrong wedge test shows more plainly. The wedges hold 1.1% of the law with 256 layers
    # and 0.3% with 1024, hence the larger sample there.
    wedges = edges[edges < 3.0]
    pairs = zip(wedges[:-1], wedges[1:], strict=True)
    bounds = np.concatenate([np.linspace(a, b, 9)[:-1] for a, b in pairs] + [wedges[-1:]])
    counts = sum(np.histogram(draw(BIG, seed=SEED + 1 + k), bounds)[0] for k in range(chunks))
    expected = chunks * BIG * -np.diff(np.exp(-bounds))
    assert expected.min() > 20
    total = chunks * BIG
    with_rest = np.append(counts, total - counts.sum()), np.append(expected, total - expected.sum())
    assert stats.chisquare(*with_rest).pvalue > P_MIN
    folded, folded_expected = counts.reshape(-1, 8).sum(0), expected.reshape(-1, 8).sum(0)
    assert stats.chisquare(folded, folded_expected * folded.sum() / folded_expected.sum()).pvalue > P_MIN


@pytest.mark.parametrize("name, args", [("weibull", (1.7,)), ("rayleigh", (1.5,)), ("pareto", (2.5,)),
                                        ("power", (3.0,)), ("standard_gamma", (0.3,)), ("standard_gamma", (1.0,)),
                                        ("geometric", (0.05,)), ("gumbel", (0.5, 2.0))])
def test_laws_built_on_the_exponential_match_numpy(name, args):
    n = 1 << 18
    x = getattr(ember.random.default_rng(SEED), name)(*args, size=n).get()
    ref = getattr(np.random.default_rng(SEED), name)(*args, size=n)
    if x.dtype.kind == "f":
        assert stats.ks_2samp(x, ref).pvalue > P_MIN
    else:
        # geometric(0.05): counts of each value up to 100, the rest pooled.
        top = 100
        ours = np.bincount(np.minimum(x, top), minlength=top + 1)[1:]
        theirs = np.bincount(np.minimum(ref, top), minlength=top + 1)[1:]
        assert stats.chi2_contingency(np.array([ours, theirs])).pvalue > P_MIN


def test_the_same_seed_gives_the_same_numbers_and_float32_keeps_its_law():
    a = ember.random.default_rng(5).exponential(2.0, size=1000).get()
    b = ember.random.default_rng(5).exponential(2.0, size=1000).get()
    np.testing.assert_array_equal(a, b)
    # Scale multiplies the standard values exactly.
    np.testing.assert_array_equal(a, 2.0 * ember.random.default_rng(5).exponential(size=1000).get())
    x32 = ember.random.default_rng(SEED).exponential(size=1 << 20, dtype=np.float32).get()
    assert x32.dtype == np.float32 and stats.kstest(x32, "expon").pvalue > P_MIN


@pytest.mark.gpu
def test_cuda_and_opencl_draw_the_same_exponentials(tmp_path):
    # The fast path is a multiply (bit for bit the same); a value whose wedge test falls within
    # the last bits of each backend's exp may differ.
    n = 1 << 20
    other = opencl_arrays(
        tmp_path,
        "g = ember.random.default_rng(11)",
        {"a": f"g.exponential(size={n})", "b": f"g.exponential(ember.ones({n}))"},
    )
    g = ember.random.default_rng(11)
    for ours, theirs in [(g.exponential(size=n).get(), other["a"]), (g.exponential(ember.ones(n)).get(), other["b"])]:
        assert np.isclose(ours, theirs, rtol=1e-12, atol=0).mean() > 0.9999
