"""Paddle's run-time API: `paddle.set_flags` for every public FLAGS_*, read back with `paddle.get_flags`; and what its
tensors and layers hold."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...base._imported import imported
from ...base._source_state import HOLDS_NOTHING, State
from ...base._text import Text
from ...catalog._applicability import ALWAYS, Applicability, applicability
from ...catalog._out_of_memory import Room
from ...catalog._values import format_size
from . import Adapter, CacheCall, LiveApi, SessionView
from ._counters import ChartLine, Counters, OpenDevices, Reading, first_line
from ._out_of_memory import SIZE, OomPattern, both, gpu_index, sizes
from ._tensors import (
    BUFFER,
    CHILD,
    HOST,
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


def _apply(entry: Entry, value: Any) -> None:
    sys.modules["paddle"].set_flags({entry.name: value})


def _read(entry: Entry) -> str:
    return str(sys.modules["paddle"].get_flags([entry.name])[entry.name])


def _call(entry: Entry, value: Any) -> str:
    return f"paddle.set_flags({{{entry.name!r}: {value!r}}})"


LIVE_APIS: dict[str, LiveApi] = {"paddle.set_flags": LiveApi("paddle", _apply, _read, _call)}


# ---- what its objects hold (the holders walk asks; runtime/frameworks/_tensors.py) -------------------------------

# nn.Layer's own registries: what parameters(), buffers() and children() list (each layer's, without recursing)
_REGISTRIES = (("_parameters", PARAMETER), ("_buffers", BUFFER), ("_sub_layers", CHILD))


def _storage(tensor: Any) -> Storage | None:
    if not tensor._is_initialized():
        return None
    place = tensor.place
    where = device_name("gpu", place.gpu_device_id()) if place.is_gpu_place() else (
        HOST if place.is_cpu_place() or place.is_cuda_pinned_place() else str(place))
    size = int(tensor.size) * int(tensor.element_size())
    try:
        key: tuple[Any, ...] = ("paddle", where, tensor.data_ptr())
    except Exception:  # older Paddle: no pointer, no sharing seen
        key = ("paddle", id(tensor))
    return Storage(key, where, size, True)


def _layer_contents(attributes: dict[str, Any]) -> list[tuple[str, Any]]:
    return registries(attributes, _REGISTRIES)


def tensor_kinds() -> FrameworkTensors | None:
    """Paddle's tensors (`paddle.Tensor`, and its parameters' `EagerParamBase`) and `paddle.nn.Layer` with its
    `_parameters`, `_buffers` and `_sub_layers` registries; None until paddle is imported."""
    paddle, nn, framework = imported("paddle"), imported("paddle.nn"), imported("paddle.base.framework")
    if paddle is None or nn is None:
        return None
    kinds = [TensorKind(paddle.Tensor, "paddle.Tensor", _storage)]
    parameter = getattr(framework, "EagerParamBase", None) if framework is not None else None
    if isinstance(parameter, type):
        kinds.append(TensorKind(parameter, "paddle.Parameter", _storage))
    return FrameworkTensors("paddle", tuple(kinds), ModuleKind(nn.Layer, "paddle", _layer_contents))

def _gpus() -> int:
    paddle = sys.modules["paddle"]
    return int(paddle.device.cuda.device_count()) if paddle.is_compiled_with_cuda() else 0


def peak_counters() -> dict[str, int]:
    """Paddle's own peaks per GPU it holds memory on, since its last reset: `max_memory_allocated` and
    `max_memory_reserved` (host-side counters: asking creates no CUDA context). A CPU-only build gives nothing."""
    cuda = sys.modules["paddle"].device.cuda
    peaks = {}
    for ordinal in range(_gpus()):
        reserved = cuda.max_memory_reserved(ordinal)
        if reserved:
            peaks[f"gpu{ordinal} max_allocated"] = int(cuda.max_memory_allocated(ordinal))
            peaks[f"gpu{ordinal} max_reserved"] = int(reserved)
    return peaks


def reset_peak_counters() -> bool:
    """`reset_max_memory_allocated` and `reset_max_memory_reserved` on every GPU; False on a CPU-only build."""
    cuda = sys.modules["paddle"].device.cuda
    gpus = _gpus()
    for ordinal in range(gpus):
        cuda.reset_max_memory_allocated(ordinal)
        cuda.reset_max_memory_reserved(ordinal)
    return gpus > 0


# ---- its out-of-memory errors (oom/_recognise.py asks; runtime/frameworks/_out_of_memory.py) ---------------------

OOM_PATTERNS = (
    # Paddle turns its BadAlloc into Python's MemoryError with the "(ResourceExhausted)" summary. GPU:
    # paddle/phi/core/memory/allocation/cuda_allocator.cc CUDAAllocator::AllocateImpl, "Out of memory error on GPU %d.
    # Cannot allocate %s memory on GPU %d, %s memory has been allocated and available memory is only %s." (also
    # cuda_malloc_async_allocator.cc, cuda_virtual_mem_allocator.cc); CPU: cpu_allocator.cc "Fail to alloc memory of
    # %d size, error code is %d." (paddle 3.3.1 venv).
    OomPattern("paddle", "gpu", ("builtins.MemoryError",),
               re.compile(rf"Out of memory error on GPU (?:Virtual Memory )?(?P<gpu>\d+)\. Cannot allocate "
                          rf"(?P<requested>{SIZE}) memory on GPU (?:Virtual Memory )?\d+, "
                          rf"(?:(?P<in_use>{SIZE}) memory has been allocated and )?"
                          rf"available memory is only (?P<free>{SIZE})"),
               both(sizes(requested="requested", in_use="in_use", free="free"), gpu_index)),
    OomPattern("paddle", "host", ("builtins.MemoryError",),
               re.compile(r"\(ResourceExhausted\) Fail to alloc memory of (?P<requested>\d+) size"),
               sizes(requested="requested")),
)


# ---- giving its cached memory back (oom/_free.py asks) -------------------------------------------------------------

def release_cache(paddle: Any, gpus: Callable[[], list[int]]) -> list[CacheCall]:
    """`paddle.device.cuda.empty_cache()` on a CUDA build."""
    if paddle.is_compiled_with_cuda():
        return [CacheCall("paddle.device.cuda.empty_cache()", paddle.device.cuda.empty_cache)]
    return []

# ---- its own causes of running out of memory (oom/_causes.py asks; the words: catalog/_paddle.py) --------------------

def oom_evidence(cause: str, facts: Mapping[str, int], room: Room, session: Any) -> dict[str, float] | None:
    """Paddle's cap shows where its pool's size matters (under naive_best_fit: the entry's own rule)."""
    known, get = session.catalog, session.get
    pool = known.get("FLAGS_fraction_of_gpu_memory_to_use")
    shows = pool is not None and pool.applies_when is not None and applicability(known, pool, get).applies
    return {} if cause == "cap" and shows else None

# ---- its allocator's counters (memory/_framework_sources.py asks; runtime/frameworks/_counters.py) --------------

def read_counters(paddle: Any, devices: list[int] | None, open_devices: OpenDevices) -> Reading:
    """Paddle's allocator per GPU: `paddle.device.cuda.memory_allocated`, `memory_reserved`, `max_memory_allocated`.

    These are host-side counters (no CUDA context is created). GPUs where Paddle holds nothing are left out.
    """
    cuda = paddle.device.cuda
    if not paddle.is_compiled_with_cuda():
        try:
            cuda.memory_allocated()
        except ValueError as exc:  # Paddle's own words: "not supported in CPU-only PaddlePaddle ..."
            return Reading([], State("paddle_refused", error=first_line(exc)))
        return Reading([], State("cpu_only_build"))
    count = cuda.device_count()
    if count == 0:
        return Reading([], State("sees_no_gpu", framework="paddle"))
    counters = []
    for ordinal in devices if devices is not None else range(count):
        reserved = cuda.memory_reserved(ordinal)
        allocated = cuda.memory_allocated(ordinal)
        if devices is None and not reserved and not allocated:
            continue
        counters.append(Counters(f"gpu{ordinal}", allocated=allocated, reserved=reserved,
                                 peak=cuda.max_memory_allocated(ordinal)))
    return Reading(counters, None if counters else State(HOLDS_NOTHING, framework="paddle"))


# Its states' words (memory/_state_words.py): code → words.
STATE_WORDS = {
    "cpu_only_build": Text("CPU-only PaddlePaddle build: no GPU allocator statistics",
                           "仅支持 CPU 的 PaddlePaddle:没有 GPU 分配器统计"),
    "paddle_refused": Text("paddle: {error}", "paddle: {error}"),  # Paddle's own words, as it said them
}

# ---- the lines its settings draw over the memory chart (memory/_overlays.py asks) ---------------------------------

MiB = 1024**2
PADDLE_FLAGS = ("FLAGS_allocator_strategy", "FLAGS_fraction_of_gpu_memory_to_use", "FLAGS_initial_gpu_memory_in_mb")
PADDLE_LABEL = Text("Paddle first chunk ({size})", "Paddle 首块显存({size})")
PADDLE_SHARE = Text("FLAGS_fraction_of_gpu_memory_to_use={fraction} × total; Paddle takes that share of the memory "
                    "*available* at its first allocation, so the real chunk is at most this",
                    "FLAGS_fraction_of_gpu_memory_to_use={fraction} × 总量;Paddle 在首次分配时取*可用*显存的这一比例,"
                    "所以实际的块最多这么大")
PADDLE_NOTE = Text("{reason}: {how}; when the chunk is used up Paddle requests another",
                   "{reason}:{how};这块用完后 Paddle 会再申请一块")
DRAWN = Text("drawn", "已绘出")


def chart_lines(session: SessionView, gpu_totals: Mapping[str, int], language: str) -> list[ChartLine]:
    """Paddle's first chunk on each GPU (`gpu_totals`: NVML's GPUs), from the running Paddle's flags where it is
    loaded, else from what the session set; only where its pool's size matters (the catalog's rule: under
    naive_best_fit)."""
    flags = _paddle_flags(session)
    if flags is None:
        return []
    fraction = float(flags["FLAGS_fraction_of_gpu_memory_to_use"])
    initial_mb = int(float(flags["FLAGS_initial_gpu_memory_in_mb"]))
    sizing = "FLAGS_initial_gpu_memory_in_mb" if initial_mb > 0 else "FLAGS_fraction_of_gpu_memory_to_use"
    applies = paddle_cap_applies(session, flags, sizing, language)
    if not applies.applies:
        return []  # the catalog's rule: outside naive_best_fit (auto_growth, the default) there is no cap to draw
    lines = []
    for device, total in gpu_totals.items():
        if initial_mb > 0:
            value = initial_mb * MiB
            how = f"FLAGS_initial_gpu_memory_in_mb={initial_mb}"
        else:
            value = int(fraction * total)
            how = PADDLE_SHARE.get(language).format(fraction=f"{fraction:.3g}")
        lines.append(ChartLine("paddle_cap", device, value,
                               PADDLE_LABEL.get(language).format(size=format_size(value)), "Paddle",
                               PADDLE_NOTE.get(language).format(reason=applies.reason or DRAWN.get(language), how=how)))
    return lines


def paddle_cap_applies(session: SessionView, flags: Mapping[str, Any], name: str, language: str = "en"
                       ) -> Applicability:
    """Whether the pool size `name` (which sizes the cap) matters with Paddle's `flags`, by the catalog's own rule for
    it (its `applies_when`, evaluated as every front end evaluates it), not by a copy of that rule here."""
    entry = session.catalog.get(name)
    if entry is None:
        return ALWAYS

    def lookup(variable: str) -> str | None:
        value = flags[variable] if variable in flags else session.get(variable)
        return None if value is None else str(value)

    return applicability(session.catalog, entry, lookup, language)


def _paddle_flags(session: SessionView) -> dict[str, Any] | None:
    paddle = imported("paddle")
    if paddle is not None and hasattr(paddle, "get_flags"):
        return dict(paddle.get_flags(list(PADDLE_FLAGS)))
    if all(session.get(name) is None for name in PADDLE_FLAGS):
        return None
    flags = {}
    for name in PADDLE_FLAGS:
        entry = session.catalog.get(name)
        text = session.get(name)
        flags[name] = text if text is not None else (entry.default if entry is not None else None)
    if flags["FLAGS_fraction_of_gpu_memory_to_use"] is None or flags["FLAGS_initial_gpu_memory_in_mb"] is None:
        return None
    return flags


# What this adapter offers the rest of the product (runtime/frameworks/__init__.py, Adapter).
ADAPTER = Adapter(live_apis=LIVE_APIS, tensor_kinds=tensor_kinds, peak_counters=peak_counters,
    reset_peak_counters=reset_peak_counters, oom_patterns=OOM_PATTERNS, oom_evidence=oom_evidence,
    release_cache=release_cache, read_counters=read_counters, state_words=STATE_WORDS, chart_lines=chart_lines)
