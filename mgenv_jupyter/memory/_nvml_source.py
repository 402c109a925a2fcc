"""GPU memory from NVML (nvidia-ml-py): every device's used and total, and what the kernel's process tree holds on it.

NVML needs no CUDA context, so reading it never allocates GPU memory. Per-process figures are matched by PID against
the kernel and all its descendants; NVML reports host PIDs, so in a container with its own PID namespace nothing
matches, and the source says so instead of showing 0. Device totals are shown in every case.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from ._fake_nvml import installed
from ._process_tree import ProcessTree
from ._sample import OK, Sample

UNAVAILABLE = "per-process memory unavailable (MIG or container PID namespace)"
NO_LIBRARY = "no NVIDIA driver (libnvidia-ml.so.1 not found)"
# The process list takes the driver's global lock and costs milliseconds on real GPUs (nvmlDeviceGetMemoryInfo costs
# about 12 µs), so it is read at most this often, whatever the sampling rate; MGENV_PROCESS_LIST_SECONDS changes it.
PROCESS_LIST_SECONDS = 1.0
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
    name say "simulated", and `simulation` names the scenario.
    """

    def __init__(self, tree: ProcessTree | None = None, retry_seconds: float = 10.0,
                 process_refresh: float = 5.0, process_interval: float | None = None) -> None:
        self.tree = tree if tree is not None else ProcessTree()
        self.retry_seconds = retry_seconds
        self.process_interval = process_list_seconds() if process_interval is None else process_interval
        self.process_refresh = max(process_refresh, self.process_interval)
        # Per device: (used, tree, when, kernel bytes, problem) at the last process-list query; while used and the
        # tree stay the same a sample costs one NVML call per device.
        self._known: dict[int, tuple[int, frozenset[int], float, int | None, str]] = {}
        self._state = "not sampled yet"
        self._library: Any = None  # the pynvml.nvmlLib we initialised; a different one means re-initialise
        self._handles: list[tuple[Any, bool]] = []  # (handle, MIG enabled)
        self._next_try = 0.0
        self._process_query: str = "nvmlDeviceGetComputeRunningProcesses"
        self._kernel_bytes: dict[int, int | None] = {}
        fake = installed()
        self._simulated = fake is not None
        self._simulation: str | None = None if fake is None else fake.name
        self._labels: dict[bool, list[str]] = {False: [], True: []}

    @property
    def name(self) -> str:
        return "nvml (simulated)" if self.simulated else "nvml"

    @property
    def simulated(self) -> bool:
        """Whether the last sample came from the simulated GPU (the fake NVML library)."""
        return self._simulated

    @property
    def simulation(self) -> str | None:
        """What the simulated GPU is (its scenario's name, e.g. "a100-40gb") when the last sample came from it."""
        return self._simulation

    @property
    def state(self) -> str:
        # Says what NVML does, simulated or not: `simulated` and `simulation` tell that it is the fake, so that a
        # front end names the simulation once instead of in every part of its status line.
        return self._state

    @property
    def device_count(self) -> int:
        return len(self._handles)

    def uses_device(self, index: int) -> bool | None:
        """Whether the kernel's process tree held memory on NVML device `index` at the last sample; None if unknown."""
        used = self._kernel_bytes.get(index)
        return None if used is None else used > 0

    def sample(self) -> list[Sample]:
        fake = installed()
        if (fake is not None) != self._simulated:
            self._next_try = 0.0  # the simulated GPU came or went: ask the NVML now in place at once, not after a retry
        self._simulated = fake is not None
        self._simulation = None if fake is None else fake.name
        if fake is None and "pynvml" not in sys.modules:  # pynvml's import costs more than asking for its library
            now = time.monotonic()
            if now < self._next_try:
                return []
            if not nvml_library_loads():
                self._no_driver(NO_LIBRARY, now)
                return []
        try:
            import pynvml
        except ImportError:
            self._state = "nvidia-ml-py is not installed (pip install nvidia-ml-py)"
            return []
        try:
            if not self._ready(pynvml):
                return []
            return self._read(pynvml)
        except pynvml.NVMLError as exc:
            if isinstance(exc, pynvml.NVMLError_Uninitialized):
                self._library = None  # someone shut NVML down under us: initialise again next time
            self._state = f"NVML error: {exc}"
        except Exception as exc:  # a sampler must survive anything a driver binding can throw
            self._state = f"NVML error: {type(exc).__name__}: {exc}"
        return []

    def close(self) -> None:
        """Release our NVML initialisation (NVML counts them); a later `sample()` initialises again."""
        if self._library is None:
            return
        import pynvml

        self._library = None
        self._handles = []
        if pynvml.nvmlLib is not None:
            try:
                pynvml.nvmlShutdown()
            except pynvml.NVMLError:
                pass

    def _ready(self, pynvml: Any) -> bool:
        if self._library is not None and pynvml.nvmlLib is self._library:
            return True
        now = time.monotonic()
        if self._library is None and now < self._next_try:
            return False
        self._library = None
        try:
            pynvml.nvmlInit()
        except pynvml.NVMLError_LibraryNotFound:
            self._no_driver(NO_LIBRARY, now)
            return False
        except pynvml.NVMLError_DriverNotLoaded:
            self._no_driver("no NVIDIA driver (the driver is not loaded)", now)
            return False
        self._library = pynvml.nvmlLib
        self._handles = []
        self._known.clear()
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            self._handles.append((handle, _mig_enabled(pynvml, handle)))
        self._state = OK if self._handles else "NVML sees no GPU"
        self._labels = {False: [f"gpu{i}" for i in range(len(self._handles))],
                        True: [f"gpu{i} (simulated)" for i in range(len(self._handles))]}
        return True

    def _no_driver(self, state: str, now: float) -> None:
        self._state = state
        self._handles = []
        self._next_try = now + self.retry_seconds

    def _read(self, pynvml: Any) -> list[Sample]:
        simulated = self.simulated
        name = self.name
        labels = self._labels[simulated]
        tree = self.tree.pids()
        samples = []
        problems: list[str] = []
        for index, (handle, mig) in enumerate(self._handles):
            try:
                memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
            except pynvml.NVMLError_Uninitialized:
                raise
            except pynvml.NVMLError as exc:
                problems.append(f"NVML error on gpu{index}: {exc}")
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
                kernel, problem = self._kernel_memory(pynvml, handle, mig, tree)
                self._known[index] = (used, tree, now, kernel, problem)
            self._kernel_bytes[index] = kernel
            if problem:
                problems.append(problem if len(self._handles) == 1 else f"gpu{index}: {problem}")
            samples.append(Sample(time.time(), name, labels[index], used=used, total=memory.total, process=kernel,
                                  simulated=simulated))
        self._state = "; ".join(dict.fromkeys(problems)) if problems else OK
        return samples

    def _kernel_memory(self, pynvml: Any, handle: Any, mig: bool, tree: frozenset[int]) -> tuple[int | None, str]:
        """(bytes the process tree holds on this device, or None; the problem in words, or "")."""
        try:
            processes = self._processes(pynvml, handle)
        except (pynvml.NVMLError_NoPermission, pynvml.NVMLError_NotSupported) as exc:
            return None, f"{UNAVAILABLE}: {'MIG mode, ' if mig else ''}NVML answers '{exc}' for the process list"
        except pynvml.NVMLError as exc:
            return None, f"NVML error: {exc}"
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
            return None, "per-process memory unavailable (the driver does not report it, as under Windows WDDM)"
        if not ours and processes:
            former = self.tree.former()
            strangers = [p.pid for p in processes if p.pid not in former and not _pid_exists(p.pid)]
            if strangers:
                shown = ", ".join(str(pid) for pid in strangers[:3]) + (", ..." if len(strangers) > 3 else "")
                return None, f"{UNAVAILABLE}: NVML lists PIDs {shown}, which do not exist in this kernel's namespace"
        if mig and not processes:
            return None, f"{UNAVAILABLE}: MIG mode, and NVML lists no process for the full device"
        return kernel, ""

    def _processes(self, pynvml: Any, handle: Any) -> list[Any]:
        try:
            return getattr(pynvml, self._process_query)(handle)
        except pynvml.NVMLLibraryMismatchError:
            # Drivers older than 510 lack the _v3 entry point pynvml uses by default.
            self._process_query = "nvmlDeviceGetComputeRunningProcesses_v2"
            return pynvml.nvmlDeviceGetComputeRunningProcesses_v2(handle)


def nvml_library_loads() -> bool:
    """Whether NVIDIA's library loads, asked the way pynvml loads it on Linux (elsewhere pynvml is asked). A machine
    without a driver then never imports pynvml, whose import alone costs about ten milliseconds."""
    if not sys.platform.startswith("linux"):
        return True
    import ctypes

    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return False
    return True


def _mig_enabled(pynvml: Any, handle: Any) -> bool:
    try:
        current, _pending = pynvml.nvmlDeviceGetMigMode(handle)
    except pynvml.NVMLError:  # not a MIG-capable GPU
        return False
    return bool(current == pynvml.NVML_DEVICE_MIG_ENABLE)


def _pid_exists(pid: int) -> bool:
    import psutil

    return pid > 0 and psutil.pid_exists(pid)
