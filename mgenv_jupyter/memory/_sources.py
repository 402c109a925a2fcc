"""The sources a chart uses by default: the simulated GPU when asked for, NVML, the framework allocators, and host
memory (the whole host while no GPU is visible, the kernel's own RSS beside one: memory/_host_source.py)."""

from __future__ import annotations

import logging
import os
import sys
import time

from ..base._errors import InvalidValueError
from ..base._source_state import State
from ._framework_sources import framework_sources, nvml_index
from ._host_source import HostSource
from ._nvml_source import NvmlSource
from ._process_tree import ProcessTree
from ._sample import MemorySource, Sample
from .simulated import ENV

log = logging.getLogger(__name__)


class UnavailableSource:
    """A source that cannot work, shown with the reason (e.g. a bad `MGENV_SIMULATE_GPU`)."""

    simulated = False
    idle = True

    def __init__(self, name: str, state: State) -> None:
        self.name = name
        self.state = state

    def sample(self) -> list[Sample]:
        return []

    def close(self) -> None:
        pass


def _follow_environment() -> None:
    """Start, change or stop the simulated GPU as `MGENV_SIMULATE_GPU` and the Jupyter server's simulated machine say.
    With none asked for, none running and none on the server, the simulation's modules are not imported at all: a
    kernel without it never pays for them."""
    from .simulated._machine_file import server_machine_defined

    if (os.environ.get(ENV, "").strip() or f"{__package__}.simulated._simulation" in sys.modules
            or server_machine_defined()):
        from .simulated._simulation import from_environment

        from_environment()


def follow_simulated_gpu() -> None:
    """Start, change or stop the simulated GPU now, as MGENV_SIMULATE_GPU and the server's machine say (the
    out-of-memory hook asks after every cell, so a variable set in a cell holds from the next one, even where the
    recorder pauses during it); a bad value is logged and changes nothing."""
    try:
        _follow_environment()
    except InvalidValueError as exc:
        log.warning("mgenv_jupyter: the simulated GPU is not changed: %s", exc)


class SimulationFollower:
    """The NVML source's question, at most once a second: should the simulated GPU start, change or stop? So the
    sampler follows `MGENV_SIMULATE_GPU` set in a cell (or the server's machine defined anew) within a second,
    whoever started it first: a chart, the sidebar or the out-of-memory recorder. A bad value is logged once and
    changes nothing."""

    def __init__(self, seconds: float = 1.0) -> None:
        self.seconds = seconds
        self._next = 0.0
        self._refused = ""

    def __call__(self) -> None:
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + self.seconds
        try:
            _follow_environment()
        except InvalidValueError as exc:
            if str(exc) != self._refused:
                self._refused = str(exc)
                log.warning("mgenv_jupyter: the simulated GPU is not changed: %s", exc)


def default_sources(host_fallback: bool = False) -> list[MemorySource]:
    """NVML (the simulated GPU instead when `MGENV_SIMULATE_GPU` is set), MegEngine, Paddle, PyTorch, JAX, TensorFlow
    and MXNet allocators (idle until imported), and host memory (only the kernel's own while a GPU is visible; with
    `host_fallback`, a cluster node's, none then). One process-tree walk is shared."""
    sources, tree, nvml = _gpu_sources(ProcessTree(), None)
    sources.append(HostSource(tree, gpus=nvml, fallback=host_fallback))
    return sources


def measurement_sources(interval: float) -> list[MemorySource]:
    """The sources of a measurement (a sweep's point): as `default_sources`, but the process tree's GPU memory is
    read at every sample of `interval` seconds (the chart reads NVML's process list, which takes the driver's lock,
    at most once a second) and its host memory always, GPU or not: a measured cell's peaks are both."""
    tree = ProcessTree(max_age=interval)
    sources, tree, _ = _gpu_sources(tree, interval)
    sources.append(HostSource(tree))
    return sources


def _gpu_sources(tree: ProcessTree, process_interval: float | None) -> tuple[list[MemorySource], ProcessTree,
                                                                              NvmlSource]:
    sources: list[MemorySource] = []
    try:
        _follow_environment()
    except InvalidValueError as exc:
        sources.append(UnavailableSource("nvml (simulated)", State("simulation_refused", error=str(exc))))
    nvml = (NvmlSource(tree, follow=SimulationFollower()) if process_interval is None
            else NvmlSource(tree, process_interval=process_interval, process_refresh=process_interval,
                            follow=SimulationFollower()))

    def kernel_uses(ordinal: int) -> bool | None:
        index = nvml_index(ordinal)
        return None if index is None else nvml.uses_device(index)

    sources.append(nvml)
    sources.extend(framework_sources(gate=kernel_uses))
    return sources, tree, nvml




def gpu_devices() -> list[tuple[int, int]]:
    """(NVML index, total bytes) of every GPU NVML answers for (the simulated ones when `MGENV_SIMULATE_GPU` is set):
    one NVML read. A sweep runs one point per GPU at a time."""
    try:
        _follow_environment()
    except InvalidValueError:
        return []
    source = NvmlSource(ProcessTree(), process_interval=3600.0)
    try:
        return [(index, int(sample.total or 0)) for index, sample in enumerate(source.sample())]
    finally:
        source.close()


def gpu_total_bytes() -> int | None:
    """Memory of the first visible GPU (the simulated one when `MGENV_SIMULATE_GPU` is set), or None when no GPU
    answers. One NVML read; the DTR widget uses it to show its threshold as a share of the GPU."""
    try:
        _follow_environment()
    except InvalidValueError:
        return None
    source = NvmlSource(ProcessTree())
    try:
        totals = [sample.total for sample in source.sample() if sample.total]
    finally:
        source.close()
    return int(totals[0]) if totals else None


__all__ = ["ENV", "UnavailableSource", "default_sources", "gpu_devices", "gpu_total_bytes",
           "measurement_sources"]
