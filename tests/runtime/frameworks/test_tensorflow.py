"""TensorFlow's live APIs and latch probe (runtime/frameworks/_tensorflow.py) against a stand-in with TensorFlow 2.21's
names, parameters and behaviour (tests/framework_stand_ins.py, checked against the wheel): tf.config.threading
setters raise RuntimeError once the eager context is initialised, and memory growth is set per GPU. Real TensorFlow
(CPU) is checked in tests/frameworks/; memory growth only here."""

from __future__ import annotations

import pytest
from framework_stand_ins import TensorFlowRuntime, install, tensorflow_modules

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.runtime.frameworks import latched, live_api


def entry(name: str):
    found = catalog().get(name)
    assert found is not None, name
    return found


@pytest.fixture
def fake_tf(monkeypatch):
    runtime = TensorFlowRuntime(gpus=[(0, 0), (0, 0)], initialised=False)
    install(monkeypatch, tensorflow_modules(runtime))
    return runtime


def test_threads_apply_until_the_context_is_initialised(fake_tf):
    intra = entry("TF_NUM_INTRAOP_THREADS")
    api = live_api(intra)
    assert api is not None and not api.survives_latch
    assert latched(intra) is False
    api.apply(intra, 3)
    assert fake_tf.intra_op == 3 and api.read(intra) == "3"
    assert api.call(intra, 3) == "tf.config.threading.set_intra_op_parallelism_threads(3)"
    fake_tf.initialised = True
    assert latched(intra) is True
    with pytest.raises(RuntimeError):
        api.apply(intra, 4)


def test_memory_growth_is_set_on_every_gpu(fake_tf):
    growth = entry("TF_FORCE_GPU_ALLOW_GROWTH")
    api = live_api(growth)
    assert api is not None
    api.apply(growth, growth.type.parse("1").value)
    assert fake_tf.growth == {"/physical_device:GPU:0": True, "/physical_device:GPU:1": True}
    assert api.read(growth) == "true"


def test_no_context_yet_means_not_latched(fake_tf):
    fake_tf.initialised = None  # no context object yet
    assert latched(entry("TF_NUM_INTEROP_THREADS")) is False
