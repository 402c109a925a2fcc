"""GPU memory from NVML (nvidia-ml-py): every device's used and total, and what the kernel's process tree holds on it.

NVML needs no CUDA context, so reading it never allocates GPU memory. Per-process figures are matched by PID against
the kernel and all its descendants; NVML reports host PIDs, so in a container with its own PID namespace nothing
matches, and the source says so instead of showing 0. Device totals are shown in every case.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from ..base._source_state import FOREIGN_PIDS, State, problems
from ._nvml_client import NvmlClient
from ._process_tree import ProcessTree
from ._sample import Sample

# The process list takes the driver's global lock and costs milliseconds on real GPUs (nvmlDeviceGetMemoryInfo costs
# about 12 µs), so it is read at most this often, whatever the sampling rate; MGENV_PROCESS_LIST_SECONDS changes it.
PROCESS_LIST_SECONDS = 1.0
MAX_LISTED = 4096  # processes kept per device from a list (a GPU runs far fewer; a driver's answer is bounded too)
PROCESS_LIST_ENV = "MGENV_PROCESS_LIST_SECONDS"


def process_list_seconds() -> float:
    """How often the process list may be read: MGENV_PROCESS_LIST_SECONDS (0.1 to 60), else once a second."""
    raw = os.environ.get(PROCESS_LIST_ENV)
    try:
        seconds = float(raw) if raw else PROCESS_LIST_SECONDS
    except ValueError:
        return PROCESS_LIST_SECONDS
    return min(max(seconds, 0.1), 60.0) if seconds == seconds else PROCESS_LIST_SECONDS


class NvmlSource:
    """Reads every NVIDIA GPU through NVML; `sample()` never raises (failures become `state`).

    NVML is initialised lazily, on the first sample; without a driver the source retries every `retry_seconds`.
    The device's use and total are read every sample (cheap, no driver lock). The process list — what the kernel's
    process tree holds — takes the driver's global lock, so it is read at most every `process_interval` seconds
    (once a second by default, as nvitop caches its process panel), and when neither the device's used memory nor
    the process tree changed, only every `process_refresh` seconds.
    An error in the middle of a run (a lost GPU, a driver reset) changes `state` and sampling goes on; the source
    recovers by itself when NVML answers again. Under the simulated GPU (`MGENV_SIMULATE_GPU`) every sample and the
    name say "simulated", and `simulation` names the scenario. `follow` is called before each sample (the kernel's
    sources pass what starts, changes or stops the simulated GPU, which asks at most once a second).
    """

    def __init__(self, tree: ProcessTree | None = None, retry_seconds: float = 10.0,
                 process_refresh: float = 5.0, process_interval: float | None = None,
                 follow: Callable[[], None] | None = None) -> None:
        self.tree = tree if tree is not None else ProcessTree()
        self.process_interval = process_list_seconds() if process_interval is None else process_interval
        self.process_refresh = max(process_refresh, self.process_interval)
        # Per device: (used, tree, when, kernel bytes, problem) at the last process-list query; while used and the
        # tree stay the same a sample costs one NVML call per device.
        self._known: dict[int, tuple[int, frozenset[int], float, int | None, State | None]] = {}
        self._kernel_bytes: dict[int, int | None] = {}
        # Per device: the process list as last read, (pid, bytes or None) each, so that an out-of-memory report takes
        # the kernel's figure and the other processes' from one list (absent where the list was refused).
        self.listed: dict[int, tuple[tuple[int, int | None], ...]] = {}
        self._labels: list[str] = []  # "gpu0", "gpu1": the devices as NVML numbers them
        self._nvml = NvmlClient(retry_seconds, State("not_sampled"), on_start=self._started)
        self._follow = follow

    @property
    def name(self) -> str:
        return "nvml (simulated)" if self.simulated else "nvml"

    @property
    def simulated(self) -> bool:
        """Whether the last sample came from the simulated GPU (the fake NVML library)."""
        return self._nvml.simulated

    @property
    def simulation(self) -> str | None:
        """What the simulated GPU is (its scenario's name, e.g. "a100-40gb") when the last sample came from it."""
        return self._nvml.simulation

    @property
    def state(self) -> State:
        # Says what NVML does, simulated or not: `simulated` and `simulation` tell that it is the fake, so that a
        # front end names the simulation once instead of in every part of its status line.
        return self._nvml.state

    @property
    def device_count(self) -> int:
        return len(self._nvml.devices)

    def uses_device(self, index: int) -> bool | None:
        """Whether the kernel's process tree held memory on NVML device `index` at the last sample; None if unknown."""
        used = self._kernel_bytes.get(index)
        return None if used is None else used > 0

    def sample(self) -> list[Sample]:
        if self._follow is not None:
            self._follow()
        samples = self._nvml.read(self._read)
        return [] if samples is None else samples

    def refresh_processes(self) -> None:
        """Read the process lists again at the next sample, however recent the last: a reader that needs this
        moment's figures (an out-of-memory report) asks for it once."""
        self._known.clear()

    def close(self) -> None:
        """Release our NVML initialisation (NVML counts them); a later `sample()` initialises again."""
        self._nvml.close()

    def _started(self, pynvml: Any) -> None:
        count = len(self._nvml.devices)
        self._known.clear()
        self._labels = [f"gpu{i}" for i in range(count)]

    def _read(self, pynvml: Any) -> tuple[list[Sample], State]:
        simulated = self.simulated
        name = self.name
        labels = self._labels
        tree = self.tree.pids()
        samples = []
        found: list[State] = []
        devices = self._nvml.devices
        for index, (handle, mig) in enumerate(devices):
            try:
                memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
            except pynvml.NVMLError_Uninitialized:
                raise
            except pynvml.NVMLError as exc:
                found.append(State("nvml_device_error", device=f"gpu{index}", error=exc))
                self._kernel_bytes[index] = None
                continue
            used = memory.used
            now = time.monotonic()
            known = self._known.get(index)
            age = now - known[2] if known is not None else None
            # The list is read again when the device's use or the process tree changed, or it is old — but never
            # sooner than process_interval after the last read, whatever changed.
            if known is not None and age is not None and (age < self.process_interval or (
                    known[1] is tree and known[0] == used and age < self.process_refresh)):
                kernel, problem = known[3], known[4]
            else:
                kernel, problem = self._kernel_memory(pynvml, handle, mig, tree, index)
                self._known[index] = (used, tree, now, kernel, problem)
            self._kernel_bytes[index] = kernel
            if problem is not None:
                found.append(problem if len(devices) == 1 else problem.at(f"gpu{index}"))
            samples.append(Sample(time.time(), name, labels[index], used=used, total=memory.total, process=kernel,
                                  simulated=simulated))
        return samples, problems(found)

    def _kernel_memory(self, pynvml: Any, handle: Any, mig: bool,
                       tree: frozenset[int], index: int) -> tuple[int | None, State | None]:
        """(bytes the process tree holds on this device, or None; the problem, or None). Most problems say that
        per-process memory is unavailable (MIG or a container's PID namespace)."""
        self.listed.pop(index, None)
        try:
            processes = self._nvml.processes(pynvml, handle)
        except (pynvml.NVMLError_NoPermission, pynvml.NVMLError_NotSupported) as exc:
            return None, State("mig_process_list_refused" if mig else "process_list_refused", answer=exc)
        except pynvml.NVMLError as exc:
            return None, State("nvml_error", error=exc)
        self.listed[index] = tuple((int(p.pid), p.usedGpuMemory) for p in processes[:MAX_LISTED])
        kernel, ours, unreported, reported = 0, False, False, False
        for process in processes:  # a plain loop: this runs at the sampling rate
            used = process.usedGpuMemory
            reported = reported or used is not None
            if process.pid in tree:
                ours = True
                if used is None:
                    unreported = True
                else:
                    kernel += used
        if unreported or (processes and not reported):
            return None, State("process_memory_unreported")
        if not ours and processes:
            former = self.tree.former()
            strangers = [p.pid for p in processes if p.pid not in former and not _pid_exists(p.pid)]
            if strangers:
                shown = ", ".join(str(pid) for pid in strangers[:3]) + (", ..." if len(strangers) > 3 else "")
                return None, State(FOREIGN_PIDS, pids=shown)
        if mig and not processes:
            return None, State("mig_no_process")
        return kernel, None


def _pid_exists(pid: int) -> bool:
    import psutil

    return pid > 0 and psutil.pid_exists(pid)
