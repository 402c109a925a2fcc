"""One NVML client's life, shared by the kernel's `NvmlSource`, the server's `GpuProcessReader` and the out-of-memory
report's list of other processes (oom/_state.py, a client for one reading).

NVML is initialised on the first read and kept while pynvml's library is the one initialised; without a driver it is
tried again every `retry_seconds` (at once when the simulated GPU comes or goes); when someone shut NVML down under
us it is initialised again on the next read; `close()` releases it (NVML counts initialisations). A read never
raises: what stops it becomes `state`, a code (`State`; memory/_state_words.py words it).
Without the simulated GPU, before anyone imported pynvml, NVIDIA's library is looked for first: a machine without a
driver then never pays pynvml's import (about ten milliseconds).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from ..base._source_state import NO_GPU, NO_LIBRARY, NOT_LOADED, STATE_OK, State

if TYPE_CHECKING:
    from .simulated._fake_nvml import FakeNvml


NOT_READ = State("not_read")
T = TypeVar("T")


def installed() -> FakeNvml | None:
    """The fake NVML standing in for NVIDIA's library, if one is installed (memory/simulated/_fake_nvml.py). Only a
    test or the simulated GPU installs one, by importing that module first: a kernel that never did does not import
    it (nor its ctypes structures) to learn that none is there."""
    fake = sys.modules.get(f"{__package__}.simulated._fake_nvml")
    return None if fake is None else fake.installed()


class NvmlDevice(NamedTuple):
    """A device as NVML listed it when it was initialised: its handle and whether MIG mode is on."""

    handle: Any
    mig: bool


class NvmlClient:
    """NVML for one reader. `read(what)` initialises NVML when it must and returns `what(pynvml)`'s result, or None
    when NVML cannot be asked or fails; `state` then says why, else it is the state `what` returned. `devices` are
    those listed at the last initialisation; `on_start(pynvml)` runs after each, for what a reader keeps per device.
    `simulated` and `simulation` say whether the fake NVML library (MGENV_SIMULATE_GPU) answered, and which
    scenario."""

    def __init__(self, retry_seconds: float = 10.0, state: State = NOT_READ,
                 on_start: Callable[[Any], None] | None = None) -> None:
        self.retry_seconds = retry_seconds
        self.state = state
        self.devices: list[NvmlDevice] = []
        fake = installed()
        self.simulated = fake is not None
        self.simulation: str | None = None if fake is None else fake.name
        self._on_start = on_start
        self._library: Any = None  # the pynvml.nvmlLib we initialised; a different one means initialise again
        self._next_try = 0.0
        self._process_query = "nvmlDeviceGetComputeRunningProcesses"

    def read(self, what: Callable[[Any], tuple[T, State]]) -> T | None:
        fake = installed()
        if (fake is not None) != self.simulated:
            self._next_try = 0.0  # the simulated GPU came or went: ask the NVML now in place at once, not after a retry
        self.simulated = fake is not None
        self.simulation = None if fake is None else fake.name
        if fake is None and "pynvml" not in sys.modules:  # pynvml's import costs more than asking for its library
            now = time.monotonic()
            if now < self._next_try:
                return None
            if not nvml_library_loads():
                self._no_driver(State(NO_LIBRARY), now)
                return None
        try:
            import pynvml
        except ImportError:
            self.state = State("no_pynvml")
            return None
        try:
            if not self._start(pynvml):
                return None
            result, self.state = what(pynvml)
            return result
        except pynvml.NVMLError as exc:
            if isinstance(exc, pynvml.NVMLError_Uninitialized):
                self._library = None  # someone shut NVML down under us: initialise again next time
            self.state = State("nvml_error", error=exc)
        except Exception as exc:  # a sampler or a server must survive anything a driver binding can throw
            self.state = State("nvml_error", error=f"{type(exc).__name__}: {exc}")
        return None

    def processes(self, pynvml: Any, handle: Any) -> list[Any]:
        """The compute processes NVML lists on the device `handle` (the query takes the driver's global lock)."""
        try:
            return getattr(pynvml, self._process_query)(handle)
        except pynvml.NVMLLibraryMismatchError:
            # Drivers older than 510 lack the _v3 entry point pynvml uses by default.
            self._process_query = "nvmlDeviceGetComputeRunningProcesses_v2"
            return pynvml.nvmlDeviceGetComputeRunningProcesses_v2(handle)

    def close(self) -> None:
        """Release our NVML initialisation; a later `read()` initialises again."""
        if self._library is None:
            return
        import pynvml

        self._library = None
        self.devices = []
        if pynvml.nvmlLib is not None:
            try:
                pynvml.nvmlShutdown()
            except pynvml.NVMLError:
                pass

    def _start(self, pynvml: Any) -> bool:
        if self._library is not None and pynvml.nvmlLib is self._library:
            return True
        now = time.monotonic()
        if self._library is None and now < self._next_try:
            return False
        self._library = None
        try:
            pynvml.nvmlInit()
        except pynvml.NVMLError_LibraryNotFound:
            self._no_driver(State(NO_LIBRARY), now)
            return False
        except pynvml.NVMLError_DriverNotLoaded:
            self._no_driver(State(NOT_LOADED), now)
            return False
        self._library = pynvml.nvmlLib
        self.devices = []
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            self.devices.append(NvmlDevice(handle, _mig_enabled(pynvml, handle)))
        self.state = STATE_OK if self.devices else State(NO_GPU)
        if self._on_start is not None:
            self._on_start(pynvml)
        return True

    def _no_driver(self, state: State, now: float) -> None:
        self.state = state
        self.devices = []
        self._next_try = now + self.retry_seconds


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
