"""ember's exceptions: one hierarchy rooted at :class:`EmberError`.

The native module raises these by name (``crates/ember-py/src/errors.rs``), one class per
variant of the Rust error type.
"""

from __future__ import annotations


class EmberError(Exception):
    """Base class of every error ember raises itself."""


class CompileError(EmberError):
    """Kernel source did not compile.

    Keeps ``backend``, ``name``, ``options``, the compiler's full ``log`` and the ``source``;
    ``str()`` shows the log and the numbered source lines around the first failing line.
    """

    def __init__(self, message, *, backend="", name="", options=(), log="", source=""):
        super().__init__(message)
        self.backend = backend
        self.name = name
        self.options = list(options)
        self.log = log
        self.source = source

    def __str__(self):
        text = super().__str__()
        excerpt = _numbered_excerpt(self.source, self.log)
        return f"{text}\n{excerpt}" if excerpt else text


class JitError(EmberError):
    """A Python kernel uses something ember's compiler does not support."""


class DriverError(EmberError):
    """A CUDA or OpenCL call failed; ``last_kernel`` names the last kernel launched."""

    def __init__(self, message, *, backend="", call="", code=0, name="", last_kernel=None):
        super().__init__(message)
        self.backend = backend
        self.call = call
        self.code = code
        self.name = name
        self.last_kernel = last_kernel


# cudaError_t codes ember raises itself, with CUDA's names and descriptions.
_CUDA_RUNTIME_ERRORS = {
    1: ("cudaErrorInvalidValue", "invalid argument"),
    2: ("cudaErrorMemoryAllocation", "out of memory"),
    21: ("cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"),
    100: ("cudaErrorNoDevice", "no CUDA-capable device is detected"),
    101: ("cudaErrorInvalidDevice", "invalid device ordinal"),
}


class CUDARuntimeError(DriverError, RuntimeError):
    """CuPy's ``cupy.cuda.runtime.CUDARuntimeError`` (also ``ember.cuda.runtime.CUDARuntimeError``):
    ``status`` is the ``cudaError_t`` code and ``str()`` starts as CuPy's, ``"cudaErrorX: text"``;
    ``detail`` adds what ember knows. Raised on every backend, as CuPy code expects it."""

    def __init__(self, status, detail=""):
        name, text = _CUDA_RUNTIME_ERRORS.get(int(status), (f"cudaError{int(status)}", "unknown error"))
        message = f"{name}: {text}" + (f" ({detail})" if detail else "")
        super().__init__(message, call=name, code=int(status), name=name)
        self.status = int(status)
        self.detail = detail

    def __reduce__(self):
        return (type(self), (self.status, self.detail))


class InvalidDeviceError(CUDARuntimeError, ValueError):
    """A device number that does not exist: CuPy's ``CUDARuntimeError`` (cudaErrorInvalidDevice),
    and a ``ValueError`` as ember raised before."""

    def __init__(self, status=101, detail=""):
        super().__init__(status, detail)


class LogicError(DriverError):
    """The API was used wrongly: PyCUDA's ``LogicError`` (``ember.cuda.driver.LogicError``), its class
    for most CUDA error codes."""


class DeviceFunctionLaunchError(EmberError, TypeError, RuntimeError):
    """A device function launched as a kernel (``f[1, 1]()`` of ``@cuda.jit(device=True)``):
    a ``TypeError``, and the ``RuntimeError`` Numba raises."""


class LaunchError(DriverError):
    """A kernel launch failed, ran out of resources or timed out: PyCUDA's ``LaunchError``."""


class LaunchConfigurationError(LogicError, ValueError):
    """A launch shape the device cannot run (a block with too many threads, a size of 0), found
    before the launch. PyCUDA raises ``LogicError`` for it (the driver's invalid-value error), code
    written for CuPy and Numba catches ``ValueError``: this is both."""


class BackendUnavailableError(EmberError, ImportError):
    """A backend, library or device is missing; the message says what to install or use."""

    def __init__(self, message, *, backend=""):
        super().__init__(message)
        self.backend = backend


class ForkedProcessError(DriverError, RuntimeError):
    """A device call in a child forked after ember opened its devices; the message says to use
    the ``spawn`` start method (PyTorch raises a ``RuntimeError`` for the same reason, Numba a
    ``CudaDriverError``: "CUDA initialized before forking")."""


class DeviceResetError(EmberError, RuntimeError):
    """An array (or stream) made before its device was reset: a kernel fault lost the
    device's context, ember opened a new one, and everything made in the old one is gone."""


class OutOfBoundsError(EmberError, IndexError):
    """Checked mode (``EMBER_CHECKED=1``, or ``@jit(boundscheck=True)``) found a kernel reading or
    writing outside an array: the message names the kernel, the array, the index, the axis and
    the block and thread; the access itself was redirected, so memory outside the array is intact."""


class OutOfMemoryError(EmberError, MemoryError):
    """A device allocation failed after the pool freed its cached blocks."""

    def __init__(self, message, *, requested=0, used_bytes=0, total_bytes=0, limit=None):
        super().__init__(message)
        self.requested = requested
        self.used_bytes = used_bytes
        self.total_bytes = total_bytes
        self.limit = limit


def _failing_lines(log: str) -> list[int]:
    """Line numbers the compiler log blames on its error lines (NVRTC: ``k.cu(12): error``;
    clang-based OpenCL: ``file.cl:12:5: error``; NVIDIA's OpenCL: ``<kernel>:12:5: error``)."""
    import re

    # file.cl:12:5 (clang, PoCL), k.cu(12) (NVRTC), <kernel>:12:5 (NVIDIA's OpenCL)
    position = re.compile(r"(?:\.(?:cl|cu)|<\w+>)(?::(\d+):|\((\d+)\))")
    found = []
    for line in log.splitlines():
        if "error" in line:
            m = position.search(line)
            if m:
                found.append(int(m.group(1) or m.group(2)))
    return found


def _numbered_excerpt(source: str, log: str, context: int = 2) -> str:
    if not source:
        return ""
    lines = source.splitlines()
    failing = _failing_lines(log)
    if not failing:
        return ""
    first = failing[0]
    lo, hi = max(1, first - context), min(len(lines), first + context)
    width = len(str(hi))
    out = ["source:"]
    for n in range(lo, hi + 1):
        mark = ">" if n in failing else " "
        out.append(f"{mark}{n:>{width}} | {lines[n - 1]}")
    return "\n".join(out)


class EmberWarning(UserWarning):
    """The base of ember's warnings (Numba's ``NumbaWarning``): ``warnings.simplefilter("error",
    EmberWarning)`` turns every one of them into an error."""


class JitWarning(EmberWarning):
    """A kernel compiles, but does something other than its Python text says (Numba's
    ``NumbaWarning``): e.g. ``print`` of more than 32 items prints its format string."""


class PerformanceWarning(EmberWarning):
    """Code that works but is slow (Numba's ``NumbaPerformanceWarning``): e.g. a NumPy array
    passed to a kernel is copied in and back on every launch."""
