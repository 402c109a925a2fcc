"""Paddle's run-time API: `paddle.set_flags` for every public FLAGS_*, read back with `paddle.get_flags`; and what its
tensors and layers hold."""

from __future__ import annotations

import sys
from typing import Any

from ..._imported import imported
from ...catalog import Entry
from . import LiveApi
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
