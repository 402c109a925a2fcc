"""What MXNet's objects hold: its NDArrays, and Gluon blocks with their parameters (one array per context).

MXNet's settings have no live API (every variable is read at import or by the engine), so this adapter only sizes.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from ...base._imported import imported
from ...base._source_state import State
from ...base._static import inherits
from ...base._text import Text
from . import Adapter, CacheCall
from ._counters import Counters, OpenDevices, Reading
from ._out_of_memory import OomPattern
from ._tensors import (
    CHILD,
    PARAMETER,
    FrameworkTensors,
    ModuleKind,
    Storage,
    TensorKind,
    attributes,
    device_name,
    registries,
)

# Gluon's Block: `_reg_params` (the parameters set as attributes), `_params` (a ParameterDict of every parameter it
# created, kept in the dict's own `_params`) and `_children` (its blocks; weak references in MXNet 2).


def _storage(array: Any) -> Storage | None:
    context = array.context
    where = device_name(context.device_type, context.device_id)
    numpy = imported("numpy")  # MXNet depends on NumPy: loaded with it
    itemsize = numpy.dtype(array.dtype).itemsize if numpy is not None else 4
    try:
        key: tuple[Any, ...] = ("mxnet", where, array.handle.value)
    except Exception:
        key = ("mxnet", id(array))
    return Storage(key, where, int(array.size) * itemsize, True)


def _block_contents(own: dict[str, Any], parameter_type: type, parameter_dict: type | None
                    ) -> Iterator[tuple[str, Any]]:
    parameters = [value for _, value in registries(own, (("_reg_params", PARAMETER),))]
    created = dict.get(own, "_params")
    if parameter_dict is not None and type(created) is parameter_dict:
        parameters.extend(value for _, value in registries(attributes(created), (("_params", PARAMETER),)))
    for parameter in parameters:
        if type(parameter) is parameter_type or inherits(type(parameter), parameter_type):
            data = attributes(parameter).get("_data")
            if type(data) is list:  # None until initialised (a deferred shape): it holds no memory yet
                for array in data:
                    yield PARAMETER, array
    for _, child in registries(own, (("_children", CHILD),)):
        if type(child) is weakref.ref:
            child = child()
        if child is not None:
            yield CHILD, child


def tensor_kinds() -> FrameworkTensors | None:
    """MXNet's `NDArray` (and `mxnet.numpy.ndarray`) and Gluon's `Block`; None until mxnet is imported."""
    ndarray, numpy, gluon = imported("mxnet.ndarray"), imported("mxnet.numpy"), imported("mxnet.gluon")
    if ndarray is None:
        return None
    kinds = [TensorKind(ndarray.NDArray, "mxnet.NDArray", _storage)]
    if numpy is not None and isinstance(getattr(numpy, "ndarray", None), type):
        kinds.append(TensorKind(numpy.ndarray, "mxnet.numpy.ndarray", _storage))
    module = None
    if gluon is not None:
        parameter, parameter_dict = gluon.Parameter, getattr(gluon, "ParameterDict", None)  # gone in MXNet 2
        module = ModuleKind(gluon.Block, "mxnet",
                            lambda block: _block_contents(block, parameter, parameter_dict))
    return FrameworkTensors("mxnet", tuple(kinds), module)

# ---- its out-of-memory errors (oom/_recognise.py asks; runtime/frameworks/_out_of_memory.py) ---------------------

OOM_PATTERNS = (
    # MXNet 1.9.1: src/storage/pooled_storage_manager.h GPUPooledStorageManager::Alloc (and the rounded pool),
    # LOG(FATAL) << "cudaMalloc retry failed: " << cudaGetErrorString(e) → "out of memory"; the unpooled
    # src/storage/gpu_device_storage.h "CUDA: out of memory"; CPU: src/storage/cpu_device_storage.h "Failed to allocate
    # CPU Memory" (mxnet venv).
    OomPattern("mxnet", "gpu", ("mxnet.base.MXNetError",),
               re.compile(r"cudaMalloc (?:retry )?failed: out of memory|CUDA: out of memory")),
    OomPattern("mxnet", "host", ("mxnet.base.MXNetError",), re.compile(r"Failed to allocate CPU Memory")),
)

# ---- giving its cached memory back (oom/_free.py asks) -------------------------------------------------------------

def release_cache(mxnet: Any, gpus: Callable[[], list[int]]) -> list[CacheCall]:
    """`Context.empty_cache()` for the host, and for each GPU the kernel uses (`gpus()`: asking another GPU's pool
    would create a context there to free nothing) that this MXNet sees: a CPU wheel sees none and has no GPU pool to
    ask, whatever NVML lists (MXNet raises for a device it never allocated on)."""
    def gpu(ordinal: int) -> Callable[[], object]:
        return lambda: mxnet.gpu(ordinal).empty_cache()

    calls = [CacheCall("mxnet.cpu().empty_cache()", lambda: mxnet.cpu().empty_cache(), gpu=False)]
    seen = mxnet.context.num_gpus()
    calls += [CacheCall(f"mxnet.gpu({ordinal}).empty_cache()", gpu(ordinal)) for ordinal in gpus() if ordinal < seen]
    return calls

# ---- its allocator's counters (memory/_framework_sources.py asks; runtime/frameworks/_counters.py) --------------

def read_counters(mx: Any, devices: list[int] | None, open_devices: OpenDevices) -> Reading:
    """MXNet's view of each GPU the kernel uses (reading another creates a CUDA context there):
    `mx.context.gpu_memory_info` → free and total, shown as used/total.

    This is cudaMemGetInfo: device-wide (every process), not MXNet's own pool, which MXNet does not report.
    """
    count = mx.context.num_gpus()
    if count == 0:
        return Reading([], State("sees_no_gpu" if _cuda_build(mx) else "no_cuda_build", framework="mxnet"))
    counters = []
    for ordinal in open_devices(devices if devices is not None else range(count)):
        free, total = mx.context.gpu_memory_info(ordinal)
        counters.append(Counters(f"gpu{ordinal}", used=total - free, total=total))
    return Reading(counters)


def _cuda_build(mx: Any) -> bool:
    try:
        return bool(mx.runtime.Features().is_enabled("CUDA"))
    except Exception:  # older builds have no feature list: assume CUDA, say less
        return True


# Its states' words (memory/_state_words.py): code → words.
STATE_WORDS = {
    "no_cuda_build": Text("{framework} sees no GPU (this MXNet build has no CUDA)",
                          "{framework} 未发现 GPU(此 MXNet 版本不含 CUDA)"),
}


# What this adapter offers the rest of the product (runtime/frameworks/__init__.py, Adapter).
ADAPTER = Adapter(tensor_kinds=tensor_kinds, oom_patterns=OOM_PATTERNS, release_cache=release_cache,
    read_counters=read_counters, state_words=STATE_WORDS)
