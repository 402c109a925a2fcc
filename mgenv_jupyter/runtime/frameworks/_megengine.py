"""MegEngine's run-time APIs: default device, log level, async level, DTR, and the interpreter's C++ options; and what
its tensors and modules hold.

Read-backs go to the C++ option (`core2.get_option`) where one exists: `megengine.dtr`'s getters return a Python-side
cache that ignores what the environment set at import.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any

from ...base._errors import InvalidValueError
from ...base._imported import imported
from ...base._source_state import State
from ...base._static import inherits
from ...base._text import Text
from ...catalog._out_of_memory import Room
from ...catalog._values import format_size
from . import Adapter, CacheCall, GroupApi, LiveApi, SessionView, live_api
from ._counters import ChartLine, Counters, OpenDevices, Reading
from ._out_of_memory import OomPattern, sizes
from ._tensors import (
    BUFFER,
    CHILD,
    PARAMETER,
    FrameworkTensors,
    ModuleKind,
    Storage,
    TensorKind,
    device_name,
)

if TYPE_CHECKING:
    from ...catalog import Entry


def _mge() -> Any:
    return sys.modules["megengine"]


def _core2() -> Any:
    from megengine.core._imperative_rt import core2  # already loaded with megengine

    return core2


def _option(name: str) -> LiveApi:
    def apply(entry: Entry, value: Any) -> None:
        _core2().set_option(name, int(value))

    def read(entry: Entry) -> str:
        return str(_core2().get_option(name))

    return LiveApi("megengine", apply, read, lambda entry, value: f"megengine.core.set_option({name!r}, {int(value)})")


def _dtr_size(attribute: str, option: str) -> LiveApi:
    def apply(entry: Entry, value: Any) -> None:
        setattr(_mge().dtr, attribute, int(value))

    def read(entry: Entry) -> str:
        return str(_core2().get_option(option))

    return LiveApi("megengine", apply, read, lambda entry, value: f"megengine.dtr.{attribute} = {int(value)}")


def _set_sqrt_sampling(entry: Entry, value: Any) -> None:
    _mge().dtr.enable_sqrt_sampling = bool(value)


def _set_device(entry: Entry, value: Any) -> None:
    _mge().set_default_device(str(value))


def _set_log_level(entry: Entry, value: Any) -> None:
    mge = _mge()
    mge.set_log_level(value)
    mge.logger.set_mgb_log_level(value)  # the environment variable sets both, so the live change does too


def _set_async_level(entry: Entry, value: Any) -> None:
    _mge().config.async_level = int(value)


LIVE_APIS: dict[str, LiveApi] = {
    "megengine.set_default_device": LiveApi(
        "megengine", _set_device, lambda e: str(_mge().get_default_device()),
        lambda e, value: f"megengine.set_default_device({str(value)!r})",
    ),
    "megengine.set_log_level": LiveApi(
        "megengine", _set_log_level, lambda e: logging.getLevelName(_mge().logger._default_level),
        lambda e, value: f"megengine.set_log_level({value!r}); megengine.logger.set_mgb_log_level({value!r})",
    ),
    "megengine.config.async_level": LiveApi(
        "megengine", _set_async_level, lambda e: str(_mge().config.async_level),
        lambda e, value: f"megengine.config.async_level = {int(value)}",
    ),
    "megengine.dtr.eviction_threshold": _dtr_size("eviction_threshold", "dtr_eviction_threshold"),
    "megengine.dtr.evictee_minimum_size": _dtr_size("evictee_minimum_size", "dtr_evictee_minimum_size"),
    "megengine.dtr.enable_sqrt_sampling": LiveApi(
        "megengine", _set_sqrt_sampling, lambda e: str(_core2().get_option("enable_dtr_sqrt_sampling")),
        lambda e, value: f"megengine.dtr.enable_sqrt_sampling = {bool(value)}",
    ),
    **{
        f"megengine.option:{name}": _option(name)
        for name in (
            "enable_host_compute",
            "catch_worker_execption",  # MegEngine's own spelling
            "record_computing_path",
            "enable_drop",
            "enable_dtr_auto_drop",
        )
    },
}


def _dtr_switch(on: bool) -> None:
    dtr = _mge().dtr
    if on:
        dtr.enable()
    else:
        dtr.disable()  # also clears the eviction candidates, which setting the three options does not


GROUP_APIS: dict[str, GroupApi] = {
    "megengine.dtr.enable": GroupApi(
        "megengine", _dtr_switch, lambda on: "megengine.dtr.enable()" if on else "megengine.dtr.disable()"),
}


# ---- what its objects hold (the holders walk asks; runtime/frameworks/_tensors.py) -------------------------------

# MegEngine's Module keeps no registry: `parameters()` finds the tensors among its attributes and inside the lists,
# tuples and dicts they hold (module.py's _expand_structure), a Parameter a parameter, any other Tensor a buffer.
_NESTING = 4
_ITEMS = 10_000  # of one list, tuple or dict among the attributes


def _storage(tensor: Any) -> Storage | None:
    device = str(getattr(tensor.device, "physical_name", tensor.device))  # "cpu0:0", "gpu0:0" ("xpux:0" is logical)
    kind = device.rstrip("0123456789:x")
    digits = device[len(kind):].split(":")[0]
    where = device_name(kind, int(digits) if digits.isdigit() else None)
    numpy = imported("numpy")  # MegEngine depends on NumPy: loaded with it
    itemsize = numpy.dtype(tensor.dtype).itemsize if numpy is not None else 4
    return Storage(("megengine", id(tensor)), where, int(tensor.size) * itemsize, True)


def _module_contents(attributes: dict[str, Any], tensor: type, parameter: type, base: type
                     ) -> Iterator[tuple[str, Any]]:
    pending: list[tuple[Any, int]] = [(value, 0) for value in dict.values(attributes)]
    while pending:
        value, nesting = pending.pop()
        kind = type(value)
        if kind is parameter:
            yield PARAMETER, value
        elif kind is tensor:
            yield BUFFER, value
        elif kind is dict or kind is list or kind is tuple:
            if nesting < _NESTING:
                items = dict.values(value) if kind is dict else value
                pending.extend((item, nesting + 1) for item in islice(items, _ITEMS))
        elif inherits(kind, base):
            yield CHILD, value


def tensor_kinds() -> FrameworkTensors | None:
    """MegEngine's tensors (`megengine.Tensor`, `megengine.Parameter`) and `megengine.module.Module`, whose
    parameters and buffers are its attributes' tensors; None until megengine is imported."""
    mge, module = imported("megengine"), imported("megengine.module")
    if mge is None or module is None:
        return None
    tensor, parameter, base = mge.Tensor, mge.Parameter, module.Module
    return FrameworkTensors(
        "megengine", (TensorKind(tensor, "megengine.Tensor", _storage),
                      TensorKind(parameter, "megengine.Parameter", _storage)),
        ModuleKind(base, "megengine", lambda value: _module_contents(value, tensor, parameter, base)))

