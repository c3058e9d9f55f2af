"""The plan cache (CuPy's ``cupy.fft._cache``): a least-recently-used cache of FFT plans per
thread and per device, bounded by a count (16 by default) and by the bytes of the plans' work
areas (unbounded by default). Making a plan costs far more than running it; a plan dropped
from the cache (evicted, deleted, cleared) gives its device memory back once nothing else
holds it."""

from __future__ import annotations

import threading

from .._runtime import current_device_id

_local = threading.local()


def _memsize(plan) -> int:
    work = getattr(plan, "work_area", None)
    return 0 if work is None else int(work.mem.size)


class _Node:
    """A cached plan and its key (what iterating the cache yields, beside the key)."""

    __slots__ = ("key", "plan", "memsize", "gpus", "prev", "next")

    def __init__(self, key, plan):
        self.key, self.plan = key, plan
        self.memsize = _memsize(plan)
        self.gpus = getattr(plan, "gpus", None)
        self.prev = self.next = None

    def __repr__(self):
        kind = type(self.plan).__name__
        return f"key: {self.key}, plan type: {kind}, memory usage: {self.memsize}"


class PlanCache:
    """A per-thread, per-device LRU cache of FFT plans. ``size`` plans at most (-1: no
    limit), ``memsize`` bytes of work areas at most (-1: no limit); 0 for either disables it.
    Iterating yields ``(key, node)`` from the most recently used plan."""

    def __init__(self, size: int = 16, memsize: int = -1, dev: int = -1):
        self._check(size, memsize)
        self.size, self.memsize = int(size), int(memsize)
        self.dev = current_device_id() if dev == -1 else int(dev)
        self._nodes: dict[tuple, _Node] = {}
        # A doubly linked list, least recently used first: iterating follows the links, so an
        # iteration that uses the plans it meets goes round and round (as CuPy's does).
        self._head, self._tail = _Node(None, None), _Node(None, None)
        self._head.next, self._tail.prev = self._tail, self._head
        self.curr_memsize = 0
        self.hits = self.misses = 0

    @staticmethod
    def _check(size: int, memsize: int) -> None:
        if size < -1 or memsize < -1:
            raise ValueError("invalid input")

    @property
    def is_enabled(self) -> bool:
        return self.size != 0 and self.memsize != 0

    # ---- mapping ----------------------------------------------------------------------------
    def get(self, key: tuple, default=None):
        """The plan of ``key`` (now the most recently used), or ``default``."""
        if not self.is_enabled:
            return default
        node = self._nodes.get(key)
        if node is None:
            self.misses += 1
            return default
        self._unlink(node)
        self._append(node)
        self.hits += 1
        return node.plan

    def __getitem__(self, key: tuple):
        if not self.is_enabled:
            return None
        plan = self.get(key, None)
        if plan is None:
            raise KeyError(f"plan not found for key: {key}")
        return plan

    def __setitem__(self, key: tuple, plan) -> None:
        if not self.is_enabled:
            return
        node = _Node(key, plan)
        if self.memsize > 0 and node.memsize > self.memsize:
            raise RuntimeError("the plan memsize is too large")
        if key in self._nodes:
            self._remove(key)
        self._evict_until(self.size - 1 if self.size != -1 else -1,
                          self.memsize - node.memsize if self.memsize != -1 else -1)
        self._nodes[key] = node
        self._append(node)
        self.curr_memsize += node.memsize

    def __delitem__(self, key: tuple) -> None:
        if not self.is_enabled:
            return
        if key not in self._nodes:
            self.misses += 1
            raise KeyError(f"plan not found for key: {key}")
        self.hits += 1
        self._remove(key)

    def __iter__(self):
        node = self._tail
        while node.prev is not self._head and node.prev is not None:
            node = node.prev
            yield node.key, node

    def __len__(self):
        return len(self._nodes)

    def _append(self, node: _Node) -> None:
        last = self._tail.prev
        last.next, node.prev, node.next, self._tail.prev = node, last, self._tail, node

    @staticmethod
    def _unlink(node: _Node) -> None:
        node.prev.next, node.next.prev = node.next, node.prev
        node.prev = node.next = None

    def _remove(self, key: tuple) -> None:
        node = self._nodes.pop(key)
        self._unlink(node)
        self.curr_memsize -= node.memsize

    def _evict_until(self, size: int, memsize: int) -> None:
        """Drops the least recently used plans until at most ``size`` plans and ``memsize``
        bytes are left (-1: no bound)."""
        while self._nodes and not ((size == -1 or len(self._nodes) <= size)
                                   and (memsize == -1 or self.curr_memsize <= memsize)):
            self._remove(self._head.next.key)

    # ---- CuPy's accessors -------------------------------------------------------------------
    def set_size(self, size: int) -> None:
        self._check(size, self.memsize)
        self._evict_until(size, self.memsize)
        self.size = int(size)

    def get_size(self) -> int:
        return self.size

    def get_curr_size(self) -> int:
        return len(self._nodes)

    def set_memsize(self, memsize: int) -> None:
        self._check(self.size, memsize)
        self._evict_until(self.size, memsize)
        self.memsize = int(memsize)

    def get_memsize(self) -> int:
        return self.memsize

    def get_curr_memsize(self) -> int:
        return self.curr_memsize

    def clear(self) -> None:
        """Drops every plan (their device memory goes back once nothing else holds them)."""
        while self._nodes:
            self._remove(self._head.next.key)
        self.curr_memsize = 0
        self.hits = self.misses = 0

    def show_info(self) -> None:
        print(self)

    def __repr__(self):
        limit = "(unlimited)"
        lines = [
            f"------------------- ember FFT plan cache (device {self.dev}) -------------------",
            f"cache enabled? {self.is_enabled}",
            f"current / max size   : {len(self._nodes)} / {limit if self.size == -1 else self.size} (counts)",
            f"current / max memsize: {self.curr_memsize} / {limit if self.memsize == -1 else self.memsize} (bytes)",
            f"hits / misses: {self.hits} / {self.misses} (counts)",
            "",
            "cached plans (most recently used first):",
        ]
        lines += [str(node) for _, node in self]
        return "\n".join(lines) + "\n"


def _caches() -> dict:
    caches = getattr(_local, "caches", None)
    if caches is None:
        caches = _local.caches = {}
    return caches


def get_plan_cache() -> PlanCache:
    """The plan cache of the current device, in this thread (made on first use)."""
    dev = current_device_id()
    caches = _caches()
    if dev not in caches:
        caches[dev] = PlanCache(dev=dev)
    return caches[dev]


def clear_plan_cache() -> None:
    """Drops every plan of the current device's cache in this thread."""
    get_plan_cache().clear()


def get_plan_cache_size() -> int:
    return get_plan_cache().get_size()


def set_plan_cache_size(size: int) -> None:
    get_plan_cache().set_size(size)


def get_plan_cache_max_memsize() -> int:
    return get_plan_cache().get_memsize()


def set_plan_cache_max_memsize(size: int) -> None:
    get_plan_cache().set_memsize(size)


def show_plan_cache_info() -> None:
    """Prints the plan cache of every device in this thread ("uninitialized" where this thread
    has none yet)."""
    from .._runtime import _ember

    caches = _caches()
    for dev in range(_ember.device_count()):
        if dev in caches:
            caches[dev].show_info()
        else:
            print(f"------------------- ember FFT plan cache (device {dev}) -------------------")
            print("(uninitialized)\n")
