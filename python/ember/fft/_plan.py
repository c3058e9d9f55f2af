"""FFT plans, as CuPy's ``cupy.cuda.cufft`` spells them: :class:`Plan1d` (batched 1-D
transforms) and :class:`PlanNd` (one transform over up to three adjacent axes).

A plan is made for one shape, type and batch on the current device, holds what it needs there
(a cuFFT handle and its work area on CUDA; ember's pass kernels' twiddles and work area
elsewhere, or inside :func:`ember.fft.config.use_ember_passes`) and runs on any array of that
shape. ``with plan:`` makes ``ember.fft`` use it for the transforms in the block
(:func:`get_current_plan`); a transform whose input does not match it raises CuPy's error.

On ember's passes, lengths with primes above 7 run Bluestein's algorithm (a convolution of
power-of-two length), real transforms of even length are complex transforms of half the length
(the even and odd samples as the real and imaginary parts), and an N-d plan is 1-D plans over
each of its axes: the last one's rows, the others' columns read in place (:class:`_Columns`).
On GPUs the passes are tile passes (a large radix a launch, in local memory: a row of up to 32
KiB in one launch, 2^24 values in three); ``EMBER_FFT_TILES="local_bytes,min_lanes,max_threads,
direct,values,regs"`` (a measuring knob: see ``ember_codegen::fft::Tuning``) tunes them (read once a
process) and makes CPU devices take them for rows too (tests).
"""

from __future__ import annotations

import math
import threading

import numpy as np

from .. import _ember
from .._creation import asarray, empty, zeros
from .._memory import MemoryPointer, UnownedMemory
from .._ndarray import ndarray
from .._runtime import current_device_id
from .._shape import moveaxis
from . import config
from ._callback import get_current_callback_manager

# cufftType and the directions, with cuFFT's values.
CUFFT_C2C, CUFFT_R2C, CUFFT_C2R = 0x29, 0x2A, 0x2C
CUFFT_Z2Z, CUFFT_D2Z, CUFFT_Z2D = 0x69, 0x6A, 0x6C
CUFFT_FORWARD, CUFFT_INVERSE = -1, 1

# fft_type -> (value type, double precision)
_TYPES = {
    CUFFT_C2C: ("C2C", False), CUFFT_R2C: ("R2C", False), CUFFT_C2R: ("C2R", False),
    CUFFT_Z2Z: ("C2C", True), CUFFT_D2Z: ("R2C", True), CUFFT_Z2D: ("C2R", True),
}

class _Local(threading.local):
    plan = None  # a class default: reading it costs no exception (every transform reads it)


_local = _Local()


def get_current_plan():
    """The plan a ``with plan:`` block of this thread made current, or None."""
    return _local.plan


_CODES = {("C2C", "F"): CUFFT_C2C, ("C2C", "D"): CUFFT_Z2Z, ("R2C", "f"): CUFFT_R2C,
          ("R2C", "d"): CUFFT_D2Z, ("C2R", "F"): CUFFT_C2R, ("C2R", "D"): CUFFT_Z2D}


def fft_type(dtype, value_type: str) -> int:
    """The cufftType of a transform of ``value_type`` whose input has ``dtype``."""
    try:
        return _CODES[(value_type, dtype.char if isinstance(dtype, np.dtype) else np.dtype(dtype).char)]
    except KeyError:
        raise ValueError(f"no {value_type} transform takes {np.dtype(dtype)} input") from None


def _complex(double: bool) -> np.dtype:
    return np.dtype(np.complex128 if double else np.complex64)


def _real(double: bool) -> np.dtype:
    return np.dtype(np.float64 if double else np.float32)


def _work_area(natives) -> MemoryPointer:
    """CuPy's ``plan.work_area``: the device memory the plan's native plans hold."""
    natives = [p for p in natives if p is not None]
    size = sum(p.work_bytes for p in natives)
    address = next((p.work_address for p in natives if p.work_bytes), 0)
    return MemoryPointer(UnownedMemory(address, size, tuple(natives), current_device_id()), 0)


def _wrap(native) -> ndarray:
    from .._ndarray import _wrap as wrap

    return wrap(native)


