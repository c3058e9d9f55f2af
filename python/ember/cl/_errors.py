"""PyOpenCL's exceptions (``Error`` and its ``MemoryError``, ``LogicError``, ``RuntimeError``),
and the translation of ember's errors into them.

As in PyOpenCL the three subclasses do not derive from Python's builtins of the same name; the
classes ember.cl raises for a specific failure also derive from the builtin (or ember) exception
that fits, so ``except TypeError`` and ``except ember.CompileError`` work as well.
"""

from __future__ import annotations

import builtins

from .. import errors as _ember_errors
from ._constants import status_code


class Error(Exception):
    """Base class of ember.cl's errors: ``code`` (OpenCL status, or None), ``routine`` (the
    call that failed) and ``what`` (the message), as on PyOpenCL's errors."""

    def __init__(self, message="", *, routine="", code=None):
        super().__init__(message)
        self.routine = routine
        self.code = code

    @property
    def what(self) -> str:
        return str(self)

    def is_out_of_memory(self) -> bool:
        return self.code in (status_code.MEM_OBJECT_ALLOCATION_FAILURE, status_code.OUT_OF_RESOURCES)


class MemoryError(Error):
    """An allocation failed (``MEM_OBJECT_ALLOCATION_FAILURE``)."""


class LogicError(Error):
    """The program asked for something invalid (OpenCL's ``INVALID_*`` codes)."""


class RuntimeError(Error):
    """The request was valid but failed (a build failure, missing resources, ...)."""


class ProgramBuildError(RuntimeError, _ember_errors.CompileError):
    """``Program.build`` failed: ``str()`` has the build log and the numbered source lines
    around the first error; ``log``, ``source`` and ``options`` keep them."""

    def __init__(self, message, *, log, source, options):
        _ember_errors.CompileError.__init__(
            self, message, backend="OpenCL", name="cl.Program", options=options, log=log, source=source
        )
        self.routine = "clBuildProgram"
        self.code = status_code.BUILD_PROGRAM_FAILURE


class KernelArgumentError(LogicError, builtins.TypeError):
    """A kernel argument has a type the kernel cannot take."""


class InvalidValueError(LogicError, builtins.ValueError):
    """A size, offset or count is out of range (OpenCL's ``INVALID_VALUE`` family)."""


class KernelNameError(LogicError, builtins.AttributeError):
    """The program has no kernel of that name."""


class AllocationError(MemoryError, _ember_errors.OutOfMemoryError):
    """The device could not allocate a buffer."""

    def __init__(self, message, *, requested=0):
        _ember_errors.OutOfMemoryError.__init__(self, message, requested=requested)
        self.routine = "clCreateBuffer"
        self.code = status_code.MEM_OBJECT_ALLOCATION_FAILURE


def message(routine: str, code: int, detail: str = "") -> str:
    """PyOpenCL's message format: ``"<routine> failed: <STATUS> - <detail>"``."""
    text = f"{routine} failed: {status_code.to_string(code, '%d')}"
    return f"{text} - {detail}" if detail else text


def invalid(routine: str, code: int, detail: str, cls=InvalidValueError) -> Error:
    """An ``INVALID_*`` error raised by ember.cl's own checks."""
    return cls(message(routine, code, detail), routine=routine, code=code)


def from_driver(err: _ember_errors.DriverError) -> Error:
    """A failed OpenCL call as PyOpenCL classes it: allocation failures are MemoryError,
    ``INVALID_*`` codes LogicError, the other failures RuntimeError."""
    code = err.code
    if code == status_code.MEM_OBJECT_ALLOCATION_FAILURE:
        cls = MemoryError
    elif code <= status_code.INVALID_VALUE:
        cls = LogicError
    elif code < 0:
        cls = RuntimeError
    else:
        cls = Error
    return cls(str(err), routine=err.call, code=code)


def native_call(routine: str, work, code: int = status_code.INVALID_VALUE):
    """``work()``, a call into ember's native OpenCL objects, with its failures raised as
    PyOpenCL's classes: driver errors by their code, refused arguments as ``LogicError``."""
    try:
        return work()
    except _ember_errors.DriverError as e:
        raise from_driver(e) from None
    except ValueError as e:
        raise invalid(routine, code, str(e), cls=LogicError) from None
