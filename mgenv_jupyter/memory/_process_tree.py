"""The kernel's process tree: this process and all its descendants (DataLoader workers, launcher children, ...)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable
from typing import Any

from ._proc_figures import resident_bytes

_FORMER_LIMIT = 1024


class ProcessTree:
    """PIDs of a root process and every descendant, recomputed at most every `max_age` seconds.

    A worker started less than `max_age` ago may be missed for that long; `refresh()` forces a new walk. On Linux the
    walk follows /proc/<pid>/task/<tid>/children from the root down (it touches only the tree, not the whole process
    table) and `rss()` reads /proc/<pid>/statm, as psutil does there; elsewhere, or where the kernel lacks those files,
    it asks psutil (imported then: loading the extension does not import it on Linux).
    """

    def __init__(self, root: int | None = None, max_age: float = 1.0) -> None:
        self.root = os.getpid() if root is None else root
        self.max_age = max_age
        self._pids: frozenset[int] = frozenset({self.root})
        self._handles: dict[int, Any] = {}  # pid → psutil.Process, created on demand for rss()
        self._former: dict[int, None] = {}  # PIDs that were in the tree and have exited, oldest first
        self._walked = -float("inf")
        self._proc_children = os.path.exists(f"/proc/{self.root}/task/{self.root}/children")
        self._proc_statm = os.path.exists(f"/proc/{self.root}/statm")
        self._lock = threading.Lock()

    def pids(self) -> frozenset[int]:
        if time.monotonic() - self._walked >= self.max_age:
            self.refresh()
        return self._pids

    def former(self) -> frozenset[int]:
        """PIDs of descendants that have exited (the last 1024): NVML may still list them for a moment."""
        return frozenset(self._former)

    def refresh(self) -> None:
        with self._lock:
            pids = frozenset(self._walk()) | {self.root}
            for pid in self._pids - pids:
                self._former[pid] = None
                self._handles.pop(pid, None)
            while len(self._former) > _FORMER_LIMIT:
                del self._former[next(iter(self._former))]
            if pids != self._pids:  # the same object while nothing changed: readers compare by identity
                self._pids = pids
            self._walked = time.monotonic()

    def _walk(self) -> list[int]:
        if self._proc_children:
            try:
                return _proc_descendants(self.root)
            except OSError:  # the root itself vanished, or /proc changed under us: ask psutil
                pass
        import psutil

        try:
            root = psutil.Process(self.root)
            return [self.root, *(p.pid for p in root.children(recursive=True))]
        except psutil.Error:
            return []

    def rss(self) -> int:
        """Sum of the resident set sizes of the tree. Pages shared between processes (fork's copy-on-write) count once
        per process, so this over-states what the tree would free by exiting."""
        if self._proc_statm:
            return sum(resident_bytes(pid) or 0 for pid in self.pids())  # 0 once a process has exited
        import psutil

        total = 0
        for pid in self.pids():
            try:
                handle = self._handles.get(pid)
                if handle is None:
                    handle = self._handles[pid] = psutil.Process(pid)
                total += handle.memory_info().rss
            except psutil.Error:  # exited since the last walk
                self._handles.pop(pid, None)
        return total


def kernel_tree(sources: Iterable[object] = ()) -> ProcessTree:
    """The kernel's process tree as its sampler's sources follow it (the host source's, NVML's), so that every reader
    walks the same tree; a new one of this process where no source has one."""
    for source in sources:
        tree = getattr(source, "tree", None)
        if isinstance(tree, ProcessTree):
            return tree
    return ProcessTree()


def _proc_descendants(root: int) -> list[int]:
    """The root and its descendants from /proc/<pid>/task/<tid>/children (Linux, CONFIG_PROC_CHILDREN)."""
    found = [root]
    stack = [root]
    while stack:
        pid = stack.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            if pid == root:
                raise
            continue  # exited during the walk
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    children = f.read().split()
            except OSError:
                continue
            for child in children:
                found.append(int(child))
                stack.append(int(child))
    return found