# ---- ember's passes: batched rows of one length ----------------------------------------------
class _Rows:
    """``batch`` C-contiguous rows of ``n`` complex values transformed by ember's passes; lengths
    with primes above 7 by Bluestein's algorithm, ``X_k = w_k sum_j (x_j w_j) conj(w_(k-j))``
    with ``w_k = exp(-+i pi k^2 / n)``, a convolution of power-of-two length ``m``."""

    def __init__(self, device: int, n: int, batch: int, double: bool):
        self.n, self.batch, self.double = n, batch, double
        self.dtype = _complex(double)
        self.direct = _ember.fft_radices(n) is not None
        self.m = n if self.direct else 1 << (2 * n - 2).bit_length()
        self.native = _ember.FftPlan.passes(device, self.m, batch, double) if batch else None
        self._chirps: dict[bool, tuple] = {}

    def natives(self) -> list:
        return [self.native]

    def _chirp(self, inverse: bool):
        if inverse not in self._chirps:
            n, m = self.n, self.m
            k = np.arange(n, dtype=np.int64)
            angle = np.pi * ((k * k) % (2 * n)).astype(np.float64) / n  # k^2 reduced: exact angles
            w = np.exp((1j if inverse else -1j) * angle)
            b = np.zeros(m, dtype=np.complex128)
            b[:n] = np.conj(w)
            b[m - n + 1:] = np.conj(w[1:])[::-1]
            one = _ember.FftPlan.passes(current_device_id(), m, 1, self.double)
            source = asarray(b.astype(self.dtype))
            spectrum = empty(m, dtype=self.dtype)
            one.execute(source._a, spectrum._a, False)
            self._chirps[inverse] = (asarray(w.astype(self.dtype)), spectrum)
        return self._chirps[inverse]

    def run(self, x: ndarray, out: ndarray, inverse: bool) -> None:
        """``out`` (C-contiguous, rows of ``n``) = the unnormalized DFT of ``x``'s rows."""
        if self.native is None:
            return
        if self.direct:
            self.native.execute(x._a, out._a, inverse)
            return
        n, m = self.n, self.m
        w, spectrum = self._chirp(inverse)
        padded = zeros((self.batch, m), dtype=self.dtype)
        padded[:, :n] = x.reshape(self.batch, n) * w
        convolved = empty((self.batch, m), dtype=self.dtype)
        self.native.execute(padded._a, convolved._a, False)
        convolved *= spectrum
        self.native.execute(convolved._a, padded._a, True)
        out.reshape(self.batch, n)[...] = padded[:, :n] * (w * (1.0 / m))


