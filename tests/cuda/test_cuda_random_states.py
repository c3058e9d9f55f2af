"""ember.cuda.random on the host: xoroshiro128+ states bit for bit as Numba makes them, the
arguments Numba takes, and the device-only drawing functions.

Reference states from Numba 0.68.1 (numba.cuda.random.init_xoroshiro128p_states_cpu, the CPU
function behind create_xoroshiro128p_states), as (s0, s1) rows.
"""

import ember
import numpy as np
import pytest
from ember._intrinsic import DeviceOnly
from ember.cuda import random as cr

NUMBA_SEED_0 = [
    (0xE220A8397B1DCDAF, 0xE220A8397B1DCDAF),
    (0x12513CE25BE05EB1, 0x70D189C276BA17A4),
    (0x65853D86B6EBE9B4, 0x062A041B9ACDA8DA),
    (0xE8F985721A10A3EE, 0x412BE3DD3C914961),
]
NUMBA_SEED_42 = [
    (0xBDD732262FEB6E95, 0xBDD732262FEB6E95),
    (0x045A2C270718BC3B, 0x05B3939A23E533B4),
    (0xA67324E5ECCCB8DC, 0x4A81BBD6C315729E),
]
NUMBA_SEED_12345_SUB_3 = [
    (0x81677962ECC05FC7, 0x6AD0E4DAB75AD20B),
    (0xBEFA25F3118B9BBF, 0x6C72B22D7DB22783),
    (0x31BD3AD7BB6686A0, 0x986B232C0E34383E),
]
NUMBA_SEED_MINUS_1 = [
    (0xE4D971771B652C20, 0xE4D971771B652C20),
    (0xF06E5493D9197688, 0x5D1905E55C940204),
]
NUMBA_SEED_MINUS_2_63_SUB_2 = [
    (0xF0465173DE351791, 0x4DB6F97CCE03ED0F),
    (0xD0617CF19F4C9E0B, 0x2BAF8602CAA09934),
]
NUMBA_SEED_7_SUB_1000 = [(0x149793CB69E48912, 0xCAD0AA2675766532)]


def rows(states) -> list:
    return [tuple(int(w) for w in row) for row in states.get()]


def test_states_are_an_n_by_2_uint64_array_on_the_device():
    s = cr.create_xoroshiro128p_states(5, seed=1)
    assert isinstance(s, ember.ndarray)
    assert s.shape == (5, 2)
    assert s.dtype == np.uint64
    assert s.flags.c_contiguous
    assert cr.create_xoroshiro128p_states(0, seed=1).shape == (0, 2)


@pytest.mark.parametrize(
    "n, seed, start, want",
    [
        (4, 0, 0, NUMBA_SEED_0),
        (3, 42, 0, NUMBA_SEED_42),
        (3, 12345, 3, NUMBA_SEED_12345_SUB_3),
        (2, -1, 0, NUMBA_SEED_MINUS_1),
        (2, 2**64 - 1, 0, NUMBA_SEED_MINUS_1),
        (2, np.uint64(2**64 - 1), 0, NUMBA_SEED_MINUS_1),
        (2, np.int64(-(2**63)), 2, NUMBA_SEED_MINUS_2_63_SUB_2),
        (1, 7, 1000, NUMBA_SEED_7_SUB_1000),
    ],
)
def test_states_equal_numbas(n, seed, start, want):
    assert rows(cr.create_xoroshiro128p_states(n, seed, subsequence_start=start)) == want


def test_subsequence_start_shifts_along_the_states():
    many = cr.create_xoroshiro128p_states(200_000, seed=99).get()
    assert (many[:4] == cr.create_xoroshiro128p_states(4, 99).get()).all()
    later = cr.create_xoroshiro128p_states(3, 99, subsequence_start=199_997)
    assert (later.get() == many[-3:]).all()
    # A start near 2**64 takes a matrix power, not 2**64 jumps.
    last = cr.create_xoroshiro128p_states(2, 5, subsequence_start=2**64 - 2).get()
    assert last[1].tolist() == cr.create_xoroshiro128p_states(1, 5, subsequence_start=2**64 - 1).get()[0].tolist()


