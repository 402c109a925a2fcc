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

Bounds (anything else is refused with a message naming the field): sizes up to 1 PiB (`total` at least 1 byte),
times finite from 0 to 10⁹ s (`step_seconds` at least 1 ms, an error window's `for` above 0), at most 64 devices and
64 error windows, 1024 other processes per device, and 16 worker processes in all. A scenario file is a regular file
of at most 1 MiB.
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

from ..catalog.values import parse_size, quoted
from ..envfile import read_text_file
from ..errors import InvalidValueError
from .fake_nvml import FakeDevice, FakeNvml, FakeProcess

ENV = "MGENV_SIMULATE_GPU"
MiB = 1024**2
_SAME_MOMENT = 0.001  # seconds: NVML calls closer than this belong to one sample
_RELIST_SECONDS = 1.0  # how often the simulation checks whether its worker processes are still alive
_FOREIGN_PID_OFFSET = 1 << 22  # above Linux's largest pid_max: such a PID cannot exist in this namespace
MAX_FILE_BYTES = 1024 * 1024
MAX_BYTES = 1024**5  # 1 PiB: more than any GPU, and sums of such sizes stay within NVML's 64-bit fields
MAX_SECONDS = 1e9
MIN_STEP_SECONDS = 0.001
MAX_DEVICES = 64
MAX_ERROR_WINDOWS = 64
MAX_OTHER_PROCESSES = 1024
MAX_WORKERS = 16  # real processes: the whole scenario may start no more than this
_NAME_BYTES = 95  # NVML's name buffer is 96 bytes, its NUL included

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
        # Without a max it would grow forever; NVML's fields are 64-bit.
        grown = min(grown, self.max if self.max is not None else MAX_BYTES)
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
        try:
            path = Path(spec).expanduser()
        except RuntimeError:  # ~user of a user that does not exist
            path = Path(spec)
        if not os.path.lexists(path):
            raise InvalidValueError(f"{ENV}={quoted(spec)} is neither a preset ({', '.join(PRESETS)}) nor a scenario "
                                    "file")
        text = read_text_file(path, MAX_FILE_BYTES)
        try:
            data = json.loads(text)
        except RecursionError:
            raise InvalidValueError(f"scenario file {quoted(str(path))} is nested too deeply to be one") from None
        except ValueError as exc:  # the message says where, never quotes the file
            raise InvalidValueError(f"scenario file {quoted(str(path))} is not JSON: {str(exc)[:100]}") from None
        return cls.from_json(data, path.stem)

    @classmethod
    def from_json(cls, data: object, name: str = "custom") -> Scenario:
        """A scenario from its JSON value (see the module help). Raises `InvalidValueError` naming the field that is
        wrong and what it allows."""
        try:
            fields = _Fields(data, "", _SCENARIO_FIELDS)
            devices = tuple(_device(item, f"devices[{i}]")
                            for i, item in enumerate(fields.items("devices", MAX_DEVICES)))
            workers = sum(group.count for device in devices for group in device.workers)
            if workers > MAX_WORKERS:
                raise InvalidValueError(f"the workers' counts add up to {workers:,}; at most {MAX_WORKERS} worker "
                                        "processes in all")
            return cls(
                name=fields.text("name", "") if "name" in fields.data else name,
                devices=devices,
                library=fields.boolean("library", True),
                driver=fields.boolean("driver", True),
                step_seconds=fields.seconds("step_seconds", 1.0, minimum=MIN_STEP_SECONDS),
                period=fields.seconds("period", 0.0),
                errors=tuple(_error(item, f"errors[{i}]")
                             for i, item in enumerate(fields.items("errors", MAX_ERROR_WINDOWS))),
            )
        except InvalidValueError as exc:
            raise InvalidValueError(f"scenario {quoted(name)}: {exc}") from None


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


_SCENARIO_FIELDS = ("name", "library", "driver", "step_seconds", "period", "devices", "errors")
_DEVICE_FIELDS = ("name", "total", "others", "reserved", "mig", "process_memory", "pid_namespace", "kernel", "workers",
                  "other_processes")
_KERNEL_FIELDS = ("start", "step", "max", "wave")
_MISSING = object()  # the default of a field that must be given
_SIZES = "a size from {} to 1 PiB: bytes, or text such as \"512MB\" or \"40GB\""


def _kind(value: object) -> str:
    """A JSON value as a message shows it: short numbers and strings as written, anything else by its kind (a value
    may be huge or nested without end)."""
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, float) or (isinstance(value, int) and abs(value) < 10**20) or (
            isinstance(value, str) and len(value) <= 24):
        return repr(value)
    if isinstance(value, int):
        return "a number"
    for types, words in ((str, "a string"), ((list, tuple), "a list"), (Mapping, "an object")):
        if isinstance(value, types):
            return words
    return "null" if value is None else type(value).__name__


def _wrong(where: str, allowed: str, value: object) -> InvalidValueError:
    if value is _MISSING:
        return InvalidValueError(f"{where} is missing: give {allowed}")
    return InvalidValueError(f"{where} must be {allowed}, not {_kind(value)}")


