"""JAX's run-time API, `jax.config.update`, the probe for the backend's initialisation (the moment that reads
XLA_FLAGS and the XLA client's memory settings, and after which some options no longer matter), and what its arrays
hold."""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...base._imported import imported
from ...base._source_state import State
from ...base._text import Text
from ...catalog._applicability import effective_text
from ...catalog._jax import FRACTION_NAMES
from ...catalog._out_of_memory import Room, name_in_use
from .._memtrace import BlockRecord, Frame, LiveBlocks
from . import Adapter, LiveApi
from ._counters import Counters, OpenDevices, Reading
from ._out_of_memory import SIZE, OomPattern, both, gpu_index, sizes
from ._tensors import FrameworkTensors, Storage, TensorKind, device_name

if TYPE_CHECKING:
    from ...catalog import Entry


def _option(entry: Entry) -> str:
    return entry.name.lower()  # JAX_ENABLE_X64 is jax.config's jax_enable_x64


def _apply(entry: Entry, value: Any) -> None:
    sys.modules["jax"].config.update(_option(entry), value)


def _read(entry: Entry) -> str:
    return str(getattr(sys.modules["jax"].config, _option(entry)))


def _call(entry: Entry, value: Any) -> str:
    return f"jax.config.update({_option(entry)!r}, {value!r})"


def backends_initialised() -> bool | None:
    """`jax._src.xla_bridge.backends_are_initialized()`: JAX 0.10 has no public equivalent (jax.extend.backend does
    not export it). It only takes a lock and looks at a dict: it never starts a backend."""
    bridge = imported("jax._src.xla_bridge")
    if bridge is None:
        return None
    return bool(bridge.backends_are_initialized())


LIVE_APIS: dict[str, LiveApi] = {"jax.config.update": LiveApi("jax", _apply, _read, _call)}
PROBES = {"jax.backends": lambda entry: backends_initialised()}


def gpu_initialised() -> bool | None:
    """Whether JAX has started a GPU backend (which initialises CUDA); False while it has none, a CPU one included."""
    started = backends_initialised()
    if not started:
        return started
    bridge = sys.modules["jax._src.xla_bridge"]
    return any(name in ("cuda", "rocm", "gpu") for name in getattr(bridge, "_backends", {}))


cuda_started = gpu_initialised  # the registry's question: has this framework initialised CUDA?


# ---- what its objects hold (the holders walk asks; runtime/frameworks/_tensors.py) -------------------------------

def _storage(array: Any) -> Storage | None:
    if array.is_deleted():
        return None
    devices = list(array.devices())
    device = devices[0] if len(devices) == 1 else None
    where = device_name(device.platform, device.id) if device is not None else "+".join(
        sorted(device_name(d.platform, d.id) for d in devices))
    try:
        key: tuple[Any, ...] = ("jax", where, array.unsafe_buffer_pointer())
    except Exception:  # sharded over devices, or a backend without pointers
        key = ("jax", id(array))
    return Storage(key, where, int(array.nbytes), True)


def tensor_kinds() -> FrameworkTensors | None:
    """JAX's arrays: `jax.Array` is an abstract type; every array is an `ArrayImpl` (jax._src.array), the type looked
    for. None until jax is imported. JAX has no modules of its own."""
    array = imported("jax._src.array") if imported("jax") is not None else None
    concrete = getattr(array, "ArrayImpl", None) if array is not None else None
    if not isinstance(concrete, type):
        return None
    return FrameworkTensors("jax", (TensorKind(concrete, "jax.Array", _storage),))
def live_blocks() -> BlockRecord | None:
    """JAX's live buffers now and where each was allocated, from its device memory profile
    (`jax.profiler.device_memory_profile()`, pprof). JAX records a Python stack for every buffer it allocates, always
    ("the instrumentation is always enabled"), so there is nothing to turn on. None when JAX is not imported or has
    no backend yet (asking would start one)."""
    if imported("jax") is None or not backends_initialised():
        return None
    from ._pprof import samples

    profile = sys.modules["jax"].profiler.device_memory_profile()
    blocks = []
    for sample in samples(profile):
        if sample.labels.get("kind") != "buffer":  # compiled executables: no bytes of their own in the profile
            continue
        size = sample.values.get("space", 0)
        if size <= 0:
            continue
        device = str(sample.labels.get("device", "?"))
        frames = tuple(Frame(filename, line, function) for filename, line, function in sample.stack)
        blocks.append(LiveBlocks(size, sample.values.get("allocations", 1), device, frames))
    return BlockRecord("jax", tuple(blocks), sum(b.bytes for b in blocks))


