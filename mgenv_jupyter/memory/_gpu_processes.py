"""Every GPU's memory and every process NVML lists on it, for a reader that serves many kernels (the server extension).

`NvmlSource` asks one question per device — what does this kernel's process tree hold? — and sums the answer. A
server needs the list itself: each process's pid and bytes, to attribute them to kernels. `GpuProcessReader.read()`
returns that list per device and never raises; failures become `GpuReading.state` (and a device's `problem`).
NVML calls go through pynvml, so the fake NVML library and the simulated GPU answer here exactly as they do for
`NvmlSource`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ._fake_nvml import installed
from ._nvml_source import _mig_enabled
from ._sample import OK


@dataclass(frozen=True)
class GpuProcess:
    """A process NVML lists on a device: its pid (as NVML reports it: the host's, in a container) and its bytes
    (None when the driver does not report per-process memory)."""

    pid: int
    used: int | None


@dataclass(frozen=True)
class DeviceReading:
    """One device: its NVML index and name, total and used bytes, and its processes (None when NVML refused the list:
    MIG mode, no permission; `problem` says why)."""

    index: int
    name: str
    total: int
    used: int
    processes: tuple[GpuProcess, ...] | None
    problem: str = ""


@dataclass(frozen=True)
class GpuReading:
    """All devices at one moment. `state` is OK, or why there is nothing (no driver, an NVML error); `simulated` and
    `simulation` say when the fake NVML library answered (MGENV_SIMULATE_GPU), and which scenario."""

    time: float
    devices: tuple[DeviceReading, ...]
    state: str
    simulated: bool
    simulation: str | None


class GpuProcessReader:
    """One NVML client: initialised on the first read, retried every `retry_seconds` without a driver, shut down by
    `close()`. Each read costs per device one memory query and one process-list query (the driver's global lock),
    so callers read it at most about once a second."""

    def __init__(self, retry_seconds: float = 10.0) -> None:
        self.retry_seconds = retry_seconds
        self._library: Any = None
        self._handles: list[tuple[Any, bool, str]] = []  # (handle, MIG enabled, name)
        self._next_try = 0.0
        self._state = "not read yet"
        self._process_query = "nvmlDeviceGetComputeRunningProcesses"

    def read(self) -> GpuReading:
        fake = installed()
        simulated, simulation = fake is not None, None if fake is None else fake.name
        try:
            import pynvml
        except ImportError:
            return GpuReading(time.time(), (), "nvidia-ml-py is not installed (pip install nvidia-ml-py)", simulated,
                              simulation)
        try:
            devices = self._read(pynvml) if self._ready(pynvml) else ()
        except pynvml.NVMLError as exc:
            if isinstance(exc, pynvml.NVMLError_Uninitialized):
                self._library = None
            self._state, devices = f"NVML error: {exc}", ()
        except Exception as exc:  # a server must survive anything a driver binding can throw
            self._state, devices = f"NVML error: {type(exc).__name__}: {exc}", ()
        return GpuReading(time.time(), devices, self._state, simulated, simulation)

    def close(self) -> None:
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
        try:
            pynvml.nvmlInit()
        except (pynvml.NVMLError_LibraryNotFound, pynvml.NVMLError_DriverNotLoaded) as exc:
            missing = isinstance(exc, pynvml.NVMLError_LibraryNotFound)
            self._state = ("no NVIDIA driver (libnvidia-ml.so.1 not found)" if missing
                           else "no NVIDIA driver (the driver is not loaded)")
            self._handles, self._next_try = [], now + self.retry_seconds
            return False
        self._library = pynvml.nvmlLib
        self._handles = []
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            name = pynvml.nvmlDeviceGetName(handle)
            self._handles.append((handle, _mig_enabled(pynvml, handle), name.decode() if isinstance(name, bytes)
                                  else str(name)))
        self._state = OK if self._handles else "NVML sees no GPU"
        return True

    def _read(self, pynvml: Any) -> tuple[DeviceReading, ...]:
        devices = []
        for index, (handle, mig, name) in enumerate(self._handles):
            memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
            processes: tuple[GpuProcess, ...] | None
            problem = ""
            try:
                listed = self._processes(pynvml, handle)
                processes = tuple(GpuProcess(p.pid, p.usedGpuMemory) for p in listed)
                if mig and not processes:
                    processes, problem = None, "MIG mode: NVML lists no process for the full device"
            except (pynvml.NVMLError_NoPermission, pynvml.NVMLError_NotSupported) as exc:
                processes = None
                problem = f"{'MIG mode: ' if mig else ''}NVML answers '{exc}' for the process list"
            devices.append(DeviceReading(index, name, memory.total, memory.used, processes, problem))
        self._state = OK
        return tuple(devices)

    def _processes(self, pynvml: Any, handle: Any) -> list[Any]:
        try:
            return list(getattr(pynvml, self._process_query)(handle))
        except pynvml.NVMLLibraryMismatchError:
            # Drivers older than 510 lack the _v3 entry point pynvml uses by default.
            self._process_query = "nvmlDeviceGetComputeRunningProcesses_v2"
            return list(pynvml.nvmlDeviceGetComputeRunningProcesses_v2(handle))
