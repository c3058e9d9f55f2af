"""The ``cuda`` a kernel sees in the simulator: Numba's device API (``cuda.grid``,
``cuda.threadIdx``, ``cuda.shared.array``, ``cuda.atomic``, the warp functions...) in Python,
each answering for the simulated thread that calls it.

Every row of ember-jit's intrinsic registry has its function here (a test holds the two
together), with the result types and edge cases of the compiled kernels: those are the
reference the simulator's results are tested against.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .arrays import kernel_view
from .threads import Launch, current

WARP = 32
FULL_MASK = 0xFFFFFFFF


class Dim3(tuple):
    """``cuda.threadIdx`` and its kin: ``.x``, ``.y``, ``.z``, and a tuple of the three."""

    __slots__ = ()

    def __new__(cls, x=1, y=1, z=1):
        return super().__new__(cls, (int(x), int(y), int(z)))

    x = property(lambda self: self[0])
    y = property(lambda self: self[1])
    z = property(lambda self: self[2])

    # Printed as the compiled kernels print it: (x, y, z).
    __repr__ = __str__ = tuple.__repr__

    def __reduce__(self):
        return (Dim3, tuple(self))


@dataclass(eq=False)
class Block:
    """What the threads of one block share."""

    index: Dim3
    dim: Dim3
    grid: Dim3
    launch: Launch
    dynamic_shared: np.ndarray  # the launch's dynamic shared memory, bytes
    shared: list = field(default_factory=list)  # cuda.shared.array of this block, in call order
    threads: list = field(default_factory=list)
    live: int = 0  # its threads that have not returned (what syncthreads waits for)

    @property
    def linear(self) -> int:
        return self.index[0] + self.grid[0] * (self.index[1] + self.grid[1] * self.index[2])


@dataclass(eq=False)
class Thread:
    """One simulated thread: its index, its block, and how many shared arrays it has asked for."""

    index: Dim3
    block: Block
    shared_calls: int = 0

    @property
    def linear(self) -> int:
        d = self.block.dim
        return self.index[0] + d[0] * (self.index[1] + d[1] * self.index[2])

    @property
    def lane(self) -> int:
        return self.linear % WARP

    @property
    def warp(self) -> int:
        return self.linear // WARP

    def where(self) -> str:
        """How messages name the thread, as Numba's simulator does."""
        return f"tid={list(self.index)} ctaid={list(self.block.index)}"


def _dtype(dtype) -> np.dtype:
    from ... import types

    if types.is_type(dtype):
        return types.as_dtype(dtype)
    return np.dtype(dtype)


def _shape(shape) -> tuple:
    return tuple(int(s) for s in shape) if isinstance(shape, (tuple, list)) else (int(shape),)


def _bits(x) -> int:
    return np.dtype(type(x)).itemsize * 8 if isinstance(x, np.integer) else 64


def _like(x, value):
    """``value`` in the integer type of ``x`` (Python integers count as int64, as Numba types them)."""
    kind = type(x) if isinstance(x, np.integer) else np.int64
    bits = np.dtype(kind).itemsize * 8
    value &= (1 << bits) - 1
    if np.dtype(kind).kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return kind(value)


def _word(x) -> int:
    """The two's complement bits of ``x`` in its width."""
    return int(x) & ((1 << _bits(x)) - 1)


def _predicate(p) -> bool:
    # Numba's signatures take int32 predicates: wider integers are truncated first.
    if isinstance(p, (bool, np.bool_)):
        return bool(p)
    if isinstance(p, (int, np.integer)):
        return (int(p) & FULL_MASK) != 0
    return bool(p)


class _Namespace:
    def __init__(self, name: str, **members):
        self._name = name
        self.__dict__.update(members)

    def __repr__(self):
        return f"<simulated {self._name}>"


# ---- threads, blocks and the grid ----


def grid(ndim):
    t = current()
    b = t.block
    pos = [b.index[k] * b.dim[k] + t.index[k] for k in range(3)]
    return pos[0] if ndim == 1 else tuple(pos[:ndim])


def gridsize(ndim):
    b = current().block
    size = [b.dim[k] * b.grid[k] for k in range(3)]
    return size[0] if ndim == 1 else tuple(size[:ndim])