def _roots(n: int, count: int, double: bool):
    """``exp(-2 pi i k / n)`` for ``k < count`` as a two-level table on the device (``lo[k mod
    2^bits] hi[k >> bits]``: about ``2 sqrt(count)`` values, read from cache, where a table of
    every root would be as large as the data) and its ``bits``."""
    bits = max(1, (max(count - 1, 1).bit_length() + 1) // 2)
    m = np.concatenate([np.arange(1 << bits), np.arange(((count - 1) >> bits) + 1) << bits])
    table = np.exp(-2j * np.pi * (m % n).astype(np.float64) / n)
    return asarray(table.astype(_complex(double))), bits


class _RealForward:
    """R2C of ``batch`` rows of ``n`` reals on the passes. Even ``n``: the rows as ``n / 2``
    complex values (even samples real, odd imaginary), transformed, then split:
    ``X_k = (Z_k + conj Z_(h-k)) / 2 - i/2 e^(-2 pi i k/n) (Z_k - conj Z_(h-k))``, one thread a
    pair ``k``, ``h - k`` (each value of ``Z`` read once)."""

    def __init__(self, device: int, n: int, batch: int, double: bool):
        self.n, self.batch, self.double = n, batch, double
        self.half = n % 2 == 0
        self.rows = _Rows(device, n // 2 if self.half else n, batch, double)
        if self.half:
            self.roots, self.bits = _roots(n, n // 4 + 1, double)

    def natives(self) -> list:
        return self.rows.natives()

    def run(self, x: ndarray, out: ndarray, inverse: bool) -> None:
        n, batch = self.n, self.batch
        rows = x.reshape(batch, n)
        out = out.reshape(batch, n // 2 + 1)
        if not self.half:
            full = empty((batch, n), dtype=_complex(self.double))
            self.rows.run(rows.astype(full.dtype), full, False)
            out[...] = full[:, : n // 2 + 1]
            return
        h = n // 2
        z = empty((batch, h), dtype=_complex(self.double))
        if rows._a.address % z.dtype.itemsize:
            rows = rows.copy()  # reals from an odd offset: complex values must be aligned
        self.rows.run(rows.view(z.dtype), z, False)
        real = _real(self.double)
        _kernel("split")(z.view(real), self.roots.view(real), np.int64(h), np.int64(batch), np.int64(self.bits),
                         out.view(real), size=batch * (h // 2 + 1))


class _RealInverse:
    """C2R of ``batch`` rows of ``n // 2 + 1`` complex values into ``n`` reals on the passes
    (unnormalized; the imaginary parts of the first and, for even ``n``, last values are
    ignored, as cuFFT and NumPy do). Even ``n``: one inverse transform of ``n / 2`` complex
    values, ``Z_k = (X_k + conj X_(h-k)) + i e^(2 pi i k/n) (X_k - conj X_(h-k))``, one thread a
    pair ``k``, ``h - k``."""

    def __init__(self, device: int, n: int, batch: int, double: bool):
        self.n, self.batch, self.double = n, batch, double
        self.half = n % 2 == 0
        self.rows = _Rows(device, n // 2 if self.half else n, batch, double)
        if self.half:
            self.roots, self.bits = _roots(n, n // 4 + 1, double)

    def natives(self) -> list:
        return self.rows.natives()

    def run(self, x: ndarray, out: ndarray, inverse: bool) -> None:
        n, batch, h = self.n, self.batch, self.n // 2
        spectrum = x.reshape(batch, h + 1)
        out = out.reshape(batch, n)
        dtype = _complex(self.double)
        if not self.half:
            full = empty((batch, n), dtype=dtype)
            full[:, : h + 1] = spectrum
            full[:, h + 1:] = spectrum[:, h:0:-1].conj()
            result = empty((batch, n), dtype=dtype)
            self.rows.run(full, result, True)
            out[...] = result.real
            return
        real = _real(self.double)
        z = empty((batch, h), dtype=dtype)
        source = spectrum if spectrum.flags.c_contiguous else spectrum.copy()
        _kernel("merge")(source.view(real), self.roots.view(real), np.int64(h), np.int64(batch), np.int64(self.bits),
                         z.view(real), size=batch * (h // 2 + 1))
        result = empty((batch, h), dtype=dtype)
        self.rows.run(z, result, True)
        out[...] = result.view(out.dtype).reshape(batch, n)


class _Columns:
    """A C2C transform along a non-last axis of a C-contiguous array, read where it is: ``batch``
    blocks of ``n x inner`` values transformed along ``n`` by ember's passes (on GPUs the tile
    passes, a group taking adjacent columns), instead of a transposed copy, a row transform and a
    copy back."""

    def __init__(self, device: int, n: int, batch: int, inner: int, double: bool):
        self.native = _ember.FftPlan.passes(device, n, batch, double, False, inner)
        self.work_area = _work_area([self.native])

    def run(self, x: ndarray, out: ndarray, inverse: bool) -> None:
        self.native.execute(x._a, out._a, inverse)


_BODIES = {"C2C": _Rows, "R2C": _RealForward, "C2R": _RealInverse}

# The two halves of a real transform's split and merge, one kernel each (on the real and
# imaginary parts, so one source serves every dialect). One thread a pair k, h - k of a row
# (k <= h / 2): both read once, both written. Its row and k by a 32-bit division where they
# fit (GPUs emulate a 64-bit one in dozens of instructions), none for one row. The root
# w = exp(-2 pi i k / n) is the product of two values of a small table (_roots).
_ROW_AND_COLUMN = """
long long m = h / 2 + 1, r = 0, k = i;
if (rows > 1 && rows * m <= 4294967295LL) {
    unsigned int q = (unsigned int)i / (unsigned int)m;
    r = q; k = i - r * m;
} else if (rows > 1) {
    r = i / m; k = i - r * m;
}
long long lo = 2 * (k & ((1LL << bits) - 1)), hi = 2 * ((1LL << bits) + (k >> bits));
T wr = tw[lo] * tw[hi] - tw[lo + 1] * tw[hi + 1], wi = tw[lo] * tw[hi + 1] + tw[lo + 1] * tw[hi];
"""
_KERNELS: dict = {}


def _kernel(name: str):
    if name not in _KERNELS:
        from .._user_kernels import ElementwiseKernel

        if name == "split":
            # X_k = (P + conj Q) / 2 + (P - conj Q) t, X_(h-k) = (Q + conj P) / 2 + (Q - conj P) conj t,
            # P = Z_k, Q = Z_((h-k) mod h), t = -i/2 w (X_0 and X_h both from Z_0).
            body = _ROW_AND_COLUMN + """
            long long ka = r * h + k, kb = r * h + (k == 0 ? 0 : h - k), oa = r * (h + 1) + k,
                      ob = r * (h + 1) + h - k;
            T pr = z[2 * ka], pi = z[2 * ka + 1], qr = z[2 * kb], qi = z[2 * kb + 1];
            T tr = (T)0.5 * wi, ti = (T)-0.5 * wr;
            T dr = pr - qr, di = pi + qi, er = qr - pr, ei = qi + pi;
            y[2 * oa] = (T)0.5 * (pr + qr) + dr * tr - di * ti;
            y[2 * oa + 1] = (T)0.5 * (pi - qi) + dr * ti + di * tr;
            y[2 * ob] = (T)0.5 * (qr + pr) + er * tr + ei * ti;
            y[2 * ob + 1] = (T)0.5 * (qi - pi) - er * ti + ei * tr;
            """
        else:
            # Z_k = (P + conj Q) + (P - conj Q) u, Z_(h-k) = (Q + conj P) + (Q - conj P) conj u,
            # P = X_k, Q = X_(h-k), u = i conj w; the imaginary parts of X_0 and X_h taken as 0
            # (k = 0 writes Z_0 only).
            body = _ROW_AND_COLUMN + """
            long long ka = r * (h + 1) + k, kb = r * (h + 1) + h - k, oa = r * h + k, ob = r * h + h - k;
            T pr = x[2 * ka], pi = k == 0 ? (T)0 : x[2 * ka + 1];
            T qr = x[2 * kb], qi = k == 0 ? (T)0 : x[2 * kb + 1];
            T ur = wi, ui = wr;
            T dr = pr - qr, di = pi + qi, er = qr - pr, ei = qi + pi;
            y[2 * oa] = pr + qr + dr * ur - di * ui;
            y[2 * oa + 1] = pi - qi + dr * ui + di * ur;
            if (k > 0) {
                y[2 * ob] = qr + pr + er * ur + ei * ui;
                y[2 * ob + 1] = qi - pi - er * ui + ei * ur;
            }
            """
        source = "x" if name == "merge" else "z"
        _KERNELS[name] = ElementwiseKernel(f"raw T {source}, raw T tw, int64 h, int64 rows, int64 bits", "raw T y",
                                           body, f"ember_rfft_{name}2")
    return _KERNELS[name]


# ---- the plans --------------------------------------------------------------------------------
class _Plan:
    """What Plan1d and PlanNd share: the context manager, the device, the callbacks."""

    gpus = None
    _callbacks = None  # the load/store callbacks the plan was made under (set_cufft_callbacks)

    def __enter__(self):
        self._previous = get_current_plan()
        _local.plan = self
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _local.plan = self._previous

    def _check_device(self, a: ndarray) -> None:
        if a._a.device != self._device:
            raise ValueError(f"this FFT plan was made on device {self._device}; the array is on device {a.device.id}")

    def fft(self, a: ndarray, out: ndarray, direction: int) -> None:
        """Transforms ``a`` (contiguous: rows for Plan1d, the plan's order for PlanNd) into
        ``out``, unnormalized; ``direction`` is ``CUFFT_FORWARD`` or ``CUFFT_INVERSE``. The
        callbacks the plan was made under run before and after."""
        self._check_device(a)
        callbacks = self._callbacks
        if callbacks is None:
            self._run(a, out, direction)
            return
        loaded = callbacks.load(a, out.dtype.char)
        if not callbacks.cb_store:
            self._run(loaded, out, direction)
            return
        order = "F" if out.flags.f_contiguous and not out.flags.c_contiguous else "C"
        result = empty(out.shape, dtype=out.dtype, order=order)
        self._run(loaded, result, direction)
        callbacks.store(result, out, a.dtype.char)


class Plan1d(_Plan):
    """``batch`` 1-D transforms of length ``nx`` (the real length for R2C and C2R) of type
    ``fft_type`` (``CUFFT_C2C`` ...), on contiguous rows. ``devices`` (CuPy's multi-GPU
    transforms) is not supported: ember transforms on one device."""

    def __init__(self, nx, fft_type, batch, *, devices=None, out=None):
        if devices is not None:
            raise NotImplementedError("ember runs each FFT on one device: multi-GPU plans are not supported")
        if fft_type not in _TYPES:
            raise ValueError(f"unknown cufftType {fft_type}")
        self.nx, self.fft_type, self.batch = int(nx), int(fft_type), int(batch)
        if self.nx < 1:
            raise ValueError(f"Invalid number of FFT data points ({self.nx}) specified.")
        self._device = current_device_id()
        self.engine = config.engine()
        self._value_type, self._double = _TYPES[self.fft_type]
        self._out_name = (_real if self._value_type == "C2R" else _complex)(self._double).name
        self._native = self._body = None
        if self.batch:
            if self.engine == "cufft":
                self._native = _ember.FftPlan.cufft(self._device, [self.nx], self.batch, [], 1, 1, [], 1, 1,
                                                    self._value_type, self._double)
            else:
                self._body = _BODIES[self._value_type](self._device, self.nx, self.batch, self._double)
        self.work_area = _work_area([self._native] if self._body is None else self._body.natives())
        self._callbacks = get_current_callback_manager()

    def __repr__(self):
        return f"<Plan1d {self._value_type} nx={self.nx} batch={self.batch} on {self.engine}>"

    def _run(self, a: ndarray, out: ndarray, direction: int) -> None:
        if self.batch == 0 or a.size == 0:
            return
        inverse = direction == CUFFT_INVERSE
        if self._native is not None:
            if self._value_type == "C2R":
                a = a.copy()  # cuFFT's C2R overwrites its input
            self._native.execute(a._a, out._a, inverse)
        else:
            self._body.run(a, out, inverse)

    def _output_dtype_and_shape(self, a: ndarray):
        shape = list(a.shape)
        if self._value_type == "R2C":
            shape[-1] = shape[-1] // 2 + 1
        elif self._value_type == "C2R":
            shape[-1] = self.nx
        dtype = _real(self._double) if self._value_type == "C2R" else _complex(self._double)
        return tuple(shape), dtype

    def get_output_array(self, a: ndarray) -> ndarray:
        shape = list(a._a.shape)
        if self._value_type != "C2C":
            shape[-1] = shape[-1] // 2 + 1 if self._value_type == "R2C" else self.nx
        # The allocation itself, without empty()'s argument handling: every transform makes one.
        return _ember.wrap(_ember.empty(self._device, shape, self._out_name))

    def check_output_array(self, a: ndarray, out: ndarray) -> None:
        shape, dtype = self._output_dtype_and_shape(a)
        if out.shape != shape:
            raise ValueError(f"out must have shape {shape}.")
        if out.dtype != dtype:
            raise ValueError(f"out dtype mismatch: found {out.dtype}, expected {dtype}")


class PlanNd(_Plan):
    """One transform over up to three adjacent axes, ``batch`` times, in cuFFT's advanced
    layout (``cufftMakePlanMany``'s arguments; ``inembed``/``onembed`` None for the packed
    layout). ``shape`` is the transform's lengths in memory order (reversed for ``order='F'``);
    ``last_axis``/``last_size`` are the real transform's axis and output length (R2C/C2R)."""

    def __init__(self, shape, inembed, istride, idist, onembed, ostride, odist, fft_type, batch, order,
                 last_axis, last_size):
        if fft_type not in _TYPES:
            raise ValueError(f"unknown cufftType {fft_type}")
        if order not in ("C", "F"):
            raise ValueError("order must be 'C' or 'F'")
        self.shape = tuple(int(n) for n in shape)
        self.fft_type, self.batch, self.order = int(fft_type), int(batch), order
        self.last_axis, self.last_size = last_axis, last_size
        self._layout = (inembed, int(istride), int(idist), onembed, int(ostride), int(odist))
        self._value_type, self._double = _TYPES[self.fft_type]
        self._out_name = (_real if self._value_type == "C2R" else _complex)(self._double).name
        self._device = current_device_id()
        self.engine = config.engine()
        self._native, self._axes_plans = None, []
        # The batch runs along the leading (outer) axes in memory, or the trailing (inner) ones.
        self._inner_batch = self.batch > 1 and int(istride) != 1
        if self.batch and self.engine == "cufft":
            self._native = _ember.FftPlan.cufft(
                self._device, list(self.shape), self.batch, list(inembed or ()), int(istride), int(idist),
                list(onembed or ()), int(ostride), int(odist), self._value_type, self._double)
        elif self.batch:
            # 1-D plans over each axis: the real one over the last, complex ones over the others.
            complex_shape = list(self.shape)
            if self._value_type != "C2C":
                complex_shape[-1] = self.shape[-1] // 2 + 1
            total = self.batch * math.prod(complex_shape)
            code = {False: CUFFT_C2C, True: CUFFT_Z2Z}[self._double]
            outer, inner = (1, self.batch) if self._inner_batch else (self.batch, 1)
            for k, n in enumerate(self.shape):
                last = k == len(self.shape) - 1
                if last and self._value_type != "C2C":
                    plan = Plan1d(n, self.fft_type, total // complex_shape[k])
                else:
                    after = math.prod(complex_shape[k + 1:]) * inner
                    if after > 1 and n > 1 and _ember.fft_radices(n) is not None:
                        # A column transform read in place: no transposed copies.
                        plan = _Columns(self._device, n, outer * math.prod(complex_shape[:k]), after, self._double)
                    else:
                        plan = Plan1d(n, code, total // n)
                        plan._callbacks = None  # callbacks run once, around the whole transform
                self._axes_plans.append(plan)
        natives = [self._native] + [p for plan in self._axes_plans for p in plan.work_area.mem.owner]
        self.work_area = _work_area(natives)
        self._callbacks = get_current_callback_manager()

    def __repr__(self):
        return f"<PlanNd {self._value_type} shape={self.shape} batch={self.batch} order={self.order} on {self.engine}>"

    def _run(self, a: ndarray, out: ndarray, direction: int) -> None:
        if self.batch == 0 or a.size == 0:
            return
        inverse = direction == CUFFT_INVERSE
        # The arrays in memory order: C-contiguous views.
        src = a if self.order == "C" else a.T
        dst = out if self.order == "C" else out.T
        if self._native is not None:
            if self._value_type == "C2R":
                src = src.copy()  # cuFFT's C2R overwrites its input
            self._native.execute(src._a, dst._a, inverse)
            return
        rank = len(self.shape)
        first = src.ndim - rank if not self._inner_batch else 0
        axes = list(range(first, first + rank))
        x = src
        order = list(enumerate(axes))
        if self._value_type == "R2C":
            order = [order[-1]] + order[-2::-1]
        elif self._value_type == "C2R":
            order = order[-2::-1] + [order[-1]]
        else:
            order = order[::-1]
        for step, (k, ax) in enumerate(order):
            plan = self._axes_plans[k]
            if isinstance(plan, _Columns):
                x = x if x.flags.c_contiguous else x.copy()
                last = step == len(order) - 1 and dst.flags.c_contiguous and dst.shape == x.shape
                y = dst if last else empty(x.shape, x.dtype)
                plan.run(x, y, inverse)
                if last:
                    return
                x = y
                continue
            rows = moveaxis(x, ax, -1)
            if not rows.flags.c_contiguous:
                rows = rows.copy()
            y = plan.get_output_array(rows)
            plan.fft(rows, y, direction)
            x = moveaxis(y, -1, ax)
        dst[...] = x

    def _output_dtype_and_shape(self, a: ndarray):
        shape = list(a.shape)
        if self._value_type != "C2C":
            shape[self.last_axis] = self.last_size
        dtype = _real(self._double) if self._value_type == "C2R" else _complex(self._double)
        return tuple(shape), dtype

    def get_output_array(self, a: ndarray, order: str = "C") -> ndarray:
        if order != "C":
            shape, dtype = self._output_dtype_and_shape(a)
            return empty(shape, dtype, order=order)
        shape = list(a._a.shape)
        if self._value_type != "C2C":
            shape[self.last_axis] = self.last_size
        return _ember.wrap(_ember.empty(self._device, shape, self._out_name))  # as Plan1d's

    def check_output_array(self, a: ndarray, out: ndarray) -> None:
        if out is a:
            return
        shape, dtype = self._output_dtype_and_shape(a)
        if out.ndim != a.ndim:
            raise ValueError("output dimension mismatch")
        if out.shape != shape:
            raise ValueError("output shape mismatch")
        if out.dtype != dtype:
            raise ValueError("output dtype mismatch")
        if (out.flags.f_contiguous, out.flags.c_contiguous) != (a.flags.f_contiguous, a.flags.c_contiguous):
            raise ValueError("output contiguity mismatch")


def getVersion() -> int:  # noqa: N802  (CuPy's name)
    """cuFFT's version (``11303`` for 11.3.3); 0 where cuFFT is not found (OpenCL devices), as
    ``ember.cuda.runtime.runtimeGetVersion`` answers there."""
    return _ember.cufft_version() or 0
