"""What memory looked like when a cell ran out of it: per GPU the total, what this kernel holds (NVML), what the
framework's allocator has allocated and reserved, and who else is on the device; for the host, the machine's memory
and the kernel's process tree.

Read once, right after the failure: one fresh sample from the kernel's sampler (the same sources the charts use, the
simulated GPU included, and the host's figure of the kernel's process tree), for which the sampler's NVML source reads
its process lists anew (it reads them at most once a second otherwise): the kernel's figure on each GPU, the point the
chart and the report's timeline show at the failure, and the other processes' all come from those lists, so that the
report's figures are of one moment and add up. Without a sampler, or where a list was refused, NVML's lists are read
once more here for the kernel's figure and the other processes together.

The error message's own figures (PyTorch's "allocated by PyTorch", "reserved but unallocated") stand in for an
allocator's counters only where no framework source read them (`MemoryState.with_error`), and say so
(`DeviceFigures.allocator_from_error`): they are of the error's moment, not of this reading's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..base._source_state import STATE_OK
from ..memory._host_source import kernel_rss, machine_memory
from ..memory._nvml_client import NvmlClient
from ..memory._nvml_source import NvmlSource
from ..memory._process_tree import ProcessTree, kernel_tree
from ..memory._server_owners import NotebookOwner, notebook_owners

if TYPE_CHECKING:
    from ..memory._sample import DeviceId
    from ..memory._sampler import Sampler


@dataclass(frozen=True)
class OtherProcess:
    """A process outside the kernel's tree that holds GPU memory: NVML's pid and bytes, the user and the name from
    psutil (None where the process is not visible here, e.g. another PID namespace), and, when it is another kernel
    of this kernel's Jupyter server, that kernel as the server's extension describes it (memory/_server_owners.py)."""

    gpu: int
    pid: int
    bytes: int | None
    user: str | None = None
    name: str | None = None
    owner: NotebookOwner | None = None


@dataclass(frozen=True)
class DeviceFigures:
    """One device at the failure. Sizes in bytes, None where no source knows them. `kernel`: what this kernel's
    process tree holds (NVML); `listed`: what the processes outside it that NVML's process list names hold (None:
    it names none); `allocated`/`reserved`: the framework allocator's counters, a framework source's, or where none
    read them the error message's (`allocator_from_error`: of the error's moment, not of this reading's).
    `others` is the one figure of what is not the kernel's that every part of a report says."""

    device: str  # as the sampler labels it: "gpu0", "gpu0 (simulated)", "host"
    gpu: int | None
    total: int | None = None
    used: int | None = None
    kernel: int | None = None
    allocated: int | None = None
    reserved: int | None = None
    simulated: bool = False
    listed: int | None = None
    allocator_from_error: bool = False

    @property
    def others(self) -> int | None:
        """What other processes hold: those NVML lists, or where it lists none, the device's use less the kernel's."""
        if self.listed is not None:
            return self.listed
        if self.used is None or self.kernel is None:
            return None
        return max(0, self.used - self.kernel)

    @property
    def unlisted(self) -> int | None:
        """The device's use that is neither the kernel's nor a listed process's (the driver's reserve, other
        containers' contexts); None where the processes were not listed."""
        if self.listed is None or self.used is None or self.kernel is None:
            return None
        return max(0, self.used - self.kernel - self.listed)

    @property
    def free(self) -> int | None:
        return None if self.total is None or self.used is None else max(0, self.total - self.used)

    @property
    def cached_free(self) -> int | None:
        """Reserved by the allocator but not allocated: fragmentation when a request still failed."""
        if self.allocated is None or self.reserved is None:
            return None
        return max(0, self.reserved - self.allocated)

    @property
    def error_above_reading(self) -> bool:
        """The error's reserved figure is more than NVML reads for the whole kernel now: the two are of different
        moments (or the error's message counts what NVML does not), and the report says so beside them."""
        return (self.allocator_from_error and self.reserved is not None and self.kernel is not None
                and self.reserved > self.kernel)


@dataclass(frozen=True)
class MemoryState:
    devices: tuple[DeviceFigures, ...] = ()
    processes: tuple[OtherProcess, ...] = ()
    host_total: int | None = None
    host_available: int | None = None
    kernel_rss: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def gpu(self, index: int | None) -> DeviceFigures | None:
        """The GPU `index` (the first GPU when None)."""
        gpus = [d for d in self.devices if d.gpu is not None]
        if index is None:
            return gpus[0] if gpus else None
        return next((d for d in gpus if d.gpu == index), None)

    def with_error(self, gpu: int | None, facts: Mapping[str, int]) -> MemoryState:
        """This state with the error message's allocator figures (`facts`: "allocated", "cached_free") on the GPU it
        names, where no framework source read that GPU's allocator: the one place a report takes them from."""
        device = self.gpu(gpu)
        if device is None or device.allocated is not None or "allocated" not in facts:
            return self
        allocated = facts["allocated"]
        cached = facts.get("cached_free")
        figures = replace(device, allocated=allocated, allocator_from_error=True,
                          reserved=None if cached is None else allocated + cached)
        return replace(self, devices=tuple(figures if d is device else d for d in self.devices))