def _block_meet(name: str, value=None) -> dict:
    t = current()
    block = t.block
    return block.launch.meet(("block", block.linear), name, lambda: block.live, t, value)


def syncthreads():
    _block_meet("syncthreads")


def syncthreads_count(predicate):
    return np.int32(sum(_block_meet("syncthreads", _predicate(predicate)).values()))


def syncthreads_and(predicate):
    return np.int32(all(_block_meet("syncthreads", _predicate(predicate)).values()))


def syncthreads_or(predicate):
    return np.int32(any(_block_meet("syncthreads", _predicate(predicate)).values()))


# ---- warps ----


def _warp_meet(mask, value=None) -> dict:
    """The values the running lanes of this warp named in ``mask`` bring, by lane."""
    t = current()
    block = t.block
    launch = block.launch
    mask = int(mask) & FULL_MASK
    members = [u for u in block.threads if u.warp == t.warp]

    def parties():
        return sum(1 for u in members if u in launch.running and mask >> u.lane & 1)

    # Lanes with different masks meet apart (Volta's independent scheduling).
    got = launch.meet(("warp", block.linear, t.warp, mask), "a warp function", parties, t, value)
    return {u.lane: v for u, v in got.items()}


def syncwarp(mask=FULL_MASK):
    _warp_meet(mask)


def activemask():
    # The lanes the warp has (a partial last warp has fewer): which of them are converged at
    # this moment is the hardware's scheduling, which the simulator does not model.
    t = current()
    lanes = (u.lane for u in t.block.threads if u.warp == t.warp)
    return np.uint32(sum(1 << lane for lane in lanes))


def lanemask_lt():
    return np.uint32((1 << current().lane) - 1)


def _shuffle(mask, value, source):
    lanes = _warp_meet(mask, value)
    return lanes.get(source, value) if 0 <= source < WARP else value


def shfl_sync(mask, value, src_lane):
    return _shuffle(mask, value, int(src_lane) % WARP)


def shfl_up_sync(mask, value, delta):
    return _shuffle(mask, value, current().lane - int(delta))


def shfl_down_sync(mask, value, delta):
    return _shuffle(mask, value, current().lane + int(delta))


def shfl_xor_sync(mask, value, lane_mask):
    return _shuffle(mask, value, current().lane ^ int(lane_mask))


def all_sync(mask, predicate):
    return all(_warp_meet(mask, _predicate(predicate)).values())


def any_sync(mask, predicate):
    return any(_warp_meet(mask, _predicate(predicate)).values())


def eq_sync(mask, predicate):
    return len(set(_warp_meet(mask, _predicate(predicate)).values())) == 1


def ballot_sync(mask, predicate):
    lanes = _warp_meet(mask, _predicate(predicate))
    return _like(np.int32(0), sum(1 << lane for lane, p in lanes.items() if p))


def _same(lanes: dict, value) -> int:
    key = np.asarray(value).tobytes()
    return sum(1 << lane for lane, v in lanes.items() if np.asarray(v).tobytes() == key)


def match_any_sync(mask, value):
    lanes = _warp_meet(mask, value)
    return _like(np.int32(0), _same(lanes, value))


def match_all_sync(mask, value):
    lanes = _warp_meet(mask, value)
    same = _same(lanes, value)
    everyone = sum(1 << lane for lane in lanes)
    return (_like(np.int32(0), everyone), True) if same == everyone else (np.int32(0), False)


# ---- memory ----


def _shared_array(shape, dtype, alignment=None):
    t = current()
    block = t.block
    dtype = _dtype(dtype)
    shape = _shape(shape)
    k = t.shared_calls
    t.shared_calls += 1
    if k == len(block.shared):
        if shape == (0,):  # dynamic shared memory: every such array views the same bytes
            count = block.dynamic_shared.size // dtype.itemsize
            array = block.dynamic_shared[: count * dtype.itemsize].view(dtype)
        else:
            array = np.empty(shape, dtype)
        block.shared.append(kernel_view(array))
    return block.shared[k]


