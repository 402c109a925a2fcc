"""JAX's live API and latch probe (runtime/frameworks/_jax.py) against a stand-in with jax 0.10's names and parameters
(tests/framework_stand_ins.py, checked against the wheel):
jax.config.update and jax._src.xla_bridge.backends_are_initialized. Real JAX (CPU) is checked in tests/frameworks/."""

from __future__ import annotations

import pytest
from framework_stand_ins import JaxBackends, install, jax_modules

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.runtime.frameworks import latched, live_api


def entry(name: str):
    found = catalog().get(name)
    assert found is not None, name
    return found


@pytest.fixture
def fake_jax(monkeypatch):
    backends = JaxBackends()
    install(monkeypatch, jax_modules(backends))
    return backends


def test_options_apply_through_jax_config_update_with_jaxs_own_names(fake_jax):
    x64 = entry("JAX_ENABLE_X64")
    api = live_api(x64)
    assert api is not None
    api.apply(x64, x64.type.parse("1").value)
    assert fake_jax.options["jax_enable_x64"] is True and api.read(x64) == "True"
    assert api.call(x64, True) == "jax.config.update('jax_enable_x64', True)"


def test_the_backends_initialisation_latches_xla_settings(fake_jax):
    flags = entry("XLA_FLAGS")
    assert latched(flags) is False
    fake_jax.start("cpu")
    assert latched(flags) is True
    assert latched(entry("CUDA_VISIBLE_DEVICES")) is False  # a CPU backend does not initialise CUDA
    fake_jax.start("cuda")
    assert latched(entry("CUDA_VISIBLE_DEVICES")) is True