def test_init_fills_an_existing_array_and_streams_are_accepted():
    s = ember.zeros((3, 2), dtype=np.uint64)
    assert cr.init_xoroshiro128p_states(s, 12345, subsequence_start=3) is None
    assert rows(s) == NUMBA_SEED_12345_SUB_3
    stream = ember.cuda.Stream()
    t = cr.create_xoroshiro128p_states(4, 0, stream=stream)
    cr.init_xoroshiro128p_states(s, 42, stream=stream)
    stream.synchronize()
    assert rows(t) == NUMBA_SEED_0
    assert rows(s) == NUMBA_SEED_42


def test_native_states_are_a_fresh_numpy_array():
    host = ember._ember.xoroshiro128p_states(4, 0, 0)
    assert isinstance(host, np.ndarray)
    assert host.shape == (4, 2) and host.dtype == np.uint64
    assert host.flags.c_contiguous and host.flags.writeable
    assert [tuple(map(int, r)) for r in host] == NUMBA_SEED_0


@pytest.mark.parametrize(
    "args, error, message",
    [
        ((-1, 0), ValueError, "n must be a non-negative number of states, got -1"),
        ((2.0, 0), TypeError, "n must be an integer, got float 2.0"),
        ((2, 2**64), ValueError, r"seed must be in \[-2\*\*63, 2\*\*64\), got 18446744073709551616"),
        ((2, -(2**63) - 1), ValueError, "seed must be in"),
        ((2, 1.5), TypeError, "seed must be an integer"),
        ((2, 0, -1), ValueError, r"subsequence_start must be in \[0, 2\*\*64\), got -1"),
        ((2, 0, 2**64), ValueError, "subsequence_start must be in"),
        ((2, 0, 0, "s"), TypeError, "stream must be an ember.cuda.Stream or 0"),
    ],
)
def test_bad_arguments(args, error, message):
    with pytest.raises(error, match=message):
        cr.create_xoroshiro128p_states(*args)


def test_init_rejects_arrays_that_are_not_states():
    with pytest.raises(ValueError, match=r"uint64 array of shape \(n, 2\), got float64 of shape \(3, 2\)"):
        cr.init_xoroshiro128p_states(ember.zeros((3, 2)), 0)
    with pytest.raises(ValueError, match=r"got uint64 of shape \(6,\)"):
        cr.init_xoroshiro128p_states(ember.zeros(6, dtype=np.uint64), 0)
    with pytest.raises(TypeError, match="states must be an ember.ndarray, got ndarray"):
        cr.init_xoroshiro128p_states(np.zeros((3, 2), np.uint64), 0)
    with pytest.raises(ValueError, match="subsequence_start must be in"):
        cr.init_xoroshiro128p_states(ember.zeros((3, 2), dtype=np.uint64), 0, subsequence_start=-3)


@pytest.mark.parametrize(
    "name",
    [
        "xoroshiro128p_next",
        "xoroshiro128p_uniform_float32",
        "xoroshiro128p_uniform_float64",
        "xoroshiro128p_normal_float32",
        "xoroshiro128p_normal_float64",
    ],
)
def test_drawing_functions_are_device_only(name):
    f = getattr(cr, name)
    assert isinstance(f, DeviceOnly)
    assert f.intrinsic == f"cuda.random.{name}"
    assert name in cr.__all__
    assert repr(f) == f"<device-only function cuda.random.{name}>"
    states = cr.create_xoroshiro128p_states(1, 0)
    with pytest.raises(TypeError) as info:
        f(states, 0)
    assert str(info.value) == f"{name} can only be called inside a kernel compiled with @cuda.jit"
