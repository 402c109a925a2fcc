"""TensorFlow's live APIs and latch probe (runtime/frameworks/tensorflow.py) against a stand-in with TensorFlow 2.21's
names and behaviour: tf.config.threading setters raise RuntimeError once the eager context is initialised, and
memory growth is set per GPU. Real TensorFlow (CPU) is checked in tests/frameworks/; memory growth only here."""

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
def fake_tf(monkeypatch):
    state = {"intra": 0, "growth": {}}
    context_module = types.ModuleType("tensorflow.python.eager.context")
    context_module._context = types.SimpleNamespace(_initialized=False)  # type: ignore[attr-defined]

    def set_intra(n):
        if context_module._context._initialized:  # type: ignore[attr-defined]
            raise RuntimeError("Intra op parallelism cannot be modified after initialization.")
        state["intra"] = n

    gpus = ["GPU:0", "GPU:1"]
    tf = types.ModuleType("tensorflow")
    tf.config = types.SimpleNamespace(  # type: ignore[attr-defined]
        threading=types.SimpleNamespace(set_intra_op_parallelism_threads=set_intra,
                                        get_intra_op_parallelism_threads=lambda: state["intra"]),
        list_physical_devices=lambda kind: list(gpus) if kind == "GPU" else [],
        experimental=types.SimpleNamespace(
            set_memory_growth=lambda gpu, on: state["growth"].__setitem__(gpu, on),
            get_memory_growth=lambda gpu: state["growth"].get(gpu, False)))
    monkeypatch.setitem(sys.modules, "tensorflow", tf)
    monkeypatch.setitem(sys.modules, "tensorflow.python.eager.context", context_module)
    return state, context_module


def test_threads_apply_until_the_context_is_initialised(fake_tf):
    state, context_module = fake_tf
    intra = entry("TF_NUM_INTRAOP_THREADS")
    api = live_api(intra)
    assert api is not None and not api.survives_latch
    assert latched(intra) is False
    api.apply(intra, 3)
    assert state["intra"] == 3 and api.read(intra) == "3"
    assert api.call(intra, 3) == "tf.config.threading.set_intra_op_parallelism_threads(3)"
    context_module._context._initialized = True
    assert latched(intra) is True
    with pytest.raises(RuntimeError):
        api.apply(intra, 4)


def test_memory_growth_is_set_on_every_gpu(fake_tf):
    state, _ = fake_tf
    growth = entry("TF_FORCE_GPU_ALLOW_GROWTH")
    api = live_api(growth)
    assert api is not None
    api.apply(growth, growth.type.parse("1").value)
    assert state["growth"] == {"GPU:0": True, "GPU:1": True} and api.read(growth) == "true"


def test_no_context_yet_means_not_latched(fake_tf):
    _, context_module = fake_tf
    context_module._context = None
    assert latched(entry("TF_NUM_INTEROP_THREADS")) is False
