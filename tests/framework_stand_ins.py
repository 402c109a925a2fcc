"""Stand-ins for the GPU-only paths of PyTorch 2.13, JAX 0.10 and TensorFlow 2.21, which their CPU wheels cannot
reach: module objects with the real names and parameters (tests/frameworks/test_stand_ins_real.py compares every
function here with the installed wheel's), behaving as the frameworks' source does on a GPU. Tests put them in
`sys.modules` (`install`) for the allocator latches, the live APIs past them and the memory sources.

Each builder returns the modules to install and a mutable `state` the test drives: what CUDA or a backend has done.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

GiB = 1024**3


def install(monkeypatch: pytest.MonkeyPatch, modules: dict[str, types.ModuleType]) -> None:
    """Put stand-in modules in `sys.modules` for one test; the other GPU frameworks are taken out, so a probe asks
    only these."""
    for name in ("torch", "jax", "tensorflow", "megengine", "paddle", "mxnet", "cupy"):
        if name not in modules:
            monkeypatch.delitem(sys.modules, name, raising=False)
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)


def _module(name: str, *functions: Callable[..., Any], **attributes: Any) -> types.ModuleType:
    made = types.ModuleType(name)
    for function in functions:
        setattr(made, function.__name__, function)
    for key, value in attributes.items():
        setattr(made, key, value)
    return made


# ---- PyTorch --------------------------------------------------------------------------------------------------------

@dataclass
class TorchGpu:
    """What a CUDA build of torch holds: per device (allocated, reserved, peak) bytes once CUDA is initialised, the
    allocator settings string, the thread count. `cuda_initialised=None` makes is_initialized raise."""

    devices: list[tuple[int, int, int]] = field(default_factory=lambda: [(0, 0, 0)])
    cuda_initialised: bool | None = False
    settings: str = ""
    threads: int = 2


def torch_modules(gpu: TorchGpu) -> dict[str, types.ModuleType]:
    def _accelerator_setAllocatorSettings(arg0: str) -> None:  # noqa: N802 (torch's name)
        gpu.settings = arg0

    def _accelerator_getAllocatorSettings() -> str:  # noqa: N802
        return gpu.settings

    def is_initialized() -> bool:
        if gpu.cuda_initialised is None:
            raise RuntimeError("stand-in: cannot tell")
        return gpu.cuda_initialised

    def device_count() -> int:
        return len(gpu.devices)

    def _stat(index: int) -> Callable[..., int]:
        def read(device: Any = None) -> int:
            # torch.cuda.memory_stats: {} (so 0) before CUDA is initialised; never initialises it
            return gpu.devices[device or 0][index] if gpu.cuda_initialised else 0
        return read

    memory_allocated, memory_reserved, max_memory_allocated = _stat(0), _stat(1), _stat(2)
    memory_allocated.__name__, memory_reserved.__name__ = "memory_allocated", "memory_reserved"
    max_memory_allocated.__name__ = "max_memory_allocated"

    def set_num_threads(int: int) -> None:  # noqa: A002 (torch's docstring names it so)
        gpu.threads = int

    def get_num_threads() -> int:
        return gpu.threads

    cuda = _module("torch.cuda", is_initialized, device_count, memory_allocated, memory_reserved,
                   max_memory_allocated)
    c = _module("torch._C", _accelerator_setAllocatorSettings, _accelerator_getAllocatorSettings)
    torch = _module("torch", set_num_threads, get_num_threads, cuda=cuda, _C=c)
    return {"torch": torch, "torch.cuda": cuda, "torch._C": c}


# ---- JAX ------------------------------------------------------------------------------------------------------------

class Device:
    """jax.Device (jaxlib._jax.Device): `platform`, `id`, `memory_stats()`."""

    def __init__(self, platform: str, id: int, stats: dict[str, int] | None) -> None:  # noqa: A002
        self.platform = platform
        self.id = id
        self.stats = stats

    def memory_stats(self) -> dict[str, int] | None:
        return None if self.stats is None else dict(self.stats)


def gpu_stats(in_use: int, pool: int, peak: int, limit: int) -> dict[str, int]:
    """What XLA's GPU client (xla/python/py_device.cc : PyDevice::MemoryStats) returns with the BFC allocator."""
    return {"num_allocs": 3, "bytes_in_use": in_use, "peak_bytes_in_use": peak, "largest_alloc_size": in_use,
            "bytes_limit": limit, "bytes_reserved": 0, "peak_bytes_reserved": 0, "largest_free_block_bytes": 0,
            "pool_bytes": pool, "peak_pool_bytes": pool}


@dataclass
class JaxBackends:
    """JAX's backends: none until the first operation (`started` fills them), then the default backend's devices."""

    devices: list[Device] = field(default_factory=list)
    backends: dict[str, object] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=lambda: {"jax_enable_x64": False, "jax_platforms": None})

    def start(self, platform: str = "gpu") -> None:
        self.backends[platform] = object()


class _Config:
    def __init__(self, backends: JaxBackends) -> None:
        self._backends = backends

    def update(self, name: str, val: Any) -> None:
        self._backends.options[name] = val

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_backends"].options[name]
        except KeyError:
            raise AttributeError(name) from None


def jax_modules(state: JaxBackends) -> dict[str, types.ModuleType]:
    def backends_are_initialized() -> bool:
        return bool(state.backends)

    def local_devices(process_index: int | None = None, backend: Any = None, host_id: int | None = None) -> list:
        if not state.backends:
            raise AssertionError("stand-in: local_devices() would start JAX's backends")
        return list(state.devices)

    bridge = _module("jax._src.xla_bridge", backends_are_initialized, _backends=state.backends)
    jax = _module("jax", local_devices, config=_Config(state), Device=Device)
    return {"jax": jax, "jax._src.xla_bridge": bridge}


