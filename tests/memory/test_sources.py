"""The sources a chart uses by default (memory/_sources.py): NVML (the simulated GPU when `MGENV_SIMULATE_GPU` asks
for it), the framework allocators, host memory (only the kernel's own beside a GPU), a bad value shown as a source's
state, and the GPU's total for the DTR widget."""

from __future__ import annotations

from said import said

from mgenv_jupyter.base._source_state import State
from mgenv_jupyter.memory._host_source import HostSource
from mgenv_jupyter.memory._nvml_source import NvmlSource
from mgenv_jupyter.memory._sources import UnavailableSource, default_sources
from mgenv_jupyter.memory.simulated import _simulation as simulation
from mgenv_jupyter.memory.simulated._fake_nvml import FakeDevice, FakeNvml

GiB = 1024**3


def test_environment_variable_makes_default_sources_simulated(monkeypatch):
    monkeypatch.setenv(simulation.ENV, "2xv100")
    sources = default_sources()
    nvml = next(s for s in sources if isinstance(s, NvmlSource))
    assert [s.label for s in nvml.sample()] == ["gpu0 (simulated)", "gpu1 (simulated)"]
    assert (nvml.name, said(nvml.state), nvml.simulation) == ("nvml (simulated)", "ok", "2xv100")
    assert simulation.from_environment() is simulation.from_environment()  # installed once


def test_a_bad_environment_value_is_shown_as_a_source_state(monkeypatch):
    monkeypatch.setenv(simulation.ENV, "/nonexistent/scenario.json")
    sources = default_sources()
    broken = [s for s in sources if isinstance(s, UnavailableSource)]
    assert broken and "neither a preset" in said(broken[0].state) and broken[0].sample() == []


def test_gpu_total_reaches_the_dtr_widget(monkeypatch):
    from mgenv_jupyter.memory import gpu_total_bytes
    from mgenv_jupyter.widgets import DTRWidget

    assert gpu_total_bytes() is None  # no driver on this machine, no simulation asked for
    monkeypatch.setenv(simulation.ENV, "a100-40gb")
    assert gpu_total_bytes() == 40 * GiB
    widget = DTRWidget()
    try:
        assert widget.gpu_total() == 40 * GiB
    finally:
        widget.close()


def test_by_default_nvml_then_each_framework_then_the_host_sharing_one_process_tree():
    sources = default_sources()
    try:
        assert [s.name for s in sources] == ["nvml", "megengine", "paddle", "torch", "jax", "tensorflow", "mxnet",
                                            "host"]
        nvml, host = sources[0], sources[-1]
        assert isinstance(nvml, NvmlSource) and isinstance(host, HostSource)
        assert host.tree is nvml.tree and host.gpus is nvml  # one walk of the process tree serves both
    finally:
        for source in sources:
            source.close()


def test_the_host_is_charted_gpu_or_not_beside_a_gpu_only_the_kernels_own():
    with FakeNvml([FakeDevice(total=16 * GiB)]):
        gpus = NvmlSource()
        host = HostSource(gpus=gpus)
        [alone] = host.sample()  # NVML has not answered yet: the whole host
        assert alone.total and alone.used and alone.process
        gpus.sample()
        [beside] = host.sample()
        assert beside.device == "host" and beside.process and (beside.used, beside.total) == (None, None)
        assert not host.idle and said(host.state) == "ok"
        node = HostSource(gpus=gpus, fallback=True)  # a cluster node's: its actor's tree is no user's
        assert node.idle and node.sample() == []
        assert said(node.state) == "idle: GPUs are visible (host memory is the fallback)"
        gpus.close()
    with FakeNvml([]):
        gpus = NvmlSource()
        gpus.sample()
        host = HostSource(gpus=gpus)
        [sample] = host.sample()
        assert sample.device == "host" and sample.total and said(host.state) == "ok"
        gpus.close()


def test_a_source_that_cannot_work_says_why_and_samples_nothing():
    broken = UnavailableSource("nvml (simulated)", State("simulation_refused", error="no such preset"))
    assert (broken.name, said(broken.state), broken.idle, broken.simulated) == (
        "nvml (simulated)", "simulated GPU not started: no such preset", True, False)
    assert broken.sample() == []
