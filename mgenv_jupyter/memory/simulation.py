"""The simulated GPU: `MGENV_SIMULATE_GPU=<preset or scenario file>` in the kernel's environment.

It exists for tests and demos on machines without a GPU. A scenario drives a fake NVML library (`fake_nvml.py`)
installed behind the real pynvml, so the NVML source runs its real code path; every reading from it is labelled
"simulated" (`Sample.simulated`, the source's name and state, the device label).

Presets (`MGENV_SIMULATE_GPU=training`):

- `a100-40gb`: one A100 40 GB; the kernel holds about 2 GB, rising and falling a little.
- `2xv100`: two V100 16 GB; the kernel works on gpu0; 5 GB that are not the kernel's sit on gpu1.
- `training`: one A100 40 GB; the kernel grows 256 MB a step (1 s) with a 1 GB activation sawtooth, two worker
  processes (real children of the kernel, like DataLoader workers) appear at 3 s with 300 MB each, and NVML fails
  from 20 s to 23 s (NVML_ERROR_UNKNOWN) then recovers; the timeline repeats every 90 s.
- `no-driver`: libnvidia-ml.so.1 is missing. `driver-not-loaded`: the library loads, the driver is not loaded.
- `mig`: an A100 in MIG mode; per-process memory is refused (NO_PERMISSION) as for a full-device handle.
- `no-process-memory`: the driver lists processes but reports their memory as not available (as under WDDM).
- `container`: the kernel's memory is listed under host PIDs that do not exist in this PID namespace.

Scenario file (JSON; sizes are bytes or strings such as "512MB", "40GB", 1024-based):

    {
      "name": "my-run",                       # shown in labels; defaults to the file name
      "library": true, "driver": true,        # false: no NVIDIA library / driver not loaded
      "step_seconds": 1.0,                    # one training step
      "period": 90,                           # seconds after which the timeline repeats (0: never)
      "devices": [{
        "name": "NVIDIA A100-SXM4-40GB", "total": "40GB",
        "others": "1GB",                      # used by processes NVML does not list for us
        "reserved": "512MB",                  # kept by the driver (nvmlMemory_v2 "reserved")
        "mig": false,                         # true: process query fails with NO_PERMISSION
        "process_memory": true,               # false: usedGpuMemory is NVML_VALUE_NOT_AVAILABLE
        "pid_namespace": "same",              # "foreign": our processes are listed under PIDs unknown here
        "kernel": {"start": "1.5GB", "step": "256MB", "max": "24GB", "wave": "1GB"},   # or a plain size
        "workers": [{"at": 3, "bytes": "300MB", "count": 2}],                          # real child processes
        "other_processes": [{"pid": 1, "bytes": "5GB"}]                                # listed as given
      }],
      "errors": [{"at": 20, "for": 3, "error": "UNKNOWN"}]   # NVML_ERROR_<error> for every call in that window
    }

Kernel memory at time t: min(max, start + step × ⌊t / step_seconds⌋) + wave × (fraction of the current step).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..catalog.values import parse_size
from ..errors import InvalidValueError
from .fake_nvml import FakeDevice, FakeNvml, FakeProcess

ENV = "MGENV_SIMULATE_GPU"
MiB = 1024**2
_SAME_MOMENT = 0.001  # seconds: NVML calls closer than this belong to one sample
_RELIST_SECONDS = 1.0  # how often the simulation checks whether its worker processes are still alive
_FOREIGN_PID_OFFSET = 1 << 22  # above Linux's largest pid_max: such a PID cannot exist in this namespace

PRESETS: dict[str, dict[str, Any]] = {
    "a100-40gb": {
        "devices": [{"name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "others": "400MB", "reserved": "512MB",
                     "kernel": {"start": "2GB", "wave": "256MB"}}],
        "step_seconds": 2.0,
    },
    "2xv100": {
        "devices": [
            {"name": "Tesla V100-SXM2-16GB", "total": "16GB", "others": "300MB", "reserved": "256MB",
             "kernel": {"start": "3GB", "wave": "512MB"}},
            {"name": "Tesla V100-SXM2-16GB", "total": "16GB", "others": "5300MB", "reserved": "256MB"},
        ],
        "step_seconds": 1.5,
    },
    "training": {
        "devices": [{"name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "others": "400MB", "reserved": "512MB",
                     "kernel": {"start": "1.5GB", "step": "256MB", "max": "24GB", "wave": "1GB"},
                     "workers": [{"at": 3, "bytes": "300MB", "count": 2}]}],
        "step_seconds": 1.0,
        "period": 90,
        "errors": [{"at": 20, "for": 3, "error": "UNKNOWN"}],
    },
    "no-driver": {"library": False, "devices": []},
    "driver-not-loaded": {"driver": False, "devices": []},
    "mig": {
        "devices": [{"name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "mig": True, "reserved": "512MB",
                     "kernel": {"start": "5GB", "wave": "512MB"}}],
    },
    "no-process-memory": {
        "devices": [{"name": "NVIDIA GeForce RTX 4090", "total": "24GB", "others": "700MB", "process_memory": False,
                     "kernel": {"start": "3GB", "wave": "512MB"}}],
    },
    "container": {
        "devices": [{"name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "others": "400MB", "pid_namespace": "foreign",
                     "kernel": {"start": "4GB", "wave": "512MB"}}],
    },
}


@dataclass(frozen=True)
class KernelUse:
    start: int
    step: int = 0
    max: int | None = None
    wave: int = 0

    def at(self, t: float, step_seconds: float) -> int:
        steps, phase = divmod(t, step_seconds)
        grown = self.start + self.step * int(steps)
        if self.max is not None:
            grown = min(grown, self.max)
        value = grown + self.wave * (phase / step_seconds)
        return int(value) // (2 * MiB) * (2 * MiB)  # CUDA allocators hand out 2 MB pages


@dataclass(frozen=True)
class Workers:
    at: float
    bytes: int
    count: int = 1


@dataclass(frozen=True)
class DeviceSpec:
    name: str
    total: int
    others: int = 0
    reserved: int = 0
    mig: bool = False
    process_memory: bool = True
    foreign_namespace: bool = False
    kernel: KernelUse | None = None
    workers: tuple[Workers, ...] = ()
    other_processes: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class ErrorWindow:
    at: float
    duration: float
    code: int


@dataclass(frozen=True)
class Scenario:
    """A simulated machine and what happens on it over time (see the module help for the JSON format)."""

    name: str
    devices: tuple[DeviceSpec, ...]
    library: bool = True
    driver: bool = True
    step_seconds: float = 1.0
    period: float = 0.0
    errors: tuple[ErrorWindow, ...] = ()

    @classmethod
    def load(cls, spec: str) -> Scenario:
        """A preset by name, or a scenario JSON file by path. Raises `InvalidValueError` saying what is wrong."""
        if spec in PRESETS:
            return cls.from_json(PRESETS[spec], spec)
        path = Path(spec).expanduser()
        if not path.is_file():
            raise InvalidValueError(f"{ENV}={spec!r} is neither a preset ({', '.join(PRESETS)}) nor a scenario file")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InvalidValueError(f"cannot read scenario file {path}: {exc}") from None
        return cls.from_json(data, path.stem)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], name: str = "custom") -> Scenario:
        if not isinstance(data, Mapping):
            raise InvalidValueError("a scenario is a JSON object")
        try:
            return cls(
                name=str(data.get("name", name)),
                devices=tuple(_device(d) for d in data.get("devices", ())),
                library=bool(data.get("library", True)),
                driver=bool(data.get("driver", True)),
                step_seconds=_positive(data.get("step_seconds", 1.0), "step_seconds"),
                period=float(data.get("period", 0.0)),
                errors=tuple(_error(e) for e in data.get("errors", ())),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidValueError(f"scenario {name!r}: {exc}") from None


class Simulation:
    """A running scenario: a `FakeNvml` whose devices follow the scenario's timeline, with real worker processes.

    Time starts at `install()`. `clock` (monotonic seconds) can be replaced in tests to step through the timeline.
    """

    def __init__(self, scenario: Scenario | str, clock: Callable[[], float] = time.monotonic) -> None:
        self.scenario = Scenario.load(scenario) if isinstance(scenario, str) else scenario
        self.clock = clock
        self.fake = FakeNvml(
            [FakeDevice(name=d.name, total=d.total, others=d.others, reserved=d.reserved, mig=d.mig)
             for d in self.scenario.devices],
            library=self.scenario.library,
            driver=self.scenario.driver,
            before_call=self.advance,
        )
        self.workers: list[_Worker] = []
        self._no_permission = _nvml_error("NO_PERMISSION")
        self._spawned: set[tuple[int, int]] = set()
        self._start: float | None = None
        self._advanced_at = -1.0
        self._listed_at = -float("inf")
        self._next_spawn = float("inf")
        self._kernels: list[tuple[DeviceSpec, FakeProcess]] = []  # the kernel's entry per device, updated in place
        self._lock = threading.Lock()

    @property
    def label(self) -> str:
        return f"simulated ({self.scenario.name})"

    @property
    def elapsed(self) -> float:
        return 0.0 if self._start is None else self.clock() - self._start

    def install(self) -> Simulation:
        if self._start is None:
            self._start = self.clock()
        self.fake.install()
        self.advance()
        return self

    def uninstall(self) -> None:
        self.fake.uninstall()
        for worker in self.workers:
            _stop(worker.process)
        self.workers.clear()
        self._spawned.clear()
        self._start = None
        self._advanced_at = -1.0
        self._listed_at = -float("inf")

    def __enter__(self) -> Simulation:
        return self.install()

    def __exit__(self, *exc: object) -> None:
        self.uninstall()

    def advance(self) -> None:
        """Bring the fake devices to the scenario's state at the current time (called before every NVML call)."""
        if abs(self.elapsed - self._advanced_at) < _SAME_MOMENT:
            return  # the other calls of the same sample see the same state, as from a real driver
        with self._lock:
            elapsed = self.elapsed
            self._advanced_at = elapsed
            scenario = self.scenario
            t = elapsed % scenario.period if scenario.period > 0 else elapsed
            if elapsed - self._listed_at >= _RELIST_SECONDS or elapsed >= self._next_spawn:
                self._list_processes(elapsed)  # who is on each device: changes rarely, costs a syscall per worker
            for spec, kernel in self._kernels:
                kernel.used = spec.kernel.at(t, scenario.step_seconds) if spec.kernel and spec.process_memory else None
            failure = None
            for window in scenario.errors:
                if window.at <= t < window.at + window.duration:
                    failure = window.code
                    break
            self.fake.failure = failure

    def _list_processes(self, elapsed: float) -> None:
        self._listed_at = elapsed
        self._kernels = []
        for index, (spec, device) in enumerate(zip(self.scenario.devices, self.fake.devices, strict=True)):
            def listed(pid: int, used: int | None, spec: DeviceSpec = spec) -> FakeProcess:
                pid = pid + _FOREIGN_PID_OFFSET if spec.foreign_namespace else pid
                return FakeProcess(pid, used if spec.process_memory else None)

            processes = []
            if spec.kernel is not None:
                kernel = listed(os.getpid(), None)
                self._kernels.append((spec, kernel))
                processes.append(kernel)
            for group, workers in enumerate(spec.workers):
                if elapsed >= workers.at and (index, group) not in self._spawned:
                    self._spawned.add((index, group))
                    self.workers.extend(_Worker(index, workers.bytes, _spawn_worker()) for _ in range(workers.count))
            processes.extend(listed(w.process.pid, w.size) for w in self.workers
                             if w.device == index and w.process.poll() is None)
            processes.extend(FakeProcess(pid, used if spec.process_memory else None)
                             for pid, used in spec.other_processes)
            device.processes = processes
            device.process_error = self._no_permission if spec.mig else None
        waiting = [workers.at for index, spec in enumerate(self.scenario.devices)
                   for group, workers in enumerate(spec.workers) if (index, group) not in self._spawned]
        self._next_spawn = min(waiting, default=float("inf"))


