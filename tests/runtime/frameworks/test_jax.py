"""JAX's live API and latch probe (runtime/frameworks/jax.py) against a stand-in with jax 0.10's names:
jax.config.update and jax._src.xla_bridge.backends_are_initialized. Real JAX (CPU) is checked in tests/frameworks/."""

from __future__ import annotations

import sys
import types

import pytest

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.runtime.frameworks import latched, live_api


def entry(name: str):
    found = catalog().get(name)
    assert found is not None, name
    return found


@pytest.fixture
def fake_jax(monkeypatch):
    config = types.SimpleNamespace(jax_enable_x64=False, jax_platforms=None)
    config.update = lambda name, value: setattr(config, name, value)
    jax = types.ModuleType("jax")
    jax.config = config  # type: ignore[attr-defined]
    bridge = types.ModuleType("jax._src.xla_bridge")
    backends: dict[str, object] = {}
    bridge._backends = backends  # type: ignore[attr-defined]
    bridge.backends_are_initialized = lambda: bool(backends)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jax", jax)
    monkeypatch.setitem(sys.modules, "jax._src.xla_bridge", bridge)
    for name in ("torch", "tensorflow", "megengine", "paddle", "mxnet", "cupy"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return config, backends


def test_options_apply_through_jax_config_update_with_jaxs_own_names(fake_jax):
    config, _ = fake_jax
    x64 = entry("JAX_ENABLE_X64")
    api = live_api(x64)
    assert api is not None
    api.apply(x64, x64.type.parse("1").value)
    assert config.jax_enable_x64 is True and api.read(x64) == "True"
    assert api.call(x64, True) == "jax.config.update('jax_enable_x64', True)"


def test_the_backends_initialisation_latches_xla_settings(fake_jax):
    _, backends = fake_jax
    flags = entry("XLA_FLAGS")
    assert latched(flags) is False
    backends["cpu"] = object()
    assert latched(flags) is True
    assert latched(entry("CUDA_VISIBLE_DEVICES")) is False  # a CPU backend does not initialise CUDA
    backends["cuda"] = object()
    assert latched(entry("CUDA_VISIBLE_DEVICES")) is True