class JaxRecorder:
    """Where JAX's memory was allocated, for the sites: JAX keeps every live buffer's stack itself, so recording a
    cell only means looking often enough to see its peak. While a cell is traced a thread takes the profile every
    `interval` seconds and keeps the largest; `stop()` compares it with one taken at the end."""

    framework = "jax"

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self._best: BlockRecord | None = None
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None

    def available(self) -> bool:
        return imported("jax") is not None  # a backend started during the cell is seen by the next profile

    def keep_on(self, on: bool) -> bool:
        return True  # always on: nothing to switch

    def now(self) -> BlockRecord | None:
        return live_blocks()

    def start(self) -> None:
        self._best = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, args=(self._stop,), name="mgenv-jax-sites", daemon=True)
        self._thread.start()

    def _poll(self, stop: threading.Event) -> None:
        while not stop.wait(self.interval):
            try:
                self._keep(live_blocks())
            except Exception:  # a profile that fails mid-cell is skipped; the one at the end still comes
                continue

    def _keep(self, record: BlockRecord | None) -> None:
        if record is not None and (self._best is None or record.total > self._best.total):
            self._best = record

    def stop(self) -> BlockRecord | None:
        if self._stop is not None and self._thread is not None:
            self._stop.set()
            self._thread.join()
        self._stop = self._thread = None
        self._keep(live_blocks())
        best, self._best = self._best, None
        return best


def peak_counters() -> dict[str, int]:
    """JAX's `peak_bytes_in_use` per device of its started backends, since the process started (JAX has no reset).
    Backends without statistics (the CPU's `memory_stats()` is None) give nothing; asking never starts a backend."""
    if not backends_initialised():
        return {}
    peaks = {}
    for device in sys.modules["jax"].local_devices():
        stats = device.memory_stats()
        if stats and "peak_bytes_in_use" in stats:
            peaks[f"{device.platform}{device.id} peak_bytes_in_use"] = int(stats["peak_bytes_in_use"])
    return peaks


def reset_peak_counters() -> bool:
    """JAX keeps its peak for the process's life: nothing to reset (False)."""
    return False


MEMTRACE_RECORDER = JaxRecorder  # the registry's recorder of where this framework's memory was allocated

# ---- its out-of-memory errors (oom/_recognise.py asks; runtime/frameworks/_out_of_memory.py) ---------------------

OOM_PATTERNS = (
    # XLA's BFC allocator via jax.errors.JaxRuntimeError (jaxlib.xla_extension.XlaRuntimeError before JAX 0.4.36):
    # GPU "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1.00TiB with allocator GPU_0_bfc on device 0"
    # (H100 capture); CPU "RESOURCE_EXHAUSTED: Out of memory allocating 1125899906842624 bytes." (jax venv).
    OomPattern("jax", "gpu", ("jax.errors.JaxRuntimeError", "jaxlib.xla_extension.XlaRuntimeError",
                              "jax._src.lib.xla_extension.XlaRuntimeError"),
               re.compile(rf"RESOURCE_EXHAUSTED: Out of memory while trying to allocate (?P<requested>{SIZE}) with "
                          r"allocator GPU_(?P<gpu>\d+)_bfc"),
               both(sizes(requested="requested"), gpu_index)),
    OomPattern("jax", "host", ("jax.errors.JaxRuntimeError", "jaxlib.xla_extension.XlaRuntimeError",
                               "jax._src.lib.xla_extension.XlaRuntimeError"),
               re.compile(rf"RESOURCE_EXHAUSTED: Out of memory allocating (?P<requested>{SIZE})"),
               sizes(requested="requested")),
    OomPattern("jax", "gpu", ("jax.errors.JaxRuntimeError", "jaxlib.xla_extension.XlaRuntimeError",
                              "jax._src.lib.xla_extension.XlaRuntimeError"),
               re.compile(r"out of memory|GPU_(?P<gpu>\d+)_bfc", re.I), gpu_index, after="RESOURCE_EXHAUSTED:"),
)

