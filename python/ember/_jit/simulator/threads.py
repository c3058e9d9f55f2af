"""The simulator's threads: one Python thread per CUDA thread of a block, the rendezvous that
``syncthreads`` and the warp functions wait at, and the abort that ends a block when one of its
threads raises.

Every thread of a launch shares one condition variable, so a thread that exits releases any
barrier the others wait at (as on the hardware, ``syncthreads`` counts the threads still
running), and a barrier no running thread can complete is reported as a deadlock, not a hang.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

_local = threading.local()


def current():
    thread = getattr(_local, "thread", None)
    if thread is None:
        raise RuntimeError("the cuda device API answers only inside a kernel the simulator runs (EMBER_SIMULATE=1)")
    return thread


def enter(thread) -> None:
    """Makes ``thread`` the one the device API answers for on this Python thread."""
    _local.thread = thread


def running():
    """The simulated thread on this Python thread, or None outside a launch."""
    return getattr(_local, "thread", None)


def where() -> str:
    thread = getattr(_local, "thread", None)
    return thread.where() if thread is not None else "outside a kernel"



class Aborted(BaseException):  # noqa: N818  (not an error of the kernel: unwinds a waiting thread)
    """Raised in a thread waiting at a barrier when another thread of the launch failed."""


class Deadlock(RuntimeError):
    """Every running thread waits at a barrier that cannot complete."""


@dataclass
class Rendezvous:
    """A barrier that also gathers one value per arriving thread (``syncthreads_count``,
    ``shfl_sync``...). ``parties`` says how many threads it waits for now."""

    name: str
    parties: object  # () -> int: the threads it waits for, given who is still running
    values: dict = field(default_factory=dict)
    result: dict = field(default_factory=dict)
    generation: int = 0

    def complete(self) -> bool:
        return bool(self.values) and len(self.values) >= self.parties()

    def release(self) -> None:
        self.result, self.values = self.values, {}
        self.generation += 1


class Launch:
    """What the threads of one launch share: the lock and condition every wait uses, which
    threads still run, the first failure, and the rendezvous by name."""

    def __init__(self):
        self.cond = threading.Condition()
        self.running: set = set()  # ThreadContext of the threads that have not returned
        self.failure: tuple | None = None  # (exception, thread context) of the first to raise
        self.rendezvous: dict = {}
        self.cooperative = False  # the whole grid runs at once (grid.sync())

    def meet(self, key, name: str, parties, member, value=None) -> dict:
        """Waits until ``parties()`` threads have arrived at rendezvous ``key``; gives the
        values they brought, by ``member``."""
        with self.cond:
            point = self.rendezvous.get(key)
            if point is None:
                point = self.rendezvous[key] = Rendezvous(name, parties)
            point.values[member] = value
            if point.complete():
                point.release()
                self.cond.notify_all()
                return point.result
            generation = point.generation
            self._check_deadlock()
            while point.generation == generation:
                if self.failure is not None:
                    raise Aborted
                self.cond.wait()
            return point.result

    def leave(self, thread) -> None:
        """A thread returned: barriers stop waiting for it."""
        with self.cond:
            self.running.discard(thread)
            for point in self.rendezvous.values():
                if point.complete():
                    point.release()
            self.cond.notify_all()
            self._check_deadlock()

    def fail(self, error: BaseException, thread) -> None:
        with self.cond:
            if self.failure is None:
                self.failure = (error, thread)
            self.cond.notify_all()

    def _check_deadlock(self) -> None:
        # Called with the lock held: when every running thread waits at a barrier that has not
        # released, none can arrive.
        waiting = sum(len(p.values) for p in self.rendezvous.values())
        if self.running and waiting >= len(self.running) and self.failure is None:
            where = sorted({p.name for p in self.rendezvous.values() if p.values})
            self.failure = (Deadlock(
                f"deadlock: every running thread waits at a barrier ({', '.join(where)}) that the others never "
                "reach; a barrier inside a branch must be reached by every thread of the block (or warp)"), None)
            self.cond.notify_all()


def run_threads(contexts, body) -> None:
    """Runs ``body(context)`` on one Python thread per context, all at once, and waits for
    them; ``launch.failure`` holds the first exception."""
    workers = [threading.Thread(target=body, args=(c,), daemon=True) for c in contexts]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
