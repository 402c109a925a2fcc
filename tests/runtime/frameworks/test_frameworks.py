"""The framework adapters (runtime/frameworks/__init__.py): a live API is offered only while its framework is loaded
(never imported by us), while the call it makes can always be written out for users; and the catalog names only
adapters that exist."""

from __future__ import annotations

import sys
import types

import pytest

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.runtime.frameworks import group_api, known_live_keys, known_probes, latched, live_api, live_call

GiB = 1024**3


def entry(name: str):
    found = catalog().get(name)
    assert found is not None, name
    return found


@pytest.fixture
def no_frameworks(monkeypatch):
    for name in ("megengine", "paddle"):
        monkeypatch.delitem(sys.modules, name, raising=False)


def test_without_the_framework_no_live_api_is_offered_and_none_is_imported(no_frameworks):
    assert live_api(entry("MEGENGINE_DTR_EVICTION_THRESHOLD")) is None
    assert live_api(entry("FLAGS_allocator_strategy")) is None
    assert group_api("megengine.dtr.enable") is None
    assert "megengine" not in sys.modules and "paddle" not in sys.modules


def test_the_call_is_written_out_whether_or_not_the_framework_is_loaded(no_frameworks):
    assert live_call(entry("MEGENGINE_DTR_EVICTION_THRESHOLD"), 5 * GiB) == \
        "megengine.dtr.eviction_threshold = 5368709120"
    assert live_call(entry("FLAGS_allocator_strategy"), "naive_best_fit") == \
        "paddle.set_flags({'FLAGS_allocator_strategy': 'naive_best_fit'})"


def test_a_variable_without_a_live_api_has_neither_call_nor_api():
    engine = entry("MXNET_ENGINE_TYPE")
    assert engine.live_api is None and live_call(engine, "NaiveEngine") is None and live_api(engine) is None
    assert group_api(None) is None and group_api("no.such.group") is None


def test_a_loaded_framework_is_offered_its_live_api(monkeypatch):
    monkeypatch.setitem(sys.modules, "paddle", types.ModuleType("paddle"))
    api = live_api(entry("FLAGS_allocator_strategy"))
    assert api is not None and api.module == "paddle" and api.available()
    monkeypatch.delitem(sys.modules, "paddle")
    assert not api.available() and live_api(entry("FLAGS_allocator_strategy")) is None


def test_the_catalog_names_only_live_apis_an_adapter_implements():
    named = {e.live_api for e in catalog() if e.live_api} | {g.live_api for g in catalog().groups if g.live_api}
    assert named and named <= known_live_keys()
    assert {"paddle.set_flags", "megengine.dtr.enable", "megengine.set_default_device"} <= known_live_keys()


def test_the_catalog_names_only_latch_probes_an_adapter_implements():
    named = {e.latch for e in catalog() if e.latch}
    assert named == {"torch.cuda", "jax.backends", "tensorflow.context", "cuda"} and named <= known_probes()


def test_a_variable_without_a_probe_cannot_tell():
    assert latched(entry("FLAGS_allocator_strategy")) is None  # Paddle offers no question about its allocator
