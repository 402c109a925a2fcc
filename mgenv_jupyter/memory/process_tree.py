"""The kernel's process tree: this process and all its descendants (DataLoader workers, launcher children, ...)."""

from __future__ import annotations

import os
import threading
import time
from typing import Any


class ProcessTree:
    """PIDs (and psutil handles) of a root process and every descendant, recomputed at most every `max_age` seconds.

    Walking the tree reads the whole process table, so it is cached: a worker started less than `max_age` ago may be
    missed for that long. `refresh()` forces a new walk.
    """

    def __init__(self, root: int | None = None, max_age: float = 1.0) -> None:
        self.root = os.getpid() if root is None else root
        self.max_age = max_age
        self._pids: frozenset[int] = frozenset({self.root})
        self._processes: list[Any] = []
        self._former: dict[int, None] = {}  # PIDs that were in the tree and have exited, oldest first
        self._walked = -float("inf")
        self._lock = threading.Lock()

    def pids(self) -> frozenset[int]:
        self._maybe_refresh()
        return self._pids

    def former(self) -> frozenset[int]:
        """PIDs of descendants that have exited (the last 1024): NVML may still list them for a moment."""
        return frozenset(self._former)

    def processes(self) -> list[Any]:
        """psutil.Process objects of the tree (the root first)."""
        self._maybe_refresh()
        return list(self._processes)

    def refresh(self) -> None:
        import psutil

        with self._lock:
            try:
                root = psutil.Process(self.root)
                processes = [root, *root.children(recursive=True)]
            except psutil.Error:  # the root itself is gone (only possible for a foreign root)
                processes = []
            pids = frozenset(p.pid for p in processes) | {self.root}
            for pid in self._pids - pids:
                self._former[pid] = None
            while len(self._former) > 1024:
                del self._former[next(iter(self._former))]
            self._processes = processes
            self._pids = pids
            self._walked = time.monotonic()

    def _maybe_refresh(self) -> None:
        if time.monotonic() - self._walked >= self.max_age:
            self.refresh()

    def rss(self) -> int:
        """Sum of the resident set sizes of the tree. Pages shared between processes (fork's copy-on-write) count once
        per process, so this over-states what the tree would free by exiting."""
        import psutil

        total = 0
        for process in self.processes():
            try:
                total += process.memory_info().rss
            except psutil.Error:  # exited since the last walk
                continue
        return total
