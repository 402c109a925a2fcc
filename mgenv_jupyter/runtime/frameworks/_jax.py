"""JAX's run-time API, `jax.config.update`, and the probe for the backend's initialisation (the moment that reads
XLA_FLAGS and the XLA client's memory settings, and after which some options no longer matter)."""

from __future__ import annotations

import sys
from typing import Any

from ..._imported import imported
from ...catalog import Entry
from . import LiveApi


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
