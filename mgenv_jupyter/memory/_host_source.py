"""Host memory: what the kernel's process tree holds in RAM, and the machine's used/total. The fallback chart when no
GPU is visible, and a useful line beside one (CPU tensors, DataLoader workers)."""

from __future__ import annotations

import time

from .._source_state import STATE_OK, State
from ._proc_figures import host_memory
from ._process_tree import ProcessTree
from ._sample import Sample


class HostSource:
    """RSS of the kernel and its descendants (`process`, summed; shared pages count once per process) and the
    machine's memory in use (`used` = total − available) and `total`, as device "host"."""

    name = "host"
    simulated = False

    def __init__(self, tree: ProcessTree | None = None) -> None:
        self.tree = tree if tree is not None else ProcessTree()
        self._state = State("not_sampled")

    @property
    def state(self) -> State:
        return self._state

    def sample(self) -> list[Sample]:
        try:
            total, available = machine_memory()
            process = self.tree.rss()
        except Exception as exc:  # psutil can fail on exotic /proc setups; the chart shows why
            self._state = State("host_unavailable", error=f"{type(exc).__name__}: {exc}")
            return []
        self._state = STATE_OK
        return [Sample(time.time(), self.name, "host", used=total - available, total=total, process=process)]

    def close(self) -> None:
        pass


def machine_memory() -> tuple[int, int]:
    """The machine's total and available memory in bytes: /proc/meminfo's MemTotal and MemAvailable on Linux (what
    psutil's virtual_memory reads there), psutil elsewhere."""
    figures = host_memory()
    if figures is not None:
        return figures
    import psutil

    memory = psutil.virtual_memory()
    return memory.total, memory.available
