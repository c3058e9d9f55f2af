"""The shared kernels of the ``@cuda.jit`` language tests (``test_jit_*.py``), by section.

Each kernel runs on the current device (PoCL's CPU device in CI) and is compared with the
same Python function run on the host on NumPy scalars or arrays, with random inputs from a
fixed seed. Numba's typing rules (numba-cuda 0.30) are checked twice: by the type the
compiler gives a function's result (``result_type``; test_jit_typing.py), and by values that
only come out right in that type (``int32 + int32`` does not wrap because it is int64;
``float32 * 2`` does not overflow because it is float64).

The kernels here are the ones more than one test file launches or compiles: each section's
tests run them, and test_jit_cuda_c.py compiles every one of them as CUDA C through NVRTC.
``jit_harness`` has the row kernels that apply a device function and the random inputs.
"""

from __future__ import annotations

import math

import numpy as np
from ember import cuda
from jit_harness import TPB, each_2d, each_row, rows2, rows3, two_groups
from numpy import float32, float64, int32, int64, uint64

# ---- scalar arithmetic ----


def int_ops(a, b):
    s = b & 15  # int64 (an int64 literal makes even uint64 signed); shifts keep the left type
    return a + b, a - b, a * b, a // b, a % b, a & b, a | b, a ^ b, a << s, a >> s


INT_OPS = rows2(int_ops)


def unary_ops(a, b):
    return -a, ~a, +a, -b, ~b, +b


UNARY_OPS = rows2(unary_ops)


def float_ops(a, b):
    return a + b, a - b, a * b, a / b, a // b, a % b, -a, +a, a ** 2, abs(a) ** b, a ** -1, a ** 3, max(a, b), min(a, b)


FLOAT_OPS = rows2(float_ops)