@dataclass(frozen=True)
class _Worker:
    device: int
    size: int
    process: subprocess.Popen[bytes]


def _spawn_worker() -> subprocess.Popen[bytes]:
    # A real child of the kernel, so the process-tree walk finds it; it exits when its stdin closes (us, or our exit).
    return subprocess.Popen([sys.executable, "-I", "-S", "-c", "import sys; sys.stdin.buffer.read()"],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _stop(worker: subprocess.Popen[bytes]) -> None:
    try:
        if worker.stdin is not None:
            worker.stdin.close()
        worker.wait(timeout=2)
    except (OSError, subprocess.TimeoutExpired):
        worker.kill()
        worker.wait()


_from_environment: tuple[str, Simulation] | None = None
_environment_lock = threading.Lock()


def from_environment() -> Simulation | None:
    """The simulation `MGENV_SIMULATE_GPU` asks for, installed (once per process and value); None when unset.

    Raises `InvalidValueError` for an unknown preset or a bad scenario file.
    """
    global _from_environment
    spec = os.environ.get(ENV, "").strip()
    with _environment_lock:
        if _from_environment is not None and _from_environment[0] != spec:
            _from_environment[1].uninstall()
            _from_environment = None
        if not spec:
            return None
        if _from_environment is None:
            _from_environment = (spec, Simulation(spec).install())
        return _from_environment[1]


def stop_environment() -> None:
    """Uninstall the simulation `from_environment()` started, whatever `MGENV_SIMULATE_GPU` says now (the real NVML,
    if any, answers again). Tests that set the variable call this afterwards."""
    global _from_environment
    with _environment_lock:
        if _from_environment is not None:
            _from_environment[1].uninstall()
            _from_environment = None


def _device(data: Mapping[str, Any]) -> DeviceSpec:
    kernel = data.get("kernel")
    if kernel is not None and not isinstance(kernel, Mapping):
        kernel = {"start": kernel}
    namespace = data.get("pid_namespace", "same")
    if namespace not in ("same", "foreign"):
        raise ValueError(f"pid_namespace is 'same' or 'foreign', not {namespace!r}")
    return DeviceSpec(
        name=str(data.get("name", "NVIDIA A100-SXM4-40GB")),
        total=parse_size(data.get("total", "40GB")),
        others=parse_size(data.get("others", 0)),
        reserved=parse_size(data.get("reserved", 0)),
        mig=bool(data.get("mig", False)),
        process_memory=bool(data.get("process_memory", True)),
        foreign_namespace=namespace == "foreign",
        kernel=None if kernel is None else KernelUse(
            start=parse_size(kernel.get("start", 0)),
            step=parse_size(kernel.get("step", 0)),
            max=None if kernel.get("max") is None else parse_size(kernel["max"]),
            wave=parse_size(kernel.get("wave", 0)),
        ),
        workers=tuple(Workers(float(w["at"]), parse_size(w["bytes"]), int(w.get("count", 1)))
                      for w in data.get("workers", ())),
        other_processes=tuple((int(p["pid"]), parse_size(p["bytes"])) for p in data.get("other_processes", ())),
    )


def _error(data: Mapping[str, Any]) -> ErrorWindow:
    return ErrorWindow(float(data["at"]), _positive(data.get("for", 1.0), "for"),
                       _nvml_error(str(data.get("error", "UNKNOWN"))))


def _nvml_error(name: str) -> int:
    import pynvml

    code = getattr(pynvml, f"NVML_ERROR_{name.upper()}", None)
    if not isinstance(code, int):
        raise ValueError(f"unknown NVML error {name!r} (use a NVML_ERROR_* name without the prefix, e.g. GPU_IS_LOST)")
    return code


def _positive(value: Any, name: str) -> float:
    number = float(value)
    if not number > 0:
        raise ValueError(f"{name} must be a positive number of seconds, not {value!r}")
    return number