# ---- its own causes of running out of memory (oom/_causes.py asks; the words: catalog/_jax.py) -----------------------

def oom_evidence(cause: str, facts: Mapping[str, int], room: Room, session: Any) -> dict[str, float] | None:
    """JAX's cap shows when its share of the GPU (the name in use, else the catalog's default) is below 95% of what
    other processes leave free."""
    if cause != "cap":
        return None
    get, known = session.get, session.catalog
    name = name_in_use(FRACTION_NAMES, get)
    try:
        fraction = float(effective_text(known, name, get) or "")  # the catalog's default when unset
    except ValueError:  # set outside the session to what JAX cannot read: its default
        fraction = float(known.get(name).default)
    free = None if room.total is None else room.total - (room.others or 0)
    if free is not None and room.total and fraction * room.total < free * 0.95:
        return {"fraction": fraction, "cap": int(fraction * room.total), "room": free}
    return None

# ---- its allocator's counters (memory/_framework_sources.py asks; runtime/frameworks/_counters.py) --------------

def read_counters(jax: Any, devices: list[int] | None, open_devices: OpenDevices) -> Reading:
    """JAX's allocator per device of its default backend: `Device.memory_stats()` → `bytes_in_use` (allocated),
    `pool_bytes` (reserved: what the allocator took from the device, all of it when JAX preallocates), and
    `peak_bytes_in_use` (peak); `bytes_limit` (the most it may take: XLA_PYTHON_CLIENT_MEM_FRACTION of the device) is
    the device's `total`.

    Read only once JAX has started its backends (`jax._src.xla_bridge.backends_are_initialized()`): asking for devices
    earlier would start them, which reads XLA_FLAGS and the XLA client's memory settings and, on a GPU, preallocates
    most of its memory. A backend without statistics (the CPU's `memory_stats()` is None) gives no series.
    """
    if not backends_initialised():
        return Reading([], State("backends_not_started", framework="jax"))
    counters = []
    untracked = set()
    for device in jax.local_devices():
        if devices is not None and device.id not in devices:
            continue
        stats = device.memory_stats()
        if not stats:
            untracked.add(device.platform)
            continue
        counters.append(Counters(f"{device.platform}{device.id}", allocated=stats.get("bytes_in_use"),
                                 reserved=stats.get("pool_bytes"), peak=stats.get("peak_bytes_in_use"),
                                 total=stats.get("bytes_limit")))
    if counters:
        return Reading(counters)
    platforms = ", ".join(sorted(untracked)) or "default"
    return Reading([], State("no_memory_statistics", framework="jax", platforms=platforms))


# Its states' words (memory/_state_words.py): code → words.
STATE_WORDS = {
    "backends_not_started": Text("{framework} has not started its backends yet (its first operation starts them)",
                                 "{framework} 尚未启动其后端(第一次运算时启动)"),
    "no_memory_statistics": Text("{framework}'s {platforms} backend keeps no memory statistics "
                                 "(Device.memory_stats() is None)",
                                 "{framework} 的 {platforms} 后端不记录显存统计(Device.memory_stats() 为 None)"),
}


# What this adapter offers the rest of the product (runtime/frameworks/__init__.py, Adapter).
ADAPTER = Adapter(live_apis=LIVE_APIS, probes=PROBES, cuda_started=cuda_started, tensor_kinds=tensor_kinds,
    memtrace_recorder=MEMTRACE_RECORDER, peak_counters=peak_counters, reset_peak_counters=reset_peak_counters,
    oom_patterns=OOM_PATTERNS, oom_evidence=oom_evidence, read_counters=read_counters, state_words=STATE_WORDS)
