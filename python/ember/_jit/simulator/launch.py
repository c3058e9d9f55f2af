"""Running a simulated launch: its configuration checked as the compiled kernels check it,
its blocks and threads made, and the threads run: one after another on the caller's thread for
kernels that never wait for one another, else a block's threads together, switching at
barriers (greenlets, or pooled Python threads without the greenlet package: ``threads.py``).
A failure leaves the launch led by the thread that raised it, with the kernel's traceback.
"""

from __future__ import annotations

import itertools

import numpy as np

from . import device_api as api
from .scope import MEETS, reach
from .threads import Aborted, Launch, Pool, enter, greenlets_available, run_greenlets

MAX_THREADS_PER_BLOCK = 1024  # CUDA's limit, which the simulated kernels keep
# Kernels with barriers run as greenlets where the greenlet package is installed (ember's
# `simulator` extra), else on a pool of Python threads; tests switch this to check both.
GREENLETS = True


def _dims(value, what: str) -> api.Dim3:
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    if not 1 <= len(items) <= 3:
        raise ValueError(f"{what} must be a sequence of 1, 2 or 3 integers, got {items} "
                         "(an int or a tuple of 1 to 3 positive ints)")
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
        raise TypeError(f"{what} must be a sequence of integers, got {items} (an int or a tuple of 1 to 3 "
                        "positive ints)")
    return api.Dim3(*items)


def configuration(config):
    items = list(config) if isinstance(config, tuple) else [config]
    if not 2 <= len(items) <= 4:
        raise ValueError("a launch configuration is kernel[griddim, blockdim] or kernel[griddim, blockdim, stream, "
                         f"sharedmem], got {len(items)} item(s)")
    griddim, blockdim = _dims(items[0], "griddim"), _dims(items[1], "blockdim")
    if min(griddim) < 1 or min(blockdim) < 1:
        raise ValueError("griddim and blockdim must be at least 1 in every dimension, got "
                         f"griddim={items[0]} and blockdim={items[1]}")
    threads = blockdim[0] * blockdim[1] * blockdim[2]
    if threads > MAX_THREADS_PER_BLOCK:
        raise ValueError(f"blockdim={items[1]} asks for {threads} threads per block; CUDA blocks (and the "
                         f"simulator's) hold at most {MAX_THREADS_PER_BLOCK}")
    sharedmem = int(items[3]) if len(items) > 3 else 0
    return griddim, blockdim, sharedmem


class DivisionByZero(ZeroDivisionError, FloatingPointError):
    """A division by zero in a ``debug=True`` kernel: ``ZeroDivisionError`` as the compiled
    kernel raises it, and NumPy's ``FloatingPointError``, which Numba's simulator raises."""


def _raised(error: BaseException, thread) -> BaseException:
    """``error`` as the launch raises it: its message led by the thread, its traceback kept."""
    if thread is None:
        return error
    if type(error) is FloatingPointError and "divide by zero" in str(error):
        error = DivisionByZero(str(error)).with_traceback(error.__traceback__)
    text = str(error)
    message = f"{thread.where()}: {text}" if text else thread.where()
    try:
        named = type(error)(message)
    except Exception:  # an exception class that takes other arguments: the note names the thread
        error.add_note(f"raised by the simulated thread {thread.where()}")
        return error
    return named.with_traceback(error.__traceback__)


def _blocks(griddim, blockdim, launch, sharedmem):
    for z, y, x in itertools.product(range(griddim[2]), range(griddim[1]), range(griddim[0])):
        block = api.Block(api.Dim3(x, y, z), blockdim, griddim, launch, np.zeros(sharedmem, np.uint8))
        block.threads = [api.Thread(api.Dim3(tx, ty, tz), block) for tz, ty, tx in
                         itertools.product(range(blockdim[2]), range(blockdim[1]), range(blockdim[0]))]
        block.live = len(block.threads)
        yield block


def _run_in_turn(fn, args, griddim, blockdim, sharedmem, errors):
    """Thread after thread on this Python thread: kernels that never wait for one another."""
    launch = Launch()
    try:
        with np.errstate(**errors):
            for block in _blocks(griddim, blockdim, launch, sharedmem):
                for thread in block.threads:
                    launch.running = {thread}
                    enter(thread)
                    try:
                        fn(*args)
                    except Exception as error:
                        raise _raised(error, thread) from None
    finally:
        enter(None)


def _run_together(fn, args, blocks, errors, pool):
    """The threads of ``blocks`` on the pool's Python threads, taking turns at barriers."""
    launch = blocks[0].launch
    threads = [t for b in blocks for t in b.threads]

    def body(thread):
        enter(thread)
        try:
            with np.errstate(**errors):  # NumPy's error state is each thread's own
                fn(*args)
        except Aborted:
            pass
        except BaseException as error:  # noqa: BLE001  (re-raised on the launching thread)
            launch.fail(error, thread)
        finally:
            enter(None)
            thread.block.live -= 1
            launch.leave(thread)

    if pool is None:
        run_greenlets(launch, threads, body, enter)
        enter(None)
    else:
        pool.run(launch, threads, body)
    if launch.failure is not None:
        error, thread = launch.failure
        raise _raised(error, thread) from None


def run(fn, args, griddim, blockdim, sharedmem, kernel, errors):
    names, opaque = reach(kernel)
    if not ("this_grid" in names or opaque or names & MEETS):
        _run_in_turn(fn, args, griddim, blockdim, sharedmem, errors)
        return
    pool = None if GREENLETS and greenlets_available() else Pool()
    try:
        if "this_grid" in names:
            launch = Launch()
            launch.cooperative = True
            _run_together(fn, args, list(_blocks(griddim, blockdim, launch, sharedmem)), errors, pool)
        else:
            for block in _blocks(griddim, blockdim, None, sharedmem):
                block.launch = Launch()
                _run_together(fn, args, [block], errors, pool)
    finally:
        if pool is not None:
            pool.close()
