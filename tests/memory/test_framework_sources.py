"""Framework allocator sources (memory/_framework_sources.py): the GPU code paths, run against stand-in modules with
the frameworks' API shapes (PyTorch's, JAX's and TensorFlow's from tests/framework_stand_ins.py, whose parameters are
checked against the wheels). The real CPU wheels are checked in tests/frameworks/test_memory_frameworks.py."""

from __future__ import annotations

import sys
import types

import pytest
from framework_stand_ins import (
    Device,
    JaxBackends,
    TensorFlowRuntime,
    TorchGpu,
    gpu_stats,
    install,
    jax_modules,
    tensorflow_modules,
    torch_modules,
)
from said import said

from mgenv_jupyter.memory._framework_sources import (
    FrameworkSource,
    framework_sources,
    nvml_index,
)

GiB = 1024**3


def module(monkeypatch: pytest.MonkeyPatch, name: str, **attributes: object) -> types.SimpleNamespace:
    fake = types.SimpleNamespace(**attributes)
    monkeypatch.setitem(sys.modules, name, fake)  # type: ignore[arg-type]
    return fake


def test_torch_is_read_only_after_it_initialised_cuda(monkeypatch):
    gpu = TorchGpu(devices=[(3 * GiB, 4 * GiB, 5 * GiB), (0, 0, 0)])
    install(monkeypatch, torch_modules(gpu))
    source = FrameworkSource("torch")
    assert source.sample() == [] and said(source.state) == "torch has not initialised CUDA in this kernel yet"
    gpu.cuda_initialised = True
    [sample] = source.sample()  # gpu1 holds nothing: left out
    assert (sample.label, sample.allocated, sample.reserved, sample.peak) == ("torch gpu0", 3 * GiB, 4 * GiB, 5 * GiB)
    assert said(source.state) == "ok"


def test_jax_is_read_only_once_its_backends_have_started(monkeypatch):
    backends = JaxBackends(devices=[Device("gpu", 0, gpu_stats(GiB, 30 * GiB, 2 * GiB, 30 * GiB)),
                                    Device("gpu", 1, gpu_stats(0, 30 * GiB, 0, 30 * GiB))])
    install(monkeypatch, jax_modules(backends))
    source = FrameworkSource("jax")
    # the stand-in's local_devices() fails the test if called now: it would start the backends (and preallocate)
    assert source.sample() == []
    assert said(source.state) == "jax has not started its backends yet (its first operation " \
                                                     "starts them)"
    backends.start("cuda")
    first, second = source.sample()
    assert (first.label, first.allocated, first.reserved, first.peak, first.total) == \
        ("jax gpu0", GiB, 30 * GiB, 2 * GiB, 30 * GiB)  # preallocated: the pool is the limit
    assert (second.label, second.allocated) == ("jax gpu1", 0) and said(source.state) == "ok"
    assert [s.label for s in FrameworkSource("jax", devices=[1]).sample()] == ["jax gpu1"]


def test_jax_without_statistics_says_so(monkeypatch):
    backends = JaxBackends(devices=[Device("cpu", 0, None)])
    install(monkeypatch, jax_modules(backends))
    backends.start("cpu")
    source = FrameworkSource("jax")
    assert source.sample() == []
    assert said(source.state) == "jax's cpu backend keeps no memory statistics (Device.memory_stats() is None)"


def test_tensorflow_is_read_only_once_its_context_is_initialised(monkeypatch):
    runtime = TensorFlowRuntime(gpus=[(GiB, 3 * GiB), (2 * GiB, 2 * GiB)])
    install(monkeypatch, tensorflow_modules(runtime))
    source = FrameworkSource("tensorflow")
    assert source.sample() == [] and said(source.state).startswith("tensorflow has not initialised its runtime yet")
    assert runtime.initialised is None  # reading get_memory_info now would have initialised it (threads, GPUs)
    sys.modules["tensorflow.python.eager.context"].context()
    assert source.sample() == [] and runtime.initialised is False  # a context that has not run anything yet
    runtime.initialised = True
    first, second = source.sample()
    assert (first.label, first.allocated, first.peak, first.reserved, first.total) == \
        ("tensorflow gpu0", GiB, 3 * GiB, None, None)  # TensorFlow reports neither its pool nor its limit
    assert (second.label, second.allocated, second.peak) == ("tensorflow gpu1", 2 * GiB, 2 * GiB)
    assert [s.label for s in FrameworkSource("tensorflow", devices=[1]).sample()] == ["tensorflow gpu1"]


def test_tensorflow_without_a_gpu_gives_no_series(monkeypatch):
    install(monkeypatch, tensorflow_modules(TensorFlowRuntime(initialised=True)))
    source = FrameworkSource("tensorflow")
    assert source.sample() == [] and said(source.state) == "tensorflow sees no GPU"


