"""Host memory: what the kernel's process tree holds in RAM, and the machine's used/total. A device of its own in
every view, GPU or not: the whole chart when no GPU is visible, and beside one the kernel's own line (CPU tensors,
DataLoader workers, NumPy arrays), so that a cell's record, a leak and a host-memory error read the host too."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..base._source_state import HOST_IDLE, STATE_OK, State
from ._proc_figures import host_memory
from ._process_tree import ProcessTree
from ._sample import DeviceId, Sample

if TYPE_CHECKING:
    from ._nvml_source import NvmlSource


class HostSource:
    """RSS of the kernel and its descendants (`process`, summed; shared pages count once per process) and the
    machine's memory in use (`used` = total − available) and `total`, as device "host".

    With `gpus` (the chart's NVML source), while it sees a GPU only `process` is read: the machine's total would set
    the chart's scale far above the GPUs' lines, and the kernel's own figure is what a cell's record and a
    host-memory error need. `fallback=True` (a cluster node's sampler, whose own process is no user's): nothing at
    all while a GPU is visible, the host only without one."""

    name = "host"
    simulated = False

    def __init__(self, tree: ProcessTree | None = None, gpus: NvmlSource | None = None, fallback: bool = False) -> None:
        self.tree = tree if tree is not None else ProcessTree()
        self.gpus = gpus
        self.fallback = fallback
        self._state = State("not_sampled")

    @property
    def state(self) -> State:
        return self._state

    @property
    def idle(self) -> bool:
        """A fallback beside a GPU has nothing to read: the sampler asks it once a second."""
        return self.fallback and self.gpus is not None and bool(self.gpus.device_count)

    def sample(self) -> list[Sample]:
        beside_gpus = self.gpus is not None and bool(self.gpus.device_count)
        if beside_gpus and self.fallback:
            self._state = State(HOST_IDLE)
            return []
        try:
            total, available = (None, None) if beside_gpus else machine_memory()
            process = self.tree.rss()
        except Exception as exc:  # psutil can fail on exotic /proc setups; the chart shows why
            self._state = State("host_unavailable", error=f"{type(exc).__name__}: {exc}")
            return []
        self._state = STATE_OK
        used = None if total is None or available is None else total - available
        return [Sample(time.time(), self.name, "host", used=used, total=total, process=process)]

    def close(self) -> None:
        pass


HOST = DeviceId("host")


def kernel_rss(by_device: Mapping[DeviceId, Mapping[str, int]], tree: ProcessTree) -> int | None:
    """What the kernel's process tree holds in host memory: the host's figure of a sample (`Sampler.sample_devices`,
    the reading the chart and the cells' records show) where it has one, else `tree.rss()` now (the sampler's tree,
    `kernel_tree`). Every view reads resident memory through `ProcessTree.rss()`: /proc/PID/statm, or psutil."""
    figure = by_device.get(HOST, {}).get("process")
    if figure is not None:
        return int(figure)
    try:
        return tree.rss() or None
    except Exception:  # psutil can fail on exotic /proc setups: the view says it has no figure
        return None


def machine_memory() -> tuple[int, int]:
    """The machine's total and available memory in bytes: /proc/meminfo's MemTotal and MemAvailable on Linux (what
    psutil's virtual_memory reads there), psutil elsewhere."""
    figures = host_memory()
    if figures is not None:
        return figures
    import psutil

    memory = psutil.virtual_memory()
    return memory.total, memory.available
