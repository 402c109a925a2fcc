"""PyTorch's run-time APIs: the allocator settings, the CPU thread count, and the compiler's config modules; the
probe that tells whether CUDA (hence the allocator) has been initialised; and where its memory was allocated: the CUDA
memory history (`torch.cuda.memory._record_memory_history`, `_snapshot()`) and, on the CPU, the profiler's memory
events with their Python stacks.

`torch._C._accelerator_setAllocatorSettings` is what `torch.cuda.memory._set_allocator_settings` calls (the latter
warns that it is deprecated in torch 2.13). It re-parses the whole string — keys left out go back to their defaults —
so the full normalised value is passed, never a single key.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...base._imported import imported
from ...base._source_state import HOLDS_NOTHING, State
from ...base._text import Text
from ...catalog._out_of_memory import Room
from .._memtrace import BlockRecord, Frame, LiveBlocks
from . import Adapter, CacheCall, LiveApi
from ._counters import Counters, OpenDevices, Reading
from ._out_of_memory import SIZE, OomPattern, both, gpu_index, sizes
from ._tensors import (
    BUFFER,
    CHILD,
    PARAMETER,
    FrameworkTensors,
    ModuleKind,
    Storage,
    TensorKind,
    device_name,
    registries,
)

if TYPE_CHECKING:
    from ...catalog import Entry


def _torch() -> Any:
    return sys.modules["torch"]


def _set_allocator(entry: Entry, value: Any) -> None:
    _torch()._C._accelerator_setAllocatorSettings(entry.type.parse(value).text)


def _read_allocator(entry: Entry) -> str | None:
    """What the allocator now holds, where torch can say: the getter came with torch 2.13; torch 2.11 (checked on a
    real GPU) has the setter but no getter, so there the change is made and not read back."""
    getter = getattr(_torch()._C, "_accelerator_getAllocatorSettings", None)
    return None if getter is None else str(getter())


def _allocator_call(entry: Entry, value: Any) -> str:
    return f"torch._C._accelerator_setAllocatorSettings({entry.type.parse(value).text!r})"


def _set_threads(entry: Entry, value: Any) -> None:
    _torch().set_num_threads(int(value))


def _config(module: str, attribute: str, kind: type) -> LiveApi:
    """A `torch._inductor.config` / `torch._dynamo.config` attribute: later compiles read it."""
    def apply(entry: Entry, value: Any) -> None:
        setattr(sys.modules[module], attribute, kind(value))

    def read(entry: Entry) -> str:
        return str(getattr(sys.modules[module], attribute))

    return LiveApi(module, apply, read, lambda entry, value: f"{module}.{attribute} = {kind(value)!r}")


LIVE_APIS: dict[str, LiveApi] = {
    "torch.allocator_settings": LiveApi(
        "torch", _set_allocator, _read_allocator, _allocator_call,
        survives_latch=True,  # the allocator reads its settings at every allocation
    ),
    "torch.set_num_threads": LiveApi(
        "torch", _set_threads, lambda e: str(_torch().get_num_threads()),
        lambda e, value: f"torch.set_num_threads({int(value)})",
    ),
    **{f"torch._inductor.config:{name}": _config("torch._inductor.config", name, kind)
       for name, kind in (("max_autotune", bool), ("max_autotune_gemm", bool), ("freezing", bool),
                          ("fx_graph_cache", bool), ("compile_threads", int))},
    **{f"torch._dynamo.config:{name}": _config("torch._dynamo.config", name, bool)
       for name in ("disable", "verbose", "suppress_errors")},
}


def cuda_initialised() -> bool | None:
    """Whether torch has initialised CUDA: its caching allocator exists and has read its settings. Asking never
    initialises CUDA (`torch.cuda.is_initialized` only reads a flag)."""
    torch = imported("torch")
    if torch is None:
        return None
    return bool(torch.cuda.is_initialized())


cuda_started = cuda_initialised  # the registry's question: has this framework initialised CUDA?


PROBES = {"torch.cuda": lambda entry: cuda_initialised()}


# ---- what its objects hold (the holders walk asks; runtime/frameworks/_tensors.py) -------------------------------

# nn.Module's own registries: what parameters(), buffers() and children() list (each module's, without recursing)
_REGISTRIES = (("_parameters", PARAMETER), ("_buffers", BUFFER), ("_modules", CHILD))


def _storage(tensor: Any) -> Storage | None:
    device = tensor.device
    if device.type == "meta":  # a shape without memory (a model built under `torch.device("meta")`)
        return None
    where = device_name(device.type, device.index)
    try:
        storage = tensor.untyped_storage()
    except (RuntimeError, NotImplementedError):  # sparse or another layout without one storage: its own size
        return Storage(("torch", id(tensor)), where, int(tensor.element_size() * tensor.nelement()), True)
    size = int(storage.nbytes())
    owner = tensor._base is None and tensor.storage_offset() == 0 and tensor.nbytes == size
    return Storage(("torch", where, storage.data_ptr()), where, size, owner)


def _module_contents(attributes: dict[str, Any]) -> list[tuple[str, Any]]:
    return registries(attributes, _REGISTRIES)


def tensor_kinds() -> FrameworkTensors | None:
    """PyTorch's tensors (`torch.Tensor`, and `nn.Parameter`, which is one) and `nn.Module` with its `_parameters`,
    `_buffers` and `_modules` registries; None until torch is imported."""
    torch, nn = imported("torch"), imported("torch.nn")
    if torch is None or nn is None:
        return None
    return FrameworkTensors("torch", (TensorKind(torch.Tensor, "torch.Tensor", _storage),
                                      TensorKind(nn.Parameter, "torch.nn.Parameter", _storage)),
                            ModuleKind(nn.Module, "torch", _module_contents))
# ---- where the memory was allocated ---------------------------------------------------------------------------------

HISTORY_ENTRIES = 100_000  # alloc/free events the CUDA memory history keeps (PyTorch's own default)


def cuda_history(on: bool) -> bool:
    """Turn PyTorch's CUDA memory history on (a Python stack for every block allocated from now on, and a trace of
    allocations and frees) or off. Only once CUDA is initialised: turning it on would initialise CUDA. False where
    there is no CUDA to record."""
    if not cuda_initialised():
        return False
    record = getattr(_torch().cuda.memory, "_record_memory_history", None)
    if record is None:
        return False
    try:
        if on:
            record(enabled="all", context="all", stacks="python", max_entries=HISTORY_ENTRIES)
        else:
            record(enabled=None)
    except (AttributeError, RuntimeError):  # a CPU-only build has no history to record
        return False
    return True


def cuda_blocks(at_peak: bool) -> BlockRecord | None:
    """The CUDA blocks live now (`at_peak` False) or at the highest point of the recorded trace, from PyTorch's own
    snapshot. None without CUDA."""
    if not cuda_initialised():
        return None
    return snapshot_record(_torch().cuda.memory._snapshot(), at_peak)


def _frames(raw: object) -> tuple[Frame, ...]:
    if not isinstance(raw, list):
        return ()
    return tuple(Frame(str(f.get("filename", "")), int(f.get("line", 0) or 0), str(f.get("name", "")))
                 for f in raw if isinstance(f, dict))


def snapshot_record(snapshot: dict[str, Any], at_peak: bool) -> BlockRecord:
    """A memory snapshot as `torch.cuda.memory._snapshot()` returns it (documented in torch/cuda/_memory_viz.py and
    the "Understanding CUDA Memory Usage" page): `segments`, each with its `device` and `blocks` (`size`, `state`,
    `address`, `frames` innermost first), and `device_traces`, one list of events a device (`action` "alloc" /
    "free_requested" / "free_completed" / "segment_alloc" ..., `addr`, `size`, `frames`).

    Now: the blocks whose state is "active_allocated". At the peak: the trace replayed (an "alloc" adds its block, a
    "free_completed" removes it) to its highest total, plus the blocks live now that the trace never mentions (alive
    since before the history was turned on, so alive at the peak too)."""
    live: dict[tuple[int, int], LiveBlocks] = {}
    for segment in snapshot.get("segments", ()):
        device = int(segment.get("device", 0))
        for block in segment.get("blocks", ()):
            if block.get("state") == "active_allocated":
                live[(device, int(block.get("address", 0)))] = LiveBlocks(
                    int(block.get("size", 0)), 1, f"gpu{device}", _frames(block.get("frames")))
    if at_peak:
        live = _at_peak(live, snapshot.get("device_traces", ()))
    blocks = tuple(live.values())
    return BlockRecord("torch", blocks, sum(b.bytes for b in blocks))


def _at_peak(now: dict[tuple[int, int], LiveBlocks], traces: Any) -> dict[tuple[int, int], LiveBlocks]:
    events = [(device, event) for device, trace in enumerate(traces) for event in trace
              if event.get("action") in ("alloc", "free_completed")]
    touched = {(device, int(event.get("addr", 0))) for device, event in events}
    before = {key: block for key, block in now.items() if key not in touched}
    total = best = sum(b.bytes for b in before.values())
    best_at = 0
    sizes: dict[tuple[int, int], int] = {}
    for index, (device, event) in enumerate(events, start=1):
        key = (device, int(event.get("addr", 0)))
        if event["action"] == "alloc":
            sizes[key] = int(event.get("size", 0))
            total += sizes[key]
        else:
            total -= sizes.pop(key, 0)
        if total > best:
            best, best_at = total, index
    live = dict(before)
    for device, event in events[:best_at]:
        key = (device, int(event.get("addr", 0)))
        if event["action"] == "alloc":
            live[key] = LiveBlocks(int(event.get("size", 0)), 1, f"gpu{device}", _frames(event.get("frames")))
        else:
            live.pop(key, None)
    return live


# Kineto, the library under PyTorch's profiler, writes "USDT: … profiler_start" and "… profiler_stop" to the process's
# standard error at every start and stop, at any log level but one above all of its levels: the notebook showed a red
# block under every recorded cell. It reads the level once, when the process's first profile starts (torch 2.13): set
# for that moment only, so that the kernel's environment (what %envdiff lists, what child processes inherit) is left
# as it was. Its errors are silenced with it; a recording that fails says so through our own result.
KINETO_LOG_LEVEL = "KINETO_LOG_LEVEL"
KINETO_SILENT = "6"


class CpuProfile:
    """PyTorch's profiler recording the CPU's memory events with their Python stacks (`profile_memory=True,
    with_stack=True`): every allocation and free while it runs. `stop()` gives the blocks live at the highest point
    of what was recorded (memory allocated before `start()` is not in the record)."""

    def __init__(self) -> None:
        profiler = _torch().profiler
        self._profile = profiler.profile(activities=[profiler.ProfilerActivity.CPU], profile_memory=True,
                                         with_stack=True)

    def start(self) -> CpuProfile:
        quiet = KINETO_LOG_LEVEL not in os.environ  # a level the user chose is theirs
        if quiet:
            os.environ[KINETO_LOG_LEVEL] = KINETO_SILENT
        try:
            self._profile.start()
        finally:
            if quiet:
                os.environ.pop(KINETO_LOG_LEVEL, None)
        return self

    def stop(self) -> BlockRecord:
        self._profile.stop()
        tree = self._profile.profiler.kineto_results.experimental_event_tree()
        return BlockRecord("torch", *_cpu_peak(tree))


def _cpu_peak(tree: Any) -> tuple[tuple[LiveBlocks, ...], int]:
    from torch._C._profiler import _EventType

    allocations = []
    pending = list(tree)
    while pending:
        event = pending.pop()
        pending.extend(event.children)
        if event.tag == _EventType.Allocation and str(event.extra_fields.device).startswith("cpu"):
            allocations.append(event)
    allocations.sort(key=lambda e: e.start_time_ns)
    total = best = 0
    best_at = 0
    for index, event in enumerate(allocations, start=1):
        total += int(event.extra_fields.alloc_size)
        if total > best:
            best, best_at = total, index
    live: dict[int, tuple[int, Any]] = {}
    for event in allocations[:best_at]:
        fields = event.extra_fields
        if fields.alloc_size > 0:
            live[int(fields.ptr)] = (int(fields.alloc_size), event)
        else:
            live.pop(int(fields.ptr), None)
    blocks = tuple(LiveBlocks(size, 1, "cpu", _cpu_stack(event, _EventType)) for size, event in live.values())
    return blocks, sum(b.bytes for b in blocks)


def _cpu_stack(event: Any, kinds: Any) -> tuple[Frame, ...]:
    """An allocation's Python stack, innermost first: the frame that called into C (the nearest C call's caller, at
    the line of the call), then the caller of each Python call around it (each at the line of its call)."""
    frames: list[Frame] = []
    parent = event.parent
    while parent is not None:
        if (parent.tag == kinds.PyCCall and not frames) or parent.tag == kinds.PyCall:
            caller = parent.extra_fields.caller
            frames.append(Frame(caller.file_name, int(caller.line_number), caller.function_name))
        parent = parent.parent
    return tuple(frames)


class TorchRecorder:
    """Where PyTorch's memory was allocated, for the sites. Once CUDA is started, the memory history: on for a traced
    cell (or kept on across cells), read at the trace's peak, or now at a failure. Without CUDA, the CPU profiler's
    memory events for the traced cell (PyTorch keeps no record of CPU blocks otherwise, so there is nothing to read at
    a failure outside a traced cell)."""

    framework = "torch"

    def __init__(self) -> None:
        self._kept_on = False
        self._cuda = False
        self._cpu: CpuProfile | None = None

    def available(self) -> bool:
        return imported("torch") is not None

    def keep_on(self, on: bool) -> bool:
        """Keep the CUDA memory history on across cells (or stop it): False where there is no CUDA to record."""
        self._kept_on = on and cuda_history(True)
        if not on:
            cuda_history(False)
        return self._kept_on

    def now(self) -> BlockRecord | None:
        return cuda_blocks(at_peak=False) if (self._kept_on or self._cuda) else None

    def start(self) -> None:
        self._cuda = self._kept_on or cuda_history(True)
        # The CPU profiler records every operator too: only where there is no CUDA history to read instead.
        self._cpu = None if self._cuda else CpuProfile().start()

    def stop(self) -> BlockRecord | None:
        cpu, self._cpu = self._cpu, None
        cpu_record = cpu.stop() if cpu is not None else None
        cuda_record = cuda_blocks(at_peak=True) if self._cuda else None
        if self._cuda and not self._kept_on:
            cuda_history(False)
        self._cuda = False
        if cuda_record is None:
            return cpu_record
        if cpu_record is None:
            return cuda_record
        return BlockRecord("torch", cuda_record.blocks + cpu_record.blocks, cuda_record.total + cpu_record.total)


def peak_counters() -> dict[str, int]:
    """PyTorch's own peaks per GPU it has used, since its last reset: `max_memory_allocated` (tensors) and
    `max_memory_reserved` (what its caching allocator took from the device). Nothing before torch has initialised
    CUDA (asking never initialises it)."""
    if not cuda_initialised():
        return {}
    cuda = _torch().cuda
    peaks = {}
    for ordinal in range(cuda.device_count()):
        reserved = cuda.max_memory_reserved(ordinal)
        if reserved:
            peaks[f"gpu{ordinal} max_allocated"] = int(cuda.max_memory_allocated(ordinal))
            peaks[f"gpu{ordinal} max_reserved"] = int(reserved)
    return peaks


def reset_peak_counters() -> bool:
    """Start PyTorch's peaks again from what it holds now (`torch.cuda.reset_peak_memory_stats`); False when there
    is nothing to reset (CUDA not initialised)."""
    if not cuda_initialised():
        return False
    cuda = _torch().cuda
    for ordinal in range(cuda.device_count()):
        cuda.reset_peak_memory_stats(ordinal)
    return True


MEMTRACE_RECORDER = TorchRecorder  # the registry's recorder of where this framework's memory was allocated

# ---- its out-of-memory errors (oom/_recognise.py asks; runtime/frameworks/_out_of_memory.py) ---------------------

# The most text between two facts of one PyTorch message (its lines about other processes using the GPU).
_GAP = 4096
_TORCH_GPU = re.compile(
    # c10/cuda/CUDACachingAllocator.cpp, as PyTorch 2.11 wrote it on an H100 (tests/data/cuda_facts_h100.json)
    rf"out of memory\. Tried to allocate (?P<requested>{SIZE})\. GPU (?P<gpu>\d+) has a total capacity of "
    rf"(?P<total>{SIZE}) of which (?P<free>{SIZE}) is free\.")
# The message's later figures, each searched for in the _GAP characters after the head above: one search each from
# one place, where optional parts `(?:.*?X)?` of one pattern would scan on from every repeat of the head.
_TORCH_LATER = (
    re.compile(rf"this process has (?P<in_use>{SIZE}) memory in use\.(?:\s*(?P<allowed>{SIZE}) allowed;)?"),
    re.compile(rf"Of the allocated memory (?P<allocated>{SIZE}) is allocated by PyTorch, and (?P<cached_free>{SIZE}) "
               r"is reserved by PyTorch but unallocated"),
)


def _torch_gpu(match: re.Match[str] | None) -> dict[str, int]:
    facts = both(sizes(requested="requested", total="total", free="free"), gpu_index)(match)
    if match is not None:
        later = match.string[match.end():match.end() + _GAP]
        for pattern in _TORCH_LATER:
            found = pattern.search(later)
            facts.update(sizes(**{name: name for name in pattern.groupindex})(found) if found else {})
    return facts


_TORCH_GPU_SHORT = re.compile(rf"out of memory\. Tried to allocate (?P<requested>{SIZE})")

OOM_PATTERNS = (
    OomPattern("torch", "gpu", ("torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError"), _TORCH_GPU, _torch_gpu),
    OomPattern("torch", "gpu", ("torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError"), _TORCH_GPU_SHORT,
               sizes(requested="requested")),
    OomPattern("torch", "gpu", ("torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError"), None),
    # c10/core/impl/alloc_cpu.cpp (torch 2.13 CPU wheel): "DefaultCPUAllocator: can't allocate memory: you tried to
    # allocate 1125899906842624 bytes. Error code 12 (Cannot allocate memory)"
    OomPattern("torch", "host", ("builtins.RuntimeError",),
               re.compile(r"DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                          r"(?P<requested>\d+) bytes"),
               sizes(requested="requested")),
)

# ---- giving its cached memory back (oom/_free.py asks) -------------------------------------------------------------

def release_cache(torch: Any, gpus: Callable[[], list[int]]) -> list[CacheCall]:
    """`torch.cuda.empty_cache()` once CUDA is initialised (before that there is no cache to give back)."""
    cuda = getattr(torch, "cuda", None)
    if cuda is not None and cuda.is_initialized():
        return [CacheCall("torch.cuda.empty_cache()", cuda.empty_cache)]
    return []

# ---- its own causes of running out of memory (oom/_causes.py asks; the words: catalog/_torch.py) ---------------------

def oom_evidence(cause: str, facts: Mapping[str, int], room: Room, session: Any) -> dict[str, float] | None:
    """PyTorch's cap shows when its message states the per-process fraction's `allowed` size."""
    allowed = facts.get("allowed")
    return {"allowed": allowed} if cause == "cap" and allowed is not None else None

# ---- its allocator's counters (memory/_framework_sources.py asks; runtime/frameworks/_counters.py) --------------

def read_counters(torch: Any, devices: list[int] | None, open_devices: OpenDevices) -> Reading:
    """PyTorch's caching allocator per GPU (`torch.cuda.memory_allocated`, `memory_reserved`,
    `max_memory_allocated`), read only once PyTorch has initialised CUDA itself. GPUs it holds nothing on are left out.
    """
    cuda = torch.cuda
    if not cuda.is_initialized():
        return Reading([], State("cuda_not_initialised", framework="torch"))
    counters = []
    for ordinal in devices if devices is not None else range(cuda.device_count()):
        reserved = cuda.memory_reserved(ordinal)
        if devices is None and not reserved:
            continue
        counters.append(Counters(f"gpu{ordinal}", allocated=cuda.memory_allocated(ordinal), reserved=reserved,
                                 peak=cuda.max_memory_allocated(ordinal)))
    return Reading(counters, None if counters else State(HOLDS_NOTHING, framework="torch"))


# Its states' words (memory/_state_words.py): code → words.
STATE_WORDS = {
    "cuda_not_initialised": Text("{framework} has not initialised CUDA in this kernel yet",
                                 "{framework} 尚未在此内核中初始化 CUDA"),
}


# What this adapter offers the rest of the product (runtime/frameworks/__init__.py, Adapter).
ADAPTER = Adapter(live_apis=LIVE_APIS, probes=PROBES, cuda_started=cuda_started, tensor_kinds=tensor_kinds,
    memtrace_recorder=MEMTRACE_RECORDER, peak_counters=peak_counters, reset_peak_counters=reset_peak_counters,
    oom_patterns=OOM_PATTERNS, oom_evidence=oom_evidence, release_cache=release_cache, read_counters=read_counters,
    state_words=STATE_WORDS)