def test_the_allocator_sources_share_one_format(monkeypatch):
    """PyTorch, JAX and TensorFlow readings land in the same quantities, under "<framework> gpu<n>" devices."""
    install(monkeypatch, {**torch_modules(TorchGpu(devices=[(GiB, 2 * GiB, 3 * GiB)], cuda_initialised=True)),
                          **jax_modules(JaxBackends(devices=[Device("gpu", 0, gpu_stats(GiB, 2 * GiB, 3 * GiB,
                                                                                        4 * GiB))],
                                                    backends={"cuda": object()})),
                          **tensorflow_modules(TensorFlowRuntime(gpus=[(GiB, 3 * GiB)], initialised=True))})
    keys = {name: [key for key, _ in source.sample()[0].values()]
            for name, source in ((name, FrameworkSource(name)) for name in ("torch", "jax", "tensorflow"))}
    assert keys == {"torch": ["torch gpu0 allocated", "torch gpu0 reserved", "torch gpu0 peak"],
                    "jax": ["jax gpu0 total", "jax gpu0 allocated", "jax gpu0 reserved", "jax gpu0 peak"],
                    "tensorflow": ["tensorflow gpu0 allocated", "tensorflow gpu0 peak"]}


def test_megengine_waits_rather_than_creating_a_cuda_context(monkeypatch):
    asked = []

    def counter(value):
        def read(device):
            asked.append(device)
            return value
        return read

    module(monkeypatch, "megengine", get_device_count=lambda kind: 2, get_default_device=lambda: "xpux",
           get_allocated_memory=counter(GiB), get_reserved_memory=counter(2 * GiB),
           get_max_allocated_memory=counter(3 * GiB))
    used = {0: False}
    source = FrameworkSource("megengine", gate=lambda ordinal: used.get(ordinal))
    assert source.sample() == [] and asked == []
    assert said(source.state).startswith("waiting for the kernel to use gpu0")
    used[0] = True
    [sample] = source.sample()
    assert (sample.label, sample.allocated, sample.reserved, sample.peak) == ("megengine gpu0", GiB, 2 * GiB, 3 * GiB)
    assert asked == ["gpu0"] * 3


def test_megengine_default_device_picks_the_gpu(monkeypatch):
    module(monkeypatch, "megengine", get_device_count=lambda kind: 4, get_default_device=lambda: "gpu2:1",
           get_allocated_memory=lambda d: 1, get_reserved_memory=lambda d: 2, get_max_allocated_memory=lambda d: 3)
    assert [s.label for s in FrameworkSource("megengine").sample()] == ["megengine gpu2"]
    sys.modules["megengine"].get_default_device = lambda: "cpu0"
    source = FrameworkSource("megengine")
    assert source.sample() == [] and "cpu0" in said(source.state)


def test_paddle_gpu_build_reports_devices_it_uses(monkeypatch):
    cuda = types.SimpleNamespace(device_count=lambda: 2, memory_allocated=lambda d: [0, GiB][d],
                                 memory_reserved=lambda d: [0, 2 * GiB][d],
                                 max_memory_allocated=lambda d: [0, 3 * GiB][d])
    module(monkeypatch, "paddle", is_compiled_with_cuda=lambda: True, device=types.SimpleNamespace(cuda=cuda))
    [sample] = FrameworkSource("paddle").sample()
    assert (sample.label, sample.allocated, sample.reserved, sample.peak) == ("paddle gpu1", GiB, 2 * GiB, 3 * GiB)


def test_mxnet_reads_only_gpus_the_kernel_uses(monkeypatch):
    asked = []

    def info(d):
        asked.append(d)
        return (10 * GiB, 16 * GiB)

    module(monkeypatch, "mxnet", context=types.SimpleNamespace(num_gpus=lambda: 2, gpu_memory_info=info))
    [sample] = FrameworkSource("mxnet", gate=lambda ordinal: ordinal == 1).sample()
    assert asked == [1] and (sample.label, sample.used, sample.total) == ("mxnet gpu1", 6 * GiB, 16 * GiB)


def test_a_framework_that_raises_becomes_a_state(monkeypatch):
    def boom():
        raise RuntimeError("Traceback (most recent call last):\n  File x\nMXNetError: CUDA: out of memory")

    module(monkeypatch, "mxnet", context=types.SimpleNamespace(num_gpus=boom))
    source = FrameworkSource("mxnet")
    assert source.sample() == []
    assert said(source.state) == "mxnet error: RuntimeError: MXNetError: CUDA: out of memory"


def test_idle_sources_when_nothing_is_imported():
    for source in framework_sources():
        if source.name not in sys.modules:
            assert source.sample() == [] and said(source.state) == f"{source.name} is not imported"


@pytest.mark.parametrize(("visible", "ordinal", "index"), [
    (None, 1, 1), ("2,3", 0, 2), ("2,3", 1, 3), ("2,3", 2, None), ("GPU-5157a7ed", 0, None), ("", 0, 0),
    # Not ASCII digits: '²', '①' and '⁵' pass str.isdigit() and then int() raised (issue 28's finding 11, here).
    ("²", 0, None), ("①,1", 0, None), ("1,⁵", 1, None), ("٣", 0, None), ("+1", 0, None),
])
def test_cuda_ordinals_map_to_nvml_indexes(monkeypatch, visible, ordinal, index):
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    assert nvml_index(ordinal) == index