def peak_counters() -> dict[str, int]:
    """MegEngine's own peaks on its default GPU, since its last reset: `get_max_allocated_memory` and
    `get_max_reserved_memory`. Its CPU device keeps no statistics: nothing there."""
    mge = _mge()
    device = mge.get_default_device()
    if mge.get_device_count("gpu") == 0 or not device.startswith(("gpu", "xpu")):
        return {}
    name = "gpu0" if device.startswith("xpux") else device.partition(":")[0].replace("xpu", "gpu")
    return {f"{name} max_allocated": int(mge.device.get_max_allocated_memory(name)),
            f"{name} max_reserved": int(mge.device.get_max_reserved_memory(name))}


def reset_peak_counters() -> bool:
    """`megengine.device.reset_max_memory_stats()` on the default GPU; False without one."""
    mge = _mge()
    if mge.get_device_count("gpu") == 0:
        return False
    mge.device.reset_max_memory_stats(mge.get_default_device())
    return True


# ---- its out-of-memory errors (oom/_recognise.py asks; runtime/frameworks/_out_of_memory.py) ---------------------

OOM_PATTERNS = (
    # MegEngine 1.13.4: src/core/impl/comp_node/mem_alloc/impl.cpp MemAllocImplHelper::do_alloc, "out of memory while
    # requesting %zu bytes; you can try setting MGB_CUDA_RESERVE_MEMORY ..." (device allocators);
    # src/core/include/megbrain/comp_node/alloc.h "failed to alloc %zu bytes"; CPU: src/core/impl/comp_node/cpu/
    # comp_node.cpp mgb_aligned_alloc "failed to malloc %zubytes with align %zu" (megengine venv). Raised as the
    # RuntimeError cause of core2.AsyncError.
    OomPattern("megengine", "gpu", ("builtins.RuntimeError",),
               re.compile(r"out of memory while requesting (?P<requested>\d+) bytes"), sizes(requested="requested")),
    OomPattern("megengine", "host", ("builtins.RuntimeError",),
               re.compile(r"failed to malloc (?P<requested>\d+) ?bytes with align"), sizes(requested="requested")),
    OomPattern("megengine", "gpu", ("builtins.RuntimeError",),
               re.compile(r"MemAllocError|failed to alloc (?P<requested>\d+) bytes"), sizes(requested="requested")),
)