def _local_array(shape, dtype, alignment=None):
    return kernel_view(np.empty(_shape(shape), _dtype(dtype)))


def _const_array_like(ary):
    copy = np.array(ary)
    copy.flags.writeable = False
    return kernel_view(copy)


shared = _Namespace("cuda.shared", array=_shared_array)
local = _Namespace("cuda.local", array=_local_array)
const = _Namespace("cuda.const", array_like=_const_array_like)


def _load(ary, i):
    return ary[i]


def _store(ary, i, value):
    ary[i] = value


ldca = ldcg = ldcs = ldcv = ldlu = _load
stcg = stcs = stwb = stwt = _store


def threadfence():
    """Python threads see one memory: a fence orders nothing more."""


threadfence_block = threadfence_system = threadfence


def nanosleep(ns):
    """The simulated threads take turns anyway: nothing to wait for."""


# ---- atomics: the compiled kernels' rules (helpers.rs) ----
# One simulated thread runs at a time and threads switch only at barriers (threads.py), so a
# read-modify-write here is atomic as it stands.


def _atomic(combine):
    def op(ary, idx, val):
        old = ary[idx]
        ary[idx] = combine(old, ary.dtype.type(val))
        return old

    return op


def _is_nan(x) -> bool:
    return isinstance(x, (float, np.floating)) and x != x


def _cas(ary, idx, old, val):
    found = ary[idx]
    if found == old:
        ary[idx] = val
    return found


def _compare_and_swap(ary, old, val):
    return _cas(ary, 0, old, val)


atomic = _Namespace(
    "cuda.atomic",
    add=_atomic(lambda o, v: o + v),
    sub=_atomic(lambda o, v: o - v),
    max=_atomic(lambda o, v: v if v > o else o),
    min=_atomic(lambda o, v: v if v < o else o),
    nanmax=_atomic(lambda o, v: v if (_is_nan(o) or v > o) else o),
    nanmin=_atomic(lambda o, v: v if (_is_nan(o) or v < o) else o),
    exch=_atomic(lambda o, v: v),
    and_=_atomic(lambda o, v: o & v),
    or_=_atomic(lambda o, v: o | v),
    xor=_atomic(lambda o, v: o ^ v),
    inc=_atomic(lambda o, v: o.dtype.type(0) if o >= v else o + o.dtype.type(1)),
    dec=_atomic(lambda o, v: v if (o == 0 or o > v) else o - o.dtype.type(1)),
    cas=_cas,
    compare_and_swap=_compare_and_swap,
)


# ---- scalar functions ----


def popc(x):
    return _like(x, bin(_word(x)).count("1"))


def clz(x):
    return _like(x, _bits(x) - _word(x).bit_length())


def ffs(x):
    w = _word(x)
    return np.uint32((w & -w).bit_length())


def brev(x):
    word = 64 if _bits(x) == 64 else 32
    bits = int(x) & ((1 << word) - 1)
    kind = np.uint64 if word == 64 else np.uint32
    return kind(int(format(bits, f"0{word}b")[::-1], 2))


def _float_kind(*xs):
    """float32 when every operand is float32 or narrower float, else float64 (Numba's rule)."""
    narrow = all(isinstance(x, (np.float32, np.float16)) for x in xs)
    return np.float32 if narrow else np.float64


def fma(a, b, c):
    kind = _float_kind(a, b, c)
    a, b, c = kind(a), kind(b), kind(c)
    if not all(math.isfinite(v) for v in (a, b, c)):
        return kind(a * b + c)
    return kind(float(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))))  # rounded once


def cbrt(x):
    kind = np.float32 if isinstance(x, (np.float32, np.float16)) else np.float64
    return kind(np.cbrt(kind(x)))


def selp(condition, a, b):
    return a if condition else b


# ---- float16 (computed exactly in float64, rounded once, as the hardware rounds) ----


def _h(x):
    return np.float64(np.float16(x))


def _half(fn):
    return lambda *xs: np.float16(fn(*(_h(x) for x in xs)))


def _half_via32(fn):
    # The transcendental ones, as CUDA computes them: in float32, rounded to half.
    return lambda x: np.float16(fn(np.float32(np.float16(x))))