def read_state(sampler: Sampler | None) -> MemoryState:
    """The memory state now, from one fresh sample of `sampler` (None: NVML's process list and the host only)."""
    by_device: dict[DeviceId, dict[str, int]] = {}
    notes: list[str] = []
    if sampler is not None:
        try:
            by_device = sampler.sample_devices(fresh=True)
        except Exception as exc:  # the report goes on with what else it can read
            notes.append(f"no sample: {type(exc).__name__}: {exc}")
    # The kernel's GPUs: a cluster node's (a series with a `node`) are another machine's.
    gpus = [(index, device, values) for device, values in by_device.items()
            if (index := device.gpu) is not None and not device.node]
    merged: dict[int, DeviceFigures] = {}
    # NVML's "gpuN" first, then framework sources ("torch gpuN"), which add the allocator's counters.
    for index, device, values in sorted(gpus, key=lambda d: (bool(d[1].framework), d[1].label)):
        known = merged.get(index)
        if known is None:
            merged[index] = DeviceFigures(device.label, index, values.get("total"), values.get("used"),
                                          values.get("process"), values.get("allocated"), values.get("reserved"),
                                          device.simulated)
        elif known.allocated is None and "allocated" in values:
            merged[index] = DeviceFigures(known.device, index, known.total or values.get("total"), known.used,
                                          known.kernel, values.get("allocated"), values.get("reserved"),
                                          known.simulated)
    host_total, host_available = _machine()
    tree = kernel_tree(getattr(sampler, "sources", ()))
    rss = kernel_rss(by_device, tree)
    source = _nvml_source(sampler)
    if source is not None and merged and all(index in source.listed for index in merged):
        # One reading: the sample's process lists, from which its kernel figure (the chart's point at the failure)
        # came; the other processes are the rest of the same lists.
        processes = _with_owners(_others(source.listed, source.tree.pids()))
    else:  # no sampler, or a list it could not read: NVML's lists read now, the kernel's figure from them too
        kernel: dict[int, int] = {}
        processes, problem = other_processes(sampler, kernel, tree)
        if problem:
            notes.append(problem)
        # Where the list names none of the kernel's pids (a container's own namespace) the sampler's figure, which
        # knows that case, stands.
        merged = {index: replace(figures, kernel=kernel.get(index, figures.kernel))
                  for index, figures in merged.items()}
    for index, figures in merged.items():
        listed = [p.bytes or 0 for p in processes if p.gpu == index]
        merged[index] = replace(figures, listed=sum(listed) if listed else None)
    return MemoryState(tuple(merged[i] for i in sorted(merged)), tuple(processes), host_total, host_available, rss,
                       tuple(notes))


def _nvml_source(sampler: Sampler | None) -> NvmlSource | None:
    return next((s for s in getattr(sampler, "sources", ()) if isinstance(s, NvmlSource)), None)


def _others(lists: Mapping[int, tuple[tuple[int, int | None], ...]], ours: frozenset[int]) -> list[OtherProcess]:
    """The processes of `lists` (GPU index → (pid, bytes) each) outside `ours`, biggest first."""
    found = [OtherProcess(index, pid, used, *_who(pid)) for index in sorted(lists) for pid, used in lists[index]
             if pid not in ours]
    found.sort(key=lambda p: -(p.bytes or 0))
    return found


def _machine() -> tuple[int | None, int | None]:
    try:
        return machine_memory()
    except Exception:  # psutil can fail on exotic /proc setups
        return None, None


def other_processes(sampler: Sampler | None, kernel: dict[int, int] | None = None, tree: ProcessTree | None = None
                    ) -> tuple[list[OtherProcess], str]:
    """Every process on every GPU outside the kernel's tree, biggest first, and the problem in words if NVML could
    not say; what the kernel's tree holds on each GPU in the same list goes into `kernel` (GPU index → bytes). NVML
    is asked through an NVML client of its own (memory/_nvml_client.py, as the sampler's and the server's readers
    are), initialised for this one reading and released after it; the fake NVML under `MGENV_SIMULATE_GPU` answers
    here as it does for the sampler. Without a driver nothing is listed: the devices say so already."""
    nvml = NvmlClient()
    try:
        ours: dict[int, int] = {} if kernel is None else kernel
        pids = (tree if tree is not None else kernel_tree(getattr(sampler, "sources", ()))).pids()
        listed = nvml.read(lambda pynvml: (_outside(nvml, pynvml, pids, ours), STATE_OK))
    finally:
        nvml.close()
    if listed is None:  # no driver, no pynvml, or NVML would not start: nothing to list
        return [], ""
    found, problem = listed
    if problem:
        return found, problem
    found.sort(key=lambda p: -(p.bytes or 0))
    return _with_owners(found), ""


def _outside(nvml: NvmlClient, pynvml: Any, ours: frozenset[int], kernel: dict[int, int]
             ) -> tuple[list[OtherProcess], str]:
    """The processes NVML lists on each device outside `ours`, and the problem in words where a list failed (with
    what was listed before it); what `ours` hold on each device goes into `kernel` (GPU index → bytes)."""
    found: list[OtherProcess] = []
    try:
        for index, device in enumerate(nvml.devices):
            try:
                listed = nvml.processes(pynvml, device.handle)
            except pynvml.NVMLError as exc:
                return found, f"NVML did not list gpu{index}'s processes: {exc}"
            for process in listed:
                used = process.usedGpuMemory
                if process.pid in ours:
                    if used is not None:
                        kernel[index] = kernel.get(index, 0) + int(used)
                    continue
                found.append(OtherProcess(index, int(process.pid), None if used is None else int(used),
                                          *_who(int(process.pid))))
    except Exception as exc:
        return found, f"NVML: {exc}"
    return found, ""


def _with_owners(found: list[OtherProcess]) -> list[OtherProcess]:
    """The processes, each that is another kernel of this server with its notebook (one request to the server)."""
    if not found:
        return found
    owners = notebook_owners([p.pid for p in found])
    return [replace(p, owner=owners[p.pid]) if p.pid in owners else p for p in found]


def _who(pid: int) -> tuple[str | None, str | None]:
    try:
        import psutil

        process = psutil.Process(pid)
        return process.username(), process.name()
    except Exception:  # another PID namespace, gone, or not ours to ask
        return None, None