@cuda.jit
def half_arithmetic(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = math.sqrt(a[i] * b[i] + a[i]) - b[i] / a[i]


# ---- comparisons, booleans, control flow ----


def logic(a, b):
    p, q = a > 0, b > 0
    return (
        a < b, a <= b, a == b, a != b, a > b, a >= b, 0 < a < b, a < b <= 2 * a, a == b != 0,
        not a, not b, p and q, p or q, not (a < b), p ^ q, p & q, p | q, ~p,
        math.isnan(b), math.isinf(b), math.isfinite(b), math.isnan(a), bool(b), bool(a),
    )


LOGIC = rows2(logic)


def control_flow(n, m):
    s = 0
    for i in range(n):
        s += i
    for i in range(m, n):
        s += 2 * i
    for i in range(n, m, -2):
        s += 3 * i
    for i in range(m, n, 3):
        s -= i
    step = m if m != 0 else 1
    for i in range(n, -n, step):  # a step only known at run time, of either sign
        s += i * i
    k = 0
    while k < n:
        k += 1
        if k % 3 == 0:
            continue
        if k > 11:
            break
        s += 5 * k
    else:
        s += 1000
    for j in range(n):
        if j == m:
            break
    else:
        s += 100000
    for v in (n, m, 7):
        s += v
    for i in range(3, n + 5):
        i *= 2  # rebinding the loop variable does not change the iteration
        s += i
    s += i  # the loop variable keeps its last value
    primes: int = 0
    for p in range(2, n):
        for q in range(2, p):
            if p % q == 0:
                break
        else:
            primes += 1
    x = y = primes * 2
    s += x + y
    if n > 15:
        c = 1
    elif n > 10:
        c = 2
    elif n == m:
        c = 3
    else:
        c = 4
    t = 7 if m < 0 else (8 if m == 0 else 9)
    while True:
        t += 10
        if t > 30:
            break
    return s, c, t, k, primes


CONTROL_FLOW = rows2(control_flow)


# ---- tuples ----


def tuples(a, b):
    t = (a, b, a + b)
    x, y, z = t
    x, y = y, x
    u = t + (7,)
    s = u[1:3]
    m = t[abs(a) % 3]  # an index known only at run time (items of one type)
    nested = ((a, b), (1, 2))
    q, r = divmod(a, b)
    total = 0
    for v in u:
        total += v
    found = 1 if b in (1, 2, 3) else 0
    missing = 1 if a not in t else 0
    same = 1 if (a, b) == (b, a) else 0
    return (
        x, y, z, u[3], s[0], s[1], m, t[-1], nested[0][1], nested[1][0], q, r, total, found, missing, same,
        len(u), min(t), max(a, b, 3), (a > 0) + (b > 0), -(a > b), (a > 0) * 7, a ** (abs(b) % 4), b ** 3,
    )


TUPLES = rows2(tuples)


def augmented(a, f, i):
    a[i] += 7
    a[i] -= i
    a[i] *= 3
    a[i] //= -2
    a[i] %= 1000
    a[i] **= 2
    a[i] <<= 2
    a[i] >>= 1
    a[i] &= 0xFFFF
    a[i] |= 1
    a[i] ^= 0x55
    a[i] += 2.75  # the float64 sum is truncated back to int64
    f[i, 0] /= 4
    f[i, 1] -= a[i]
    f[-1 - i, 2] *= -1.5
    n = 5
    n += i
    n /= 2  # n becomes float64
    f[i, 3] = n


AUGMENTED = cuda.jit(device=True)(augmented)


@cuda.jit
def augmented_kernel(a, f):
    i = cuda.grid(1)
    if i < a.size:
        AUGMENTED(a, f, i)


# ---- arrays ----


def mirrored(a, i, j):
    n, m = a.shape
    return a[-1 - i, j - m] * a.ndim + a[i, -1] - a.size + 10 * a[i - n, -j - 1]


MIRRORED = each_2d(mirrored)


def slices(a, i):
    row = a[i]
    head = row[1:5]
    rev = row[::-1]
    every = row[::2]
    back = row[5:1:-2]
    col = a[:, 2]
    s = 0
    for v in head:
        s += v
    return (
        len(head), rev[0], rev[-1], every[1], every.size, back[0], back[1], back.size, col[i], col.shape[0],
        row[-3:][0], a[i, 1:4][1], row.ndim, a[1:, ::2].shape[1], a[::-1][0][i % 5], row[-100:3].size,
        row[3:100].size, row[2:2].size, row[::-3][1], a[-2:, -3:][1, 0], s, len(a),
    )


SLICES = each_row(slices)


def transposes(a, i):
    t = a.T
    j = i % t.shape[0]
    return (t[j, i], t.shape[0], t.shape[1], t.strides[0], t[::-1][0, i], a[i].T[1], t.T[i, j], t[1:, i][0], t.ndim)


TRANSPOSES = each_row(transposes)


# ---- math ----


def math_floats(x, y, z):
    # x in (-3, 3), y in (1, 4), z in (-1, 1): each function inside its domain
    return (
        math.sqrt(y), math.exp(x), math.expm1(x), math.log(y), math.log2(y), math.log10(y), math.log1p(y),
        math.sin(x), math.cos(x), math.tan(x), math.asin(z), math.acos(z), math.atan(x),
        math.sinh(x), math.cosh(x), math.tanh(x), math.asinh(x), math.acosh(y), math.atanh(z),
        math.erf(x), math.erfc(x), math.gamma(y), math.lgamma(y), math.floor(x), math.ceil(x), math.trunc(x),
        math.fabs(x), math.atan2(x, y), math.hypot(x, y), math.copysign(y, x), math.fmod(x, z), math.pow(y, x),
        math.degrees(x), math.radians(x), np.sqrt(y), np.exp2(x), np.cbrt(x), np.rint(x), np.maximum(x, z),
        np.fmin(x, z), np.arctan2(z, y),
    )


MATH_FLOATS = rows3(math_floats)


# ---- builtins and casts ----


def builtins(x, m):
    floats = (
        abs(x), min(x, m), max(x, 0.5, m), min((x, 2.0, -1.5)), round(x, 1), round(x, 2), round(x, -1),
        float(m), float(x), float32(x) * 1.0, float64(m) / 3,
    )
    # `+ 0` makes one int64 tuple; the values still show the type: abs(int8(-128)) is -128.
    ints = (
        round(x), int(x), abs(m) + 0, min(m, 3) + 0, max(m, -2, 1) + 0, bool(x) + 0, bool(m) + 0, np.int32(x) + 0,
        np.uint8(m) + 0, int32(m) * 1, int(m) + 0, abs(-5), int64(x * 4),
    )
    return floats, ints


BUILTINS = two_groups(builtins)


def complex_ops(z, w):
    cs = (
        z + w, z - w, z * w, z / w, -z, z.conjugate(), complex(z.real, w.imag), z * 2, z + 1.5, 2j * z,
        1j if z == w else 0j, complex(abs(z)),
    )
    fs = (z.real, z.imag, abs(z), (z * w).imag, w.conjugate().imag, abs(-z))
    return cs, fs


COMPLEX = two_groups(complex_ops)


# ---- device functions ----


@cuda.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit(device=True)
def polar(x, y):
    return math.hypot(x, y), math.atan2(y, x)


@cuda.jit(device=True)
def scaled_polar(x, y, scale):
    r, t = polar(x, y)
    return clamp(r * scale, 0.0, 10.0), t


@cuda.jit(device=True)
def put(out, i, j, v):
    out[i, j] = v


@cuda.jit(device=True)
def positive_or_half(x):
    if x > 0:
        return x
    return 0.5


@cuda.jit(device=True)
def my_index():
    return cuda.grid(1)


@cuda.jit
def device_calls(x, y, out):
    i = my_index()
    if i >= x.size:
        return
    out[i, 0], out[i, 1] = scaled_polar(y=y[i], x=x[i], scale=2.0)
    r, t = out[i, 0], out[i, 1]
    out[i, 2] = clamp(y[i], -1, 1)
    out[i, 3] = clamp(i, 2, 5)
    put(out, i, 4, r + t)
    out[i, 5] = positive_or_half(x[i])
    out[i, 6] = positive_or_half(i - 3)


# ---- the thread grid ----


@cuda.jit
def thread_ids(small, big):
    x, y, z = cuda.grid(3)
    w, h, d = cuda.gridsize(3)
    row = x + w * (y + h * z)
    ids = (
        cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z, cuda.blockIdx.x, cuda.blockIdx.y, cuda.blockIdx.z,
        cuda.blockDim.x, cuda.blockDim.y, cuda.blockDim.z, cuda.gridDim.x, cuda.gridDim.y, cuda.gridDim.z,
        cuda.laneid, cuda.warpsize,
    )
    for k in range(len(ids)):
        small[row, k] = ids[k]
    g2 = cuda.grid(2)
    s2 = cuda.gridsize(2)
    pos = (x, y, z, w, h, d, cuda.grid(1), cuda.gridsize(1), g2[0], g2[1], s2[0], s2[1])
    for k in range(len(pos)):
        big[row, k] = pos[k]


# ---- shared, local and dynamic shared memory; barriers ----


TILE = (8, 8)


@cuda.jit(device=True)
def block_reduce(sh, t):
    """Sums ``sh`` into ``sh[0]``: a device function with barriers, on a shared array."""
    s = TPB // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2


@cuda.jit
def block_sums(x, sums, transposed):
    sh = cuda.shared.array(TPB, float32)
    tile = cuda.shared.array(TILE, int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = x[i] if i < x.size else 0
    tile[t // 8, t % 8] = t * (cuda.blockIdx.x + 1)
    cuda.syncthreads()
    block_reduce(sh, t)
    if t == 0:
        sums[cuda.blockIdx.x] = sh[0]
    transposed[cuda.blockIdx.x, t] = tile[t % 8, t // 8]


@cuda.jit
def reverse_blocks(x, out, size):
    buf = cuda.shared.array(0, float64)
    alias = cuda.shared.array(0, float64)  # every dynamic shared array starts at the same byte
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = cuda.blockDim.x
    buf[t] = x[i]
    cuda.syncthreads()
    out[i] = alias[n - 1 - t]
    if i == 0:
        size[0] = buf.size
        size[1] = alias.shape[0]


@cuda.jit(device=True)
def insertion_sort(w):
    for k in range(1, len(w)):
        v = w[k]
        j = k - 1
        while j >= 0 and w[j] > v:
            w[j + 1] = w[j]
            j -= 1
        w[j + 1] = v


@cuda.jit
def window_sort(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        w = cuda.local.array(8, int64)
        m = cuda.local.array((2, 4), float64)
        for k in range(8):
            w[k] = x[(i + k) % x.size]
        insertion_sort(w)
        for k in range(8):
            m[k // 4, k % 4] = w[k] * 0.5
        for k in range(8):
            out[i, k] = m[k % 2, k // 2]


@cuda.jit
def warp_exchange(x, out):
    sh = cuda.shared.array(32, int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = x[i]
    cuda.syncwarp()
    cuda.threadfence_block()
    v = sh[31 - t]
    cuda.syncwarp(0xFFFFFFFF)
    sh[t] = v * 2
    cuda.threadfence()
    cuda.threadfence_system()
    cuda.syncwarp()
    out[i] = sh[(t + 1) % 32]


# ---- atomics ----


@cuda.jit
def int_atomics(v, w, acc, olds, flag, hist):
    i = cuda.grid(1)
    if i < v.size:
        olds[i, 0] = cuda.atomic.add(acc, 0, v[i])
        olds[i, 1] = cuda.atomic.sub(acc, 1, v[i])
        olds[i, 2] = cuda.atomic.exch(acc, 2, v[i])
        olds[i, 3] = cuda.atomic.add(acc, 3, 1)
        olds[i, 4] = cuda.atomic.compare_and_swap(flag, 0, i + 1)
        cuda.atomic.max(acc, 4, w[i])
        cuda.atomic.min(acc, 5, w[i])
        cuda.atomic.nanmax(acc, 6, w[i])
        cuda.atomic.nanmin(acc, 7, w[i])
        cuda.atomic.and_(acc, 8, w[i])
        cuda.atomic.or_(acc, 9, w[i])
        cuda.atomic.xor(acc, 10, w[i])
        old = acc[11]
        while True:  # an add written as a compare-and-swap loop
            seen = cuda.atomic.cas(acc, 11, old, old + v[i])
            if seen == old:
                break
            old = seen
        cuda.atomic.add(hist, (v[i] % 2, v[i] % 3), 1)


@cuda.jit
def float_atomics(v, w, acc, olds, nans):
    i = cuda.grid(1)
    if i < v.size:
        olds[i, 0] = cuda.atomic.add(acc, 0, v[i])
        olds[i, 1] = cuda.atomic.sub(acc, 1, v[i])
        olds[i, 2] = cuda.atomic.max(acc, 2, w[i])
        olds[i, 3] = cuda.atomic.min(acc, 3, w[i])
        cuda.atomic.nanmax(acc, 4, w[i])
        cuda.atomic.nanmin(acc, 5, w[i])
    if i == 0:
        nans[8] = cuda.atomic.max(nans, 0, 5.0)
        cuda.atomic.max(nans, 1, math.nan)
        cuda.atomic.min(nans, 2, 5.0)
        cuda.atomic.min(nans, 3, math.nan)
        nans[9] = cuda.atomic.nanmax(nans, 4, 5.0)
        cuda.atomic.nanmax(nans, 5, math.nan)
        cuda.atomic.nanmin(nans, 6, 5.0)
        cuda.atomic.nanmin(nans, 7, math.nan)


@cuda.jit
def shared_atomics(x, hist, stats, biggest, winners):
    h = cuda.shared.array(16, int32)
    s = cuda.shared.array(2, float64)
    m = cuda.shared.array(1, uint64)
    first = cuda.shared.array(1, int64)
    t = cuda.threadIdx.x
    if t < 16:
        h[t] = 0
    if t == 0:
        s[0] = 0.0
        s[1] = -1.0
        m[0] = 0
        first[0] = -1
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(h, x[i] % 16, 1)
        cuda.atomic.add(s, 0, x[i] * 0.5)
        cuda.atomic.max(s, 1, x[i] * 0.25)
        cuda.atomic.max(m, 0, x[i])
        cuda.atomic.cas(first, 0, -1, i)
    cuda.syncthreads()
    if t < 16:
        cuda.atomic.add(hist, t, h[t])
    if t == 0:
        cuda.atomic.add(stats, 0, s[0])
        cuda.atomic.max(stats, 1, s[1])
        cuda.atomic.max(biggest, 0, m[0])
        winners[cuda.blockIdx.x] = first[0]


# ---- arguments from the host ----


@cuda.jit
def scalar_args(out, i, f, b, i8, u16, f32, big, c):
    out[0] = i * 3
    out[1] = f / 4
    out[2] = 1.5 if b else -1.5
    out[3] = i8 + i8  # int64: no int8 wrap-around
    out[4] = u16 + 1  # 65536: widened
    out[5] = f32 * 1.0  # float32's nearest value to 0.1
    out[6] = big >> 60  # uint64 (big % 1000 would be int64: an int64 literal makes it signed)
    out[7] = c.imag