def _hfma(a, b, c):
    a, b, c = _h(a), _h(b), _h(c)
    if not all(math.isfinite(v) for v in (a, b, c)):
        return np.float16(a * b + c)
    return np.float16(float(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))))


def _compare(op):
    return lambda a, b: bool(op(_h(a), _h(b)))


fp16 = _Namespace(
    "cuda.fp16",
    hadd=_half(lambda a, b: a + b),
    hsub=_half(lambda a, b: a - b),
    hmul=_half(lambda a, b: a * b),
    hdiv=_half(lambda a, b: a / b),
    hneg=_half(lambda a: -a),
    habs=_half(abs),
    hfma=_hfma,
    hmax=_half(np.fmax),
    hmin=_half(np.fmin),
    hsqrt=_half(np.sqrt),
    hrcp=_half(lambda a: 1.0 / a),
    hrsqrt=_half_via32(lambda a: np.float32(1) / np.sqrt(a)),
    hceil=_half(np.ceil),
    hfloor=_half(np.floor),
    htrunc=_half(np.trunc),
    hrint=_half(np.rint),
    hexp=_half_via32(np.exp),
    hexp2=_half_via32(np.exp2),
    hexp10=_half_via32(lambda a: np.power(np.float32(10), a)),
    hlog=_half_via32(np.log),
    hlog2=_half_via32(np.log2),
    hlog10=_half_via32(np.log10),
    hsin=_half_via32(np.sin),
    hcos=_half_via32(np.cos),
    heq=_compare(lambda a, b: a == b),
    hne=_compare(lambda a, b: a != b),
    hlt=_compare(lambda a, b: a < b),
    hle=_compare(lambda a, b: a <= b),
    hgt=_compare(lambda a, b: a > b),
    hge=_compare(lambda a, b: a >= b),
)


# ---- cooperative groups ----


class GridGroup:
    """``cuda.cg.this_grid()``: ``sync()`` waits for every thread of the launch."""

    def sync(self):
        t = current()
        launch = t.block.launch
        if not launch.cooperative:
            raise RuntimeError(f"{t.where()}: grid.sync() in a launch the simulator runs one block at a time")
        launch.meet(("grid",), "grid.sync()", lambda: len(launch.running), t)


cg = _Namespace("cuda.cg", this_grid=GridGroup)


# ---- cuda.random: xoroshiro128+ on the (n, 2) uint64 states, as xoroshiro.rs draws it ----

_MASK64 = (1 << 64) - 1
_TWO_POW_MINUS_53 = 2.0**-53
_TWO_PI_F32 = np.float32(2 * math.pi)


def xoroshiro128p_next(states, index):
    s0, s1 = int(states[index, 0]), int(states[index, 1])
    result = (s0 + s1) & _MASK64
    s1 ^= s0
    states[index, 0] = (((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14)) & _MASK64
    states[index, 1] = ((s1 << 36) | (s1 >> 28)) & _MASK64
    return np.uint64(result)


def xoroshiro128p_uniform_float32(states, index):
    return np.float32(int(xoroshiro128p_next(states, index)) >> 11) * np.float32(_TWO_POW_MINUS_53)


def xoroshiro128p_uniform_float64(states, index):
    return np.float64(int(xoroshiro128p_next(states, index)) >> 11) * _TWO_POW_MINUS_53


def xoroshiro128p_normal_float32(states, index):
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return np.sqrt(np.float32(-2.0) * np.log(u1)) * np.cos(_TWO_PI_F32 * u2)


def xoroshiro128p_normal_float64(states, index):
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return np.sqrt(-2.0 * np.float64(np.log(u1))) * np.cos(2 * math.pi * np.float64(u2))


random = _Namespace(
    "cuda.random",
    xoroshiro128p_next=xoroshiro128p_next,
    xoroshiro128p_uniform_float32=xoroshiro128p_uniform_float32,
    xoroshiro128p_uniform_float64=xoroshiro128p_uniform_float64,
    xoroshiro128p_normal_float32=xoroshiro128p_normal_float32,
    xoroshiro128p_normal_float64=xoroshiro128p_normal_float64,
)
