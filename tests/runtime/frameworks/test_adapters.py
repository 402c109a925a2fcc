"""The adapters' table (mgenv_jupyter/runtime/frameworks/_adapters.py): each framework's adapter is one typed
`Adapter`, listed by key, and what it does not offer is None, never a missing name."""

from __future__ import annotations

import dataclasses

from mgenv_jupyter.runtime.frameworks import COUNTERS, Adapter, adapter, adapters, offered
from mgenv_jupyter.runtime.frameworks._adapters import MODULES


def test_every_adapter_is_one_typed_object_listed_by_its_frameworks_key():
    listed = adapters()
    assert list(listed) == ["torch", "jax", "paddle", "megengine", "mxnet", "tensorflow", "cupy", "numpy"]
    assert all(isinstance(each, Adapter) for each in listed.values())
    assert [module.ADAPTER for module in MODULES] == list(listed.values())
    assert adapter("torch") is listed["torch"] and adapter("ascend") is None  # Ascend has no adapter


def test_what_an_adapter_does_not_offer_is_none_and_offered_leaves_it_out():
    fields = {field.name for field in dataclasses.fields(Adapter)}
    assert all(hasattr(each, name) for each in adapters().values() for name in fields)
    assert adapter("numpy").release_cache is None and adapter("cupy").tensor_kinds is None
    assert set(offered(lambda each: each.release_cache)) == {"torch", "paddle", "megengine", "mxnet", "cupy"}
    assert set(offered(lambda each: each.read_counters)) == set(COUNTERS)
    assert set(offered(lambda each: each.group_apis)) == {"megengine"}
