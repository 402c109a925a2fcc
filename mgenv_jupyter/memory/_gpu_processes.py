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

from ..base._source_state import STATE_OK, State
from ._nvml_client import NvmlClient


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
    """All devices at one moment. `state` is ok (`STATE_OK`), or why there is nothing (no driver, an NVML error);
    `simulated` and `simulation` say when the fake NVML library answered (MGENV_SIMULATE_GPU), and which scenario."""

    time: float
    devices: tuple[DeviceReading, ...]
    state: State
    simulated: bool
    simulation: str | None


class GpuProcessReader:
    """One NVML client (memory/_nvml_client.py): initialised on the first read, retried every `retry_seconds` without a
    driver, shut down by `close()`. Each read costs per device one memory query and one process-list query (the
    driver's global lock), so callers read it at most about once a second."""

    def __init__(self, retry_seconds: float = 10.0) -> None:
        self._nvml = NvmlClient(retry_seconds, on_start=self._started)
        self._names: list[str] = []

    def read(self) -> GpuReading:
        devices = self._nvml.read(self._read)
        return GpuReading(time.time(), devices or (), self._nvml.state, self._nvml.simulated, self._nvml.simulation)

    def close(self) -> None:
        self._nvml.close()

    def _started(self, pynvml: Any) -> None:
        self._names = []
        for device in self._nvml.devices:
            name = pynvml.nvmlDeviceGetName(device.handle)
            self._names.append(name.decode() if isinstance(name, bytes) else str(name))

    def _read(self, pynvml: Any) -> tuple[tuple[DeviceReading, ...], State]:
        devices = []
        for index, (handle, mig) in enumerate(self._nvml.devices):
            memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
            processes: tuple[GpuProcess, ...] | None
            problem = ""
            try:
                listed = self._nvml.processes(pynvml, handle)
                processes = tuple(GpuProcess(p.pid, p.usedGpuMemory) for p in listed)
                if mig and not processes:
                    processes, problem = None, "MIG mode: NVML lists no process for the full device"
            except (pynvml.NVMLError_NoPermission, pynvml.NVMLError_NotSupported) as exc:
                processes = None
                problem = f"{'MIG mode: ' if mig else ''}NVML answers '{exc}' for the process list"
            devices.append(DeviceReading(index, self._names[index], memory.total, memory.used, processes, problem))
        return tuple(devices), STATE_OK
