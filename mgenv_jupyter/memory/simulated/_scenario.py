"""What a simulated GPU does over time: a scenario, from a preset or a JSON file, read field by field.

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
        "kernel": {"start": "1.5GB", "step": "256MB", "max": "24GB", "wave": "1GB"},   # or a plain size, or "host"
        "workers": [{"at": 3, "bytes": "300MB", "count": 2}],                          # real child processes
        "other_processes": [{"pid": 1, "bytes": "5GB"}],                               # listed as given
        "notebooks": {"train.ipynb": "30GB"}  # served by a Jupyter server: its kernel of that notebook holds this
      }],
      "errors": [{"at": 20, "for": 3, "error": "UNKNOWN"}]   # NVML_ERROR_<error> for every call in that window
    }

Kernel memory at time t: min(max, start + step × ⌊t / step_seconds⌋) + wave × (fraction of the current step).
With `"kernel": "host"` it is what the kernel's process tree really holds in host memory (its resident size), on the
one device the process would use: the first CUDA_VISIBLE_DEVICES names (device 0 without it). A cell that allocates
more under one setting than another shows it on the simulated GPU: a sweep's device path, measured honestly.

Bounds (anything else is refused with a message naming the field): sizes up to 1 PiB (`total` at least 1 byte),
times finite from 0 to 10⁹ s (`step_seconds` at least 1 ms, an error window's `for` above 0), at most 64 devices and
64 error windows, 1024 other processes and 1024 notebooks per device (paths up to 1024 characters), and 16 worker
processes in all. A scenario file is a regular file
of at most 1 MiB.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...base._errors import InvalidValueError
from ...base._quoting import quoted
from ...base._regular_files import MAX_FILE_BYTES, read_text_file
from ...catalog._values import parse_size
from . import ENV

MiB = 1024**2
MAX_BYTES = 1024**5  # 1 PiB: more than any GPU, and sums of such sizes stay within NVML's 64-bit fields
MAX_SECONDS = 1e9
MIN_STEP_SECONDS = 0.001
MAX_DEVICES = 64
MAX_ERROR_WINDOWS = 64
MAX_OTHER_PROCESSES = 1024
MAX_WORKERS = 16  # real processes: the whole scenario may start no more than this
MAX_NOTEBOOKS = 1024
MAX_NOTEBOOK_PATH = 1024
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
    # The kernel's real host memory on a small simulated GPU: a sweep's points peak as their cells really allocate.
    "mirror-1gb": {"devices": [{"name": "NVIDIA Simulated 1GB", "total": "1GB", "kernel": "host"}]},
    "mirror-4x1gb": {"devices": [{"name": "NVIDIA Simulated 1GB", "total": "1GB", "kernel": "host"}] * 4},
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
    host: bool = False  # the kernel's process tree's real resident memory instead of a timeline

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
    notebooks: tuple[tuple[str, int], ...] = ()  # (notebook path, bytes its kernel holds) under a server


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
        data, name = cls.source(spec)
        return cls.from_json(data, name)

    @staticmethod
    def source(spec: str) -> tuple[object, str]:
        """The JSON value a preset name or a scenario file's path stands for, and the scenario's default name (the
        preset's, or the file's stem), not yet checked (`from_json` checks it). A machine that several processes
        share keeps this value, so that a file read once is the same machine for all of them. Raises
        `InvalidValueError` when it is neither a preset nor a readable JSON file."""
        if spec in PRESETS:
            return PRESETS[spec], spec
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
        return data, path.stem

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


_SCENARIO_FIELDS = ("name", "library", "driver", "step_seconds", "period", "devices", "errors")
_DEVICE_FIELDS = ("name", "total", "others", "reserved", "mig", "process_memory", "pid_namespace", "kernel", "workers",
                  "other_processes", "notebooks")
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
        notebooks=_notebooks(fields.get("notebooks", {}), fields.path("notebooks")),
    )


def _notebooks(data: object, where: str) -> tuple[tuple[str, int], ...]:
    allowed = f"an object of at most {MAX_NOTEBOOKS} notebook paths, each to a size"
    if not isinstance(data, Mapping):
        raise _wrong(where, allowed, data)
    if len(data) > MAX_NOTEBOOKS:
        raise InvalidValueError(f"{where} has {len(data):,} notebooks; at most {MAX_NOTEBOOKS} are allowed")
    shares = []
    for path, size in data.items():
        if not (isinstance(path, str) and path and path.isprintable() and len(path) <= MAX_NOTEBOOK_PATH):
            raise InvalidValueError(f"{where} has a key that is not a notebook path: give non-empty printable text "
                                    f"of at most {MAX_NOTEBOOK_PATH} characters")
        shares.append((path, _size(size, f"{where}[{quoted(path)}]")))
    return tuple(shares)


def _kernel(data: object, where: str) -> KernelUse | None:
    if data is None:
        return None
    if data == "host":
        return KernelUse(start=0, host=True)
    if isinstance(data, (list, tuple, bool)):
        raise _wrong(where, f"an object with {', '.join(_KERNEL_FIELDS)}, or a size", data)
    if not isinstance(data, Mapping):  # a plain size: where the kernel starts, and stays
        try:
            return KernelUse(start=_size(data, where))
        except InvalidValueError:
            raise _wrong(where, f"a size, \"host\", or an object with {', '.join(_KERNEL_FIELDS)}", data) from None
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
    return ErrorWindow(fields.seconds("at"), fields.seconds("for", 1.0, above=True), nvml_error(error))


def nvml_error(name: str) -> int:
    import pynvml

    code = getattr(pynvml, f"NVML_ERROR_{name.upper()}", None) if name.isidentifier() else None
    if not isinstance(code, int) or isinstance(code, bool):
        raise InvalidValueError(f"unknown NVML error {quoted(name)} (use a NVML_ERROR_* name without the prefix, e.g. "
                                "GPU_IS_LOST)")
    return code
