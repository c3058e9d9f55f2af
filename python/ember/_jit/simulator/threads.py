"""The simulator's threads: Python threads that run a block's CUDA threads one at a time, the
rendezvous that ``syncthreads`` and the warp functions wait at, and the abort that ends a block
when one of its threads raises.

A thread that returns releases any barrier the others wait at (as on the hardware,
``syncthreads`` counts the threads still running), and a barrier no running thread can complete
is reported as a deadlock, not a hang.
"""

from __future__ import annotations

import threading
from collections import deque
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
    """What the threads of one launch share: which threads still run, which are ready to run,
    the first failure, and the rendezvous by name.

    One simulated thread runs at a time and hands a baton on: a thread that waits at a barrier
    wakes the next ready thread and sleeps on its own semaphore; the thread that completes a
    barrier makes the others ready and runs on. (A shared condition woke every waiter at every
    barrier instead, which cost seven times as much.)"""

    def __init__(self):
        self.running: set = set()  # Thread contexts that have not returned
        self.failure: tuple | None = None  # (exception, thread context) of the first to raise
        self.rendezvous: dict = {}
        self.cooperative = False  # the whole grid runs at once (grid.sync())
        self.ready: deque = deque()  # threads to run, in order
        self.wake: dict = {}  # thread context -> the semaphore its worker sleeps on (thread pool)
        self.done = threading.Event()
        self.scheduler = None  # the greenlet that runs the threads (greenlet mode)

    def suspend(self, thread) -> None:
        """``thread`` waits: back to the scheduler's greenlet, or asleep on its semaphore."""
        if self.scheduler is not None:
            self.scheduler.switch()
        else:
            self.wake[thread].acquire()

    def meet(self, key, name: str, parties, member, value=None) -> dict:
        """Waits until ``parties()`` threads have arrived at rendezvous ``key``; gives the
        values they brought, by ``member``."""
        point = self.rendezvous.get(key)
        if point is None:
            point = self.rendezvous[key] = Rendezvous(name, parties)
        point.values[member] = value
        if point.complete():
            self._release(point, member)
            return point.result
        self._hand_on()
        self.suspend(member)  # until the baton comes back
        if self.failure is not None:
            raise Aborted
        return point.result

    def leave(self, thread) -> None:
        """A thread returned: barriers stop waiting for it, and the baton goes on."""
        self.running.discard(thread)
        for point in list(self.rendezvous.values()):
            if point.complete():
                self._release(point)
        if self.scheduler is not None:
            return
        if self.running or self.ready:
            self._hand_on()
        else:
            self.done.set()

    def fail(self, error: BaseException, thread) -> None:
        if self.failure is None:
            self.failure = (error, thread)
        self._wake_waiters()

    def _release(self, point: Rendezvous, arriving=None) -> None:
        """The waiters become ready; the thread that arrived last runs on."""
        waiters = [w for w in point.values if w is not arriving]
        point.release()
        self.ready.extend(w for w in waiters if w in self.running and w not in self.ready)

    def _wake_waiters(self) -> None:
        for point in self.rendezvous.values():
            self.ready.extend(w for w in point.values if w not in self.ready)
            point.values = {}

    def _hand_on(self) -> None:
        if self.scheduler is not None:  # the scheduler's loop picks the next ready thread
            return
        self.check_deadlock()
        if self.ready:
            self.wake[self.ready.popleft()].release()

    def check_deadlock(self) -> None:
        if not self.ready and self.running:
            # Every running thread waits at a barrier that has not released: none can arrive.
            where = sorted({p.name for p in self.rendezvous.values() if p.values})
            if self.failure is None:
                self.failure = (Deadlock(
                    f"deadlock: every running thread waits at a barrier ({', '.join(where)}) that the others never "
                    "reach; a barrier inside a branch must be reached by every thread of the block (or warp)"), None)
            self._wake_waiters()


class Pool:
    """Python threads that run simulated threads, reused from block to block: worker ``k`` runs
    thread ``k`` of each block it is given."""

    def __init__(self):
        self._workers: list = []
        self._semaphores: list = []
        self._jobs: list = []

    def run(self, launch: Launch, threads: list, body) -> None:
        """Runs ``body(thread)`` for every thread, one at a time, handing the baton at barriers;
        returns when all have returned."""
        while len(self._workers) < len(threads):
            self._spawn()
        for k, thread in enumerate(threads):
            self._jobs[k] = (body, thread)
            launch.wake[thread] = self._semaphores[k]
        launch.running = set(threads)
        launch.ready = deque(threads)
        launch.done.clear()
        launch.wake[launch.ready.popleft()].release()
        launch.done.wait()

    def close(self) -> None:
        for k in range(len(self._workers)):
            self._jobs[k] = None
            self._semaphores[k].release()
        for w in self._workers:
            w.join()

    def _spawn(self) -> None:
        k = len(self._workers)
        semaphore = threading.Semaphore(0)
        self._semaphores.append(semaphore)
        self._jobs.append(None)

        def work():
            while True:
                semaphore.acquire()
                job = self._jobs[k]
                if job is None:
                    return
                body, thread = job
                body(thread)

        worker = threading.Thread(target=work, daemon=True, name=f"ember-simulator-{k}")
        self._workers.append(worker)
        worker.start()


def greenlets_available() -> bool:
    try:
        import greenlet  # noqa: F401
    except ImportError:
        return False
    return True


def run_greenlets(launch: Launch, threads: list, body, enter) -> None:
    """Runs ``body(thread)`` for every thread as a greenlet, switching at barriers: the fast
    way (a switch costs about a microsecond, a Python thread's wake-up tens of them)."""
    from greenlet import getcurrent, greenlet

    launch.scheduler = getcurrent()
    launch.running = set(threads)
    launch.ready = deque(threads)
    runs = {t: greenlet(lambda t=t: body(t)) for t in threads}
    while True:
        while launch.ready:
            thread = launch.ready.popleft()
            enter(thread)  # the device API answers for it (greenlets share the OS thread)
            runs[thread].switch()
        if not launch.running:
            return
        launch.check_deadlock()  # threads wait, none is ready