# ---- giving its cached memory back (oom/_free.py asks) -------------------------------------------------------------

def release_cache(megengine: Any, gpus: Callable[[], list[int]]) -> list[CacheCall]:
    """`megengine.coalesce_free_memory()`."""
    return [CacheCall("megengine.coalesce_free_memory()", megengine.coalesce_free_memory)]

# ---- its own causes of running out of memory (oom/_causes.py asks; the words: catalog/_megengine_dtr.py) -------------

_TRUE = ("1", "true", "yes", "on")
# The switches that turn DTR on (the catalog's DTR group sets them together with the computing path's record).
_DTR_SWITCHES = ("MEGENGINE_ENABLE_DROP", "MEGENGINE_DTR_AUTO_DROP")


def dtr_enabled(session: Any) -> bool:
    """Whether MegEngine's DTR is on: what the running MegEngine reports where it is loaded, else the session's
    values (the switches the catalog's DTR group sets together)."""
    known = session.catalog
    values = []
    for name in _DTR_SWITCHES:
        entry = known.get(name)
        value = session.get(name)
        api = live_api(entry) if entry is not None and "megengine" in sys.modules else None
        if api is not None:
            try:
                value = api.read(entry)
            except Exception:  # the framework's internals moved: the session's value is what we know
                pass
        values.append(str(value).strip().lower() in _TRUE)
    return all(values)


def oom_evidence(cause: str, facts: Mapping[str, int], room: Room, session: Any) -> dict[str, float] | None:
    """MegEngine's own cause: it ran out of memory with DTR off."""
    return {} if cause == "dtr_off" and not dtr_enabled(session) else None

# ---- its allocator's counters (memory/_framework_sources.py asks; runtime/frameworks/_counters.py) --------------

def read_counters(mge: Any, devices: list[int] | None, open_devices: OpenDevices) -> Reading:
    """MegEngine's allocator on its default device (or `devices`): `get_allocated_memory`, `get_reserved_memory`,
    `get_max_allocated_memory`, on the GPUs the kernel uses (reading another creates a CUDA context there).

    MegEngine runs asynchronously and these counters are read without `megengine._full_sync()` (which would stall
    training), so they may trail the last operations slightly. Its CPU device keeps no allocator statistics (it
    reports 0 whatever is allocated), so a CPU-only MegEngine gives no series.
    """
    gpus = mge.get_device_count("gpu")
    if gpus == 0:
        return Reading([], State("cpu_only", framework="megengine"))
    ordinals = devices if devices is not None else _default_gpu(mge.get_default_device())
    if not ordinals:
        return Reading([], State("default_device_not_gpu", framework="megengine", device=mge.get_default_device()))
    counters = []
    for ordinal in open_devices([d for d in ordinals if d < gpus]):
        device = f"gpu{ordinal}"
        counters.append(Counters(device, allocated=mge.get_allocated_memory(device),
                                 reserved=mge.get_reserved_memory(device), peak=mge.get_max_allocated_memory(device)))
    return Reading(counters)


