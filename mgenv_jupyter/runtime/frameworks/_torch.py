"""PyTorch's run-time APIs: the allocator settings, the CPU thread count, and the compiler's config modules; the
probe that tells whether CUDA (hence the allocator) has been initialised; and what its tensors and modules hold.

`torch._C._accelerator_setAllocatorSettings` is what `torch.cuda.memory._set_allocator_settings` calls (the latter
warns that it is deprecated in torch 2.13). It re-parses the whole string — keys left out go back to their defaults —
so the full normalised value is passed, never a single key.
"""

from __future__ import annotations

import sys
from typing import Any

from ..._imported import imported
from ...catalog import Entry
from . import LiveApi
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
