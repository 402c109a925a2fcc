"""A fake NVML library: Python functions stand in for libnvidia-ml.so's C functions, behind the real pynvml.

`FakeNvml.install()` puts the fake where pynvml keeps its loaded library (`pynvml.nvmlLib`) and empties pynvml's
function-pointer cache (`pynvml._nvmlGetFunctionPointer_cache`), so every pynvml call made afterwards, from any thread,
runs pynvml's own code — argument packing, the two-call size query of `nvmlDeviceGetComputeRunningProcesses_v3`,
struct decoding, `NVML_VALUE_NOT_AVAILABLE` → None, return codes → `NVMLError_*` — against these functions. They fill
the ctypes structs through the pointers pynvml passes, as the C library does. Only the driver itself is not exercised.

This is the engine of the simulated GPU (`MGENV_SIMULATE_GPU`, see `_simulation.py`) and of the NVML tests:

    with FakeNvml([FakeDevice(total=16 * GiB, processes=[FakeProcess(os.getpid(), 2 * GiB)])]) as nvml:
        NvmlSource().sample()       # real pynvml calls, answered by the fake
        nvml.failure = pynvml.NVML_ERROR_GPU_IS_LOST   # every later call fails until set back to None

While installed the fake replaces any real NVML in this process; `uninstall()` (or leaving the `with`) restores what
was there, including a real library that was already loaded.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import types
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from struct import Struct
from typing import Any

GiB = 1024**3
_HANDLE_BASE = 0x7E5100000000  # handles are opaque pointers; these point nowhere, like the driver's do for us
_HANDLE_STRIDE = 0x1000
_PROCESS_LIST_V3 = 510  # the first driver with nvmlDeviceGetComputeRunningProcesses_v3
_NO_INSTANCE = 0xFFFFFFFF  # gpuInstanceId / computeInstanceId outside MIG
_SUCCESS, _UNINITIALIZED, _INVALID_ARGUMENT = 0, 1, 2  # nvmlReturn_t values (the C ABI; pynvml has the same)


@dataclass
class FakeProcess:
    """A process NVML lists on a device. `used=None` is reported as NVML_VALUE_NOT_AVAILABLE (as under WDDM)."""

    pid: int
    used: int | None
    gpu_instance: int = _NO_INSTANCE
    compute_instance: int = _NO_INSTANCE


@dataclass
class FakeDevice:
    """One fake GPU. Device-wide `used` = the listed processes + `others` (memory NVML lists no process for: other
    containers' contexts, the driver) + `reserved` (memory the driver keeps; `nvmlMemory_v2` reports it apart).

    `error` makes every call on this device fail with that NVML return code; `process_error` fails only the process
    query (NO_PERMISSION is what a full-device handle gets under MIG without privileges)."""

    name: str = "NVIDIA A100-SXM4-40GB"
    total: int = 40 * GiB
    others: int = 0
    reserved: int = 0
    processes: list[FakeProcess] = field(default_factory=list)
    mig: bool = False
    uuid: str = ""
    error: int | None = None
    process_error: int | None = None

    @property
    def process_bytes(self) -> int:
        return sum(p.used or 0 for p in self.processes)

    @property
    def used(self) -> int:
        """Used memory as `nvmlDeviceGetMemoryInfo` (v1) reports it: reserved memory included."""
        return min(self.total, self.process_bytes + self.others + self.reserved)


class FakeNvmlLibrary(types.SimpleNamespace):
    """The C surface: one attribute per NVML function. Plain functions, because pynvml sets `restype` on some."""


_installed: list[FakeNvml] = []  # a stack: fakes may be nested, the last one installed answers


def installed() -> FakeNvml | None:
    """The fake NVML currently standing in for the NVIDIA library in this process, if any."""
    return _installed[-1] if _installed else None


class FakeNvml:
    """A set of fake GPUs and the NVML functions that report them. Usable as a context manager.

    `library=False`: libnvidia-ml.so.1 cannot be loaded (no driver installed). `driver=False`: the library loads but
    `nvmlInit` fails with NVML_ERROR_DRIVER_NOT_LOADED. `failure`: every call after init returns that code (an error
    mid-run); set it back to None to recover. `before_call` runs before each call (the simulation advances its scenario
    there). `calls` counts the C calls by name. `name` is what the fake stands for (a simulation's scenario), shown
    once in a chart's status line. A `driver_version` older than 510 has no `nvmlDeviceGetComputeRunningProcesses_v3`
    (those drivers list processes through `_v2` only), so pynvml's unversioned call fails as it does there.
    """

    def __init__(
        self,
        devices: Iterable[FakeDevice] = (),
        *,
        library: bool = True,
        driver: bool = True,
        driver_version: str = "550.54.15",
        before_call: Callable[[], None] | None = None,
        name: str = "fake NVML",
    ) -> None:
        self.name = name
        self.devices = list(devices)
        self.library = library
        self.driver = driver
        self.driver_version = driver_version
        self.before_call = before_call
        self.failure: int | None = None
        self.calls: Counter[str] = Counter()
        self._initialized = 0
        self._saved: tuple[Any, dict[str, Any], int, Any] | None = None
        self._lock = threading.Lock()
        self.c = self._build_library()

    # ---- installing into pynvml ----------------------------------------------------------------------------------

    def install(self) -> FakeNvml:
        import pynvml

        with pynvml.libLoadLock:
            if self._saved is not None:
                return self
            self._saved = (pynvml.nvmlLib, dict(pynvml._nvmlGetFunctionPointer_cache), pynvml._nvmlLib_refcount,
                           pynvml.CDLL)
            pynvml._nvmlGetFunctionPointer_cache.clear()
            pynvml._nvmlLib_refcount = 0
            if self.library:
                pynvml.nvmlLib = self.c
            else:
                pynvml.nvmlLib = None
                pynvml.CDLL = _missing_library  # what ctypes raises on a machine without the driver
            _installed.append(self)
        return self

    def uninstall(self) -> None:
        import pynvml

        with pynvml.libLoadLock:
            if self._saved is None:
                return
            lib, cache, refcount, cdll = self._saved
            pynvml.nvmlLib = lib
            pynvml._nvmlGetFunctionPointer_cache.clear()
            pynvml._nvmlGetFunctionPointer_cache.update(cache)
            pynvml._nvmlLib_refcount = refcount
            pynvml.CDLL = cdll
            self._saved = None
            if self in _installed:
                _installed.remove(self)
            self._initialized = 0

    def __enter__(self) -> FakeNvml:
        return self.install()

    def __exit__(self, *exc: object) -> None:
        self.uninstall()

    # ---- the C functions -----------------------------------------------------------------------------------------

    def _build_library(self) -> FakeNvmlLibrary:
        import pynvml

        fake = self
        success, invalid = pynvml.NVML_SUCCESS, pynvml.NVML_ERROR_INVALID_ARGUMENT
        not_available = pynvml.NVML_VALUE_NOT_AVAILABLE_ulonglong.value

        def init(flags: Any = 0) -> int:
            fake.calls["nvmlInitWithFlags"] += 1
            if not fake.driver:
                return pynvml.NVML_ERROR_DRIVER_NOT_LOADED
            with fake._lock:
                fake._initialized += 1
            return success

        def shutdown() -> int:
            if (code := fake._enter("nvmlShutdown")) is not None:
                return code
            with fake._lock:
                fake._initialized = max(0, fake._initialized - 1)
            return success

        def error_string(code: Any) -> bytes:  # works before init, as in the C library
            # pynvml caches this text per code for the whole process, so it must be the driver's own wording.
            return _ERROR_TEXTS.get(_int(code), "Unknown Error").encode()

        def driver_version(buffer: Any, size: Any) -> int:
            if (code := fake._enter("nvmlSystemGetDriverVersion")) is not None:
                return code
            return _write_text(buffer, size, fake.driver_version)

        def device_count(count: Any) -> int:
            if (code := fake._enter("nvmlDeviceGetCount_v2")) is not None:
                return code
            _target(count).value = len(fake.devices)
            return success

        def handle_by_index(index: Any, handle: Any) -> int:
            if (code := fake._enter("nvmlDeviceGetHandleByIndex_v2")) is not None:
                return code
            i = _int(index)
            if not 0 <= i < len(fake.devices):
                return invalid
            ctypes.c_void_p.from_buffer(_target(handle)).value = _HANDLE_BASE + i * _HANDLE_STRIDE
            return success

        def name(handle: Any, buffer: Any, size: Any) -> int:
            device, code = fake._on_device("nvmlDeviceGetName", handle)
            return code if device is None else _write_text(buffer, size, device.name)

        def uuid(handle: Any, buffer: Any, size: Any) -> int:
            device, code = fake._on_device("nvmlDeviceGetUUID", handle)
            if device is None:
                return code
            index = fake.devices.index(device)
            return _write_text(buffer, size, device.uuid or f"GPU-5157a7ed-0000-4000-8000-{index:012x}")

        def memory(handle: Any, out: Any) -> int:
            device, code = fake._on_device("nvmlDeviceGetMemoryInfo", handle)
            if device is None:
                return code
            used = device.used
            _fill(_target(out), device.total, device.total - used, used)  # total, free, used
            return success

        def memory_v2(handle: Any, out: Any) -> int:
            device, code = fake._on_device("nvmlDeviceGetMemoryInfo_v2", handle)
            if device is None:
                return code
            struct = _target(out)
            if struct.version != pynvml.nvmlMemory_v2:
                return pynvml.NVML_ERROR_ARGUMENT_VERSION_MISMATCH
            used = min(device.total, device.process_bytes + device.others)
            _fill(struct, struct.version, device.total, device.reserved, max(0, device.total - device.reserved - used),
                  used)  # version, total, reserved, free, used
            return success

        def processes(handle: Any, count: Any, infos: Any, name: str = "nvmlDeviceGetComputeRunningProcesses_v3"
                      ) -> int:
            device, code = fake._on_device(name, handle)
            if device is None:
                return code
            if device.process_error is not None:
                return device.process_error
            listed = device.processes
            counter = _target(count)
            if infos is None or counter.value < len(listed):
                # The size query: report how many there are, as the C library does.
                counter.value = len(listed)
                return pynvml.NVML_ERROR_INSUFFICIENT_SIZE if listed else success
            for i, process in enumerate(listed):
                _fill(infos[i], process.pid, not_available if process.used is None else process.used,
                      process.gpu_instance, process.compute_instance)  # as c_nvmlProcessInfo_v3_t declares them
            counter.value = len(listed)
            return success

        def processes_v2(handle: Any, count: Any, infos: Any) -> int:
            return processes(handle, count, infos, "nvmlDeviceGetComputeRunningProcesses_v2")

        def mig_mode(handle: Any, current: Any, pending: Any) -> int:
            device, code = fake._on_device("nvmlDeviceGetMigMode", handle)
            if device is None:
                return code
            _target(current).value = _target(pending).value = int(device.mig)
            return success

        # Drivers before 510 list processes through _v2 only (the version is our own setting, not outside text).
        listing = {"nvmlDeviceGetComputeRunningProcesses_v2": processes_v2}
        if int(self.driver_version.partition(".")[0]) >= _PROCESS_LIST_V3:
            listing["nvmlDeviceGetComputeRunningProcesses_v3"] = processes
        return FakeNvmlLibrary(
            **listing,
            nvmlInitWithFlags=init,
            nvmlInit_v2=init,
            nvmlShutdown=shutdown,
            nvmlErrorString=error_string,
            nvmlSystemGetDriverVersion=driver_version,
            nvmlDeviceGetCount_v2=device_count,
            nvmlDeviceGetHandleByIndex_v2=handle_by_index,
            nvmlDeviceGetName=name,
            nvmlDeviceGetUUID=uuid,
            nvmlDeviceGetMemoryInfo=memory,
            nvmlDeviceGetMemoryInfo_v2=memory_v2,
            nvmlDeviceGetMigMode=mig_mode,
        )

    def _enter(self, name: str) -> int | None:
        """What every C function does first: count the call, let the scenario advance, refuse when uninitialised or
        failing. Returns the error code to return, or None to go on."""
        self.calls[name] += 1  # under concurrent callers a count may be lost; tests count from one thread
        if self.before_call is not None:
            self.before_call()
        if not self._initialized:
            return _UNINITIALIZED
        return self.failure

    def _on_device(self, name: str, handle: Any) -> tuple[FakeDevice | None, int]:
        """`_enter`, then the device behind `handle` (or None and the error code to return)."""
        code = self._enter(name)
        if code is not None:
            return None, code
        address = int.from_bytes(bytes(handle), sys.byteorder)  # the pointer's value, without a ctypes call
        index, rest = divmod(address - _HANDLE_BASE, _HANDLE_STRIDE)
        if rest or not 0 <= index < len(self.devices):
            return None, _INVALID_ARGUMENT
        device = self.devices[index]
        if device.error is not None:
            return None, device.error
        return device, _SUCCESS


_ERROR_TEXTS = {  # nvmlErrorString's texts for the codes pynvml has no text of its own for
    21: "No data",
    22: "vGPU ECC not supported",
    23: "Insufficient resources",
    24: "Frequency not supported",
    25: "Argument version mismatch",
    26: "Deprecated",
    27: "Not ready",
    28: "GPU not found",
    29: "Invalid state",
    30: "Reset type not supported",
}


def _missing_library(*args: Any, **kwargs: Any) -> Any:
    raise OSError("libnvidia-ml.so.1: cannot open shared object file: No such file or directory (simulated)")


_LAYOUTS: dict[type, Struct] = {}
_FORMATS = {ctypes.c_uint: "I", ctypes.c_ulonglong: "Q", ctypes.c_int: "i"}


def _fill(struct: Any, *values: int) -> None:
    """Write every field, in declaration order, straight into the struct's memory as the C library does (pynvml's
    structs route attribute writes through Python, which is slow and not what a driver does)."""
    layout = _LAYOUTS.get(type(struct))
    if layout is None:
        layout = _LAYOUTS[type(struct)] = _layout(type(struct))
    layout.pack_into(memoryview(struct).cast("B"), 0, *values)


def _layout(kind: type) -> Struct:
    """The struct module's picture of a ctypes structure: its fields at their offsets, padding in between."""
    text, position = "<" if sys.byteorder == "little" else ">", 0
    for name, field_type in kind._fields_:  # type: ignore[attr-defined]
        offset = getattr(kind, name).offset
        text += "x" * (offset - position) + _FORMATS[field_type]
        position = offset + ctypes.sizeof(field_type)
    return Struct(text + "x" * (ctypes.sizeof(kind) - position))


def _target(argument: Any) -> Any:
    """The object behind `byref(x)` (pynvml passes out-parameters that way) or the object itself."""
    return getattr(argument, "_obj", argument)


def _int(argument: Any) -> int:
    return int(argument.value if hasattr(argument, "value") else argument)


def _write_text(buffer: Any, size: Any, text: str) -> int:
    import pynvml

    data = text.encode()
    if len(data) + 1 > _int(size):
        return pynvml.NVML_ERROR_INSUFFICIENT_SIZE
    ctypes.memmove(buffer, data + b"\0", len(data) + 1)
    return pynvml.NVML_SUCCESS
