"""JAX's run-time API, `jax.config.update`, the probe for the backend's initialisation (the moment that reads
XLA_FLAGS and the XLA client's memory settings, and after which some options no longer matter), and what its arrays
hold."""

from __future__ import annotations

import sys
from typing import Any

from ..._imported import imported
from ...catalog import Entry
from . import LiveApi
from ._tensors import FrameworkTensors, Storage, TensorKind, device_name


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