class _Fields:
    """One JSON object of a scenario, read field by field; each error names the field's path and what it allows."""

    def __init__(self, data: object, where: str, allowed: tuple[str, ...]) -> None:
        if not isinstance(data, Mapping):
            raise _wrong(where or "a scenario", "a JSON object", data)
        unknown = next((key for key in data if key not in allowed), None)
        if unknown is not None:  # a misspelt field would otherwise silently mean its default
            raise InvalidValueError(f"{where or 'the scenario'} has an unknown field {quoted(str(unknown))}: "
                                    f"allowed are {', '.join(allowed)}")
        self.data = data
        self.where = where

    def path(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def get(self, key: str, default: object) -> object:
        return self.data.get(key, default)

    def boolean(self, key: str, default: bool) -> bool:
        value = self.get(key, default)
        if not isinstance(value, bool):
            raise _wrong(self.path(key), "true or false", value)
        return value

    def text(self, key: str, default: str) -> str:
        value = self.get(key, default)
        # Printable, because it is shown in labels; bounded by NVML's name buffer.
        if not (isinstance(value, str) and value and value.isprintable() and len(value.encode()) <= _NAME_BYTES):
            raise _wrong(self.path(key), f"a non-empty string of at most {_NAME_BYTES} bytes of printable text",
                         value)
        return value

    def size(self, key: str, default: object = 0, minimum: int = 0) -> int:
        return _size(self.get(key, default), self.path(key), minimum)

    def seconds(self, key: str, default: object = _MISSING, minimum: float = 0.0, above: bool = False) -> float:
        value = self.get(key, default)
        allowed = f"a number of seconds {'above' if above else 'from'} {minimum:g} to {MAX_SECONDS:g}"
        # Comparisons, not math.isfinite: they refuse NaN and infinities, and never overflow on a huge integer.
        if (isinstance(value, bool) or not isinstance(value, (int, float)) or not minimum <= value <= MAX_SECONDS
                or (above and value == minimum)):
            raise _wrong(self.path(key), allowed, value)
        return float(value)

    def whole(self, key: str, default: object, lowest: int, highest: int) -> int:
        value = self.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not lowest <= value <= highest:
            raise _wrong(self.path(key), f"a whole number from {lowest} to {highest:,}", value)
        return value

    def items(self, key: str, most: int) -> list[Any]:
        value = self.get(key, [])
        if not isinstance(value, (list, tuple)):
            raise _wrong(self.path(key), f"a list of at most {most} objects", value)
        if len(value) > most:
            raise InvalidValueError(f"{self.path(key)} has {len(value):,} items; at most {most} are allowed")
        return list(value)


def _size(value: object, where: str, minimum: int = 0) -> int:
    allowed = _SIZES.format(minimum)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise _wrong(where, allowed, value)
    try:
        nbytes = parse_size(value)
    except InvalidValueError:
        raise _wrong(where, allowed, value) from None
    except (ValueError, OverflowError):  # digits past what a float holds
        raise _wrong(where, allowed, value) from None
    if not minimum <= nbytes <= MAX_BYTES:
        raise _wrong(where, allowed, value)
    return nbytes


def _device(data: object, where: str) -> DeviceSpec:
    fields = _Fields(data, where, _DEVICE_FIELDS)
    namespace = fields.get("pid_namespace", "same")
    if namespace not in ("same", "foreign"):
        raise _wrong(fields.path("pid_namespace"), "'same' or 'foreign'", namespace)
    return DeviceSpec(
        name=fields.text("name", "NVIDIA A100-SXM4-40GB"),
        total=fields.size("total", "40GB", minimum=1),
        others=fields.size("others"),
        reserved=fields.size("reserved"),
        mig=fields.boolean("mig", False),
        process_memory=fields.boolean("process_memory", True),
        foreign_namespace=namespace == "foreign",
        kernel=_kernel(fields.get("kernel", None), fields.path("kernel")),
        workers=tuple(_workers(item, f"{fields.path('workers')}[{i}]")
                      for i, item in enumerate(fields.items("workers", MAX_WORKERS))),
        other_processes=tuple(_other_process(item, f"{fields.path('other_processes')}[{i}]")
                              for i, item in enumerate(fields.items("other_processes", MAX_OTHER_PROCESSES))),
    )


def _kernel(data: object, where: str) -> KernelUse | None:
    if data is None:
        return None
    if isinstance(data, (list, tuple, bool)):
        raise _wrong(where, f"an object with {', '.join(_KERNEL_FIELDS)}, or a size", data)
    if not isinstance(data, Mapping):  # a plain size: where the kernel starts, and stays
        return KernelUse(start=_size(data, where))
    fields = _Fields(data, where, _KERNEL_FIELDS)
    return KernelUse(
        start=fields.size("start"),
        step=fields.size("step"),
        max=None if fields.get("max", None) is None else fields.size("max"),
        wave=fields.size("wave"),
    )


def _workers(data: object, where: str) -> Workers:
    fields = _Fields(data, where, ("at", "bytes", "count"))
    return Workers(fields.seconds("at"), fields.size("bytes", _MISSING), fields.whole("count", 1, 0, MAX_WORKERS))


def _other_process(data: object, where: str) -> tuple[int, int]:
    fields = _Fields(data, where, ("pid", "bytes"))
    # NVML's pid is a 32-bit unsigned int.
    return fields.whole("pid", _MISSING, 1, 2**32 - 1), fields.size("bytes", _MISSING)


def _error(data: object, where: str) -> ErrorWindow:
    fields = _Fields(data, where, ("at", "for", "error"))
    error = fields.get("error", "UNKNOWN")
    if not isinstance(error, str):
        raise _wrong(fields.path("error"), 'an NVML error name such as "GPU_IS_LOST"', error)
    return ErrorWindow(fields.seconds("at"), fields.seconds("for", 1.0, above=True), _nvml_error(error))


def _nvml_error(name: str) -> int:
    import pynvml

    code = getattr(pynvml, f"NVML_ERROR_{name.upper()}", None) if name.isidentifier() else None
    if not isinstance(code, int) or isinstance(code, bool):
        raise InvalidValueError(f"unknown NVML error {quoted(name)} (use a NVML_ERROR_* name without the prefix, e.g. "
                                "GPU_IS_LOST)")
    return code
