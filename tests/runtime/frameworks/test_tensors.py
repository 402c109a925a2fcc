"""What the frameworks' adapters declare about their objects (runtime/frameworks/_tensors.py): device names, a
module's registries read from its own dict (exact dicts only; a registry a user replaced is left alone), and the
declarations of the frameworks loaded here (NumPy's; the others' in their venvs: tests/frameworks/)."""

from __future__ import annotations

import sys
from collections import OrderedDict

from mgenv_jupyter.runtime.frameworks import tensor_kinds
from mgenv_jupyter.runtime.frameworks._tensors import (
    BUFFER,
    HOST,
    PARAMETER,
    Storage,
    attributes,
    device_name,
    registries,
)


def test_device_names():
    assert device_name("cpu", None) == device_name("cpu_pinned", 0) == HOST
    assert device_name("cuda", 1) == "gpu1" and device_name("gpu", None) == "gpu0"
    assert device_name("npu", 2) == "npu2" and device_name("meta", None) == "meta"


def test_registries_are_read_as_stored_and_a_replaced_one_is_left_alone():
    touched = []

    class Noisy(dict):
        def values(self):
            touched.append("values")
            return super().values()

        def __iter__(self):
            touched.append("__iter__")
            return super().__iter__()

    class Module:
        pass

    module = Module()
    module._parameters = {"weight": "w", "bias": None}
    module._buffers = OrderedDict(running="r")
    module._modules = Noisy(child="c")
    found = registries(attributes(module), (("_parameters", PARAMETER), ("_buffers", BUFFER), ("_modules", "module")))
    assert found == [(PARAMETER, "w"), (BUFFER, "r")]
    assert touched == []


def test_a_storage_is_a_named_tuple_and_the_loaded_frameworks_declare_themselves(monkeypatch):
    import numpy  # noqa: F401  (loaded: its declaration is there)

    storage = Storage(("numpy", 1), HOST, 8, True)
    assert storage.bytes == 8 and tuple(storage) == (("numpy", 1), HOST, 8, True)
    assert "numpy" in [declared.framework for declared in tensor_kinds()]
    monkeypatch.delitem(sys.modules, "numpy")
    assert "numpy" not in [declared.framework for declared in tensor_kinds()]