# ---- TensorFlow -----------------------------------------------------------------------------------------------------

@dataclass
class LogicalDevice:
    name: str
    device_type: str


@dataclass
class TensorFlowRuntime:
    """TensorFlow's eager context (None until first used, then initialised) and per GPU (current, peak) bytes."""

    gpus: list[tuple[int, int]] = field(default_factory=list)
    initialised: bool | None = None  # None: no context object yet
    intra_op: int = 0
    growth: dict[str, bool] = field(default_factory=dict)


class _Context:
    """The eager context object: `_initialized` as TensorFlow's Context keeps it."""

    def __init__(self, runtime: TensorFlowRuntime) -> None:
        self._runtime = runtime

    @property
    def _initialized(self) -> bool:
        return bool(self._runtime.initialised)


def tensorflow_modules(runtime: TensorFlowRuntime) -> dict[str, types.ModuleType]:
    context_module = types.ModuleType("tensorflow.python.eager.context")

    def module_attribute(name: str) -> Any:  # `context._context`: None until a context exists
        if name == "_context":
            return None if runtime.initialised is None else _Context(runtime)
        raise AttributeError(name)

    def ensure_initialized() -> None:
        runtime.initialised = True

    def context() -> Any:
        if runtime.initialised is None:  # context.context() creates the context; its first use initialises it
            runtime.initialised = False
        return context_module._context  # type: ignore[attr-defined]

    context_module.__getattr__ = module_attribute  # type: ignore[attr-defined]
    context_module.context = context  # type: ignore[attr-defined]

    def get_memory_info(device: str) -> dict[str, int]:
        ensure_initialized()  # context.get_memory_info calls self.ensure_initialized() first
        kind, _, index = device.partition(":")
        if kind != "GPU" or not index.isdigit() or int(index) >= len(runtime.gpus):
            raise ValueError(f"No matching devices found for '{device}'")
        current, peak = runtime.gpus[int(index)]
        return {"current": current, "peak": peak}

    def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
        ensure_initialized()
        gpus = [LogicalDevice(f"/device:GPU:{i}", "GPU") for i in range(len(runtime.gpus))]
        return gpus if device_type == "GPU" else [LogicalDevice("/device:CPU:0", "CPU"), *gpus]

    def list_physical_devices(device_type: str | None = None) -> list[str]:
        gpus = [f"/physical_device:GPU:{i}" for i in range(len(runtime.gpus))]
        return gpus if device_type == "GPU" else ["/physical_device:CPU:0", *gpus]

    def set_memory_growth(device: str, enable: bool) -> None:
        if runtime.initialised:
            raise RuntimeError("Physical devices cannot be modified after being initialized")
        runtime.growth[device] = enable

    def get_memory_growth(device: str) -> bool:
        return runtime.growth.get(device, False)

    def set_intra_op_parallelism_threads(num_threads: int) -> None:
        if runtime.initialised:
            raise RuntimeError("Intra op parallelism cannot be modified after initialization.")
        runtime.intra_op = num_threads

    def get_intra_op_parallelism_threads() -> int:
        return runtime.intra_op

    experimental = _module("tensorflow.config.experimental", get_memory_info, set_memory_growth, get_memory_growth)
    threading = _module("tensorflow.config.threading", set_intra_op_parallelism_threads,
                        get_intra_op_parallelism_threads)
    config = _module("tensorflow.config", list_logical_devices, list_physical_devices, experimental=experimental,
                     threading=threading)
    tf = _module("tensorflow", config=config)
    return {"tensorflow": tf, "tensorflow.python.eager.context": context_module}


# ---- what tests/frameworks/test_stand_ins_real.py checks -----------------------------------------------------------

def functions() -> dict[str, dict[str, Callable[..., Any]]]:
    """Per framework, every stand-in function by the dotted path of the real one it imitates."""
    torch = torch_modules(TorchGpu())["torch"]
    jax = jax_modules(JaxBackends())
    tf = tensorflow_modules(TensorFlowRuntime())
    return {
        "torch": {
            "torch._C._accelerator_setAllocatorSettings": torch._C._accelerator_setAllocatorSettings,
            "torch._C._accelerator_getAllocatorSettings": torch._C._accelerator_getAllocatorSettings,
            **{f"torch.cuda.{name}": getattr(torch.cuda, name) for name in (
                "is_initialized", "device_count", "memory_allocated", "memory_reserved", "max_memory_allocated")},
            "torch.set_num_threads": torch.set_num_threads,
            "torch.get_num_threads": torch.get_num_threads,
        },
        "jax": {
            "jax._src.xla_bridge.backends_are_initialized": jax["jax._src.xla_bridge"].backends_are_initialized,
            "jax.config.update": jax["jax"].config.update,
            "jax.local_devices": jax["jax"].local_devices,
            "jax.Device.memory_stats": Device.memory_stats,
        },
        "tensorflow": {
            **{f"tensorflow.config.experimental.{name}": getattr(tf["tensorflow"].config.experimental, name)
               for name in ("get_memory_info", "set_memory_growth", "get_memory_growth")},
            **{f"tensorflow.config.{name}": getattr(tf["tensorflow"].config, name)
               for name in ("list_logical_devices", "list_physical_devices")},
            **{f"tensorflow.config.threading.{name}": getattr(tf["tensorflow"].config.threading, name)
               for name in ("set_intra_op_parallelism_threads", "get_intra_op_parallelism_threads")},
            "tensorflow.python.eager.context.context": tf["tensorflow.python.eager.context"].context,
        },
    }