def _default_gpu(device: str) -> list[int]:
    match = re.fullmatch(r"(?:gpu|xpu)(\d+|x)(?::\d+)?", device)
    if match is None:
        return []
    return [0 if match.group(1) == "x" else int(match.group(1))]


# Its states' words (memory/_state_words.py): code → words.
STATE_WORDS = {
    "cpu_only": Text("{framework} sees no GPU; its CPU device keeps no allocator statistics "
                     "(get_allocated_memory('cpu0') is always 0)",
                     "{framework} 未发现 GPU;其 CPU 设备没有分配器统计(get_allocated_memory('cpu0') 始终为 0)"),
    "default_device_not_gpu": Text("{framework}'s default device is {device}, which has no GPU allocator",
                                   "{framework} 的默认设备是 {device},它没有 GPU 分配器"),
}

# ---- the lines its settings draw over the memory chart (memory/_overlays.py asks) ---------------------------------

DTR_THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"
DTR_AUTO_DROP = "MEGENGINE_DTR_AUTO_DROP"
DTR_LABEL = Text("DTR eviction threshold ({size})", "DTR 释放阈值({size})")
DTR_FROM_LIVE = Text("megengine's live option dtr_eviction_threshold", "megengine 的实时选项 dtr_eviction_threshold")
DTR_FROM_ENV = Text("{name} in the environment; megengine reads it at import", "环境变量 {name};megengine 在导入时读取")
DTR_NOTE = Text("from {origin}; compares with MegEngine's live tensor memory (megengine allocated)",
                "来自{origin};与 MegEngine 实时的 tensor 显存(megengine 已分配)比较")
DTR_OFF = Text("; DTR auto drop is off, so nothing is evicted at this line yet",
               ";DTR 自动释放已关闭,到达此线时尚不会释放")


def chart_lines(session: SessionView, gpu_totals: Mapping[str, int], language: str) -> list[ChartLine]:
    """DTR's eviction threshold, from the running MegEngine's own option where it is loaded (its C++ option is the
    truth), else from what the session set for its import; none at 0 (no threshold: DTR evicts only when an
    allocation fails)."""
    entry = session.catalog.get(DTR_THRESHOLD)
    if entry is None:
        return []
    api = live_api(entry)
    live = api.read(entry) if api is not None else None
    if api is not None and live is not None:  # megengine is loaded: its C++ option is the truth
        value = int(live)
        origin = DTR_FROM_LIVE.get(language)
        auto = session.catalog.get(DTR_AUTO_DROP)
        auto_api = live_api(auto) if auto is not None else None
        enabled = auto is None or auto_api is None or auto_api.read(auto) not in ("0", "False")
    else:
        text = session.get(DTR_THRESHOLD)
        if text is None:
            return []
        try:
            value = int(entry.type.parse(text).value)
        except InvalidValueError:
            return []
        origin = DTR_FROM_ENV.get(language).format(name=DTR_THRESHOLD)
        enabled = session.get(DTR_AUTO_DROP) not in (None, "0")
    if value <= 0:  # 0: no threshold, DTR evicts only when an allocation fails
        return []
    off = "" if enabled else DTR_OFF.get(language)
    return [ChartLine("dtr_threshold", None, value, DTR_LABEL.get(language).format(size=format_size(value)), "DTR",
                      DTR_NOTE.get(language).format(origin=origin) + off)]


# What this adapter offers the rest of the product (runtime/frameworks/__init__.py, Adapter).
ADAPTER = Adapter(live_apis=LIVE_APIS, group_apis=GROUP_APIS, tensor_kinds=tensor_kinds, peak_counters=peak_counters,
    reset_peak_counters=reset_peak_counters, oom_patterns=OOM_PATTERNS, oom_evidence=oom_evidence,
    release_cache=release_cache, read_counters=read_counters, state_words=STATE_WORDS, chart_lines=chart_lines)
