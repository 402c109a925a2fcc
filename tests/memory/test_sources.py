"""The sources a chart uses by default (memory/sources.py): the simulated GPU when `MGENV_SIMULATE_GPU` asks for
it, a bad value shown as a source's state, and the GPU's total for the DTR widget."""

from __future__ import annotations

from mgenv_jupyter.memory import simulation
from mgenv_jupyter.memory.nvml_source import NvmlSource
from mgenv_jupyter.memory.sources import UnavailableSource, default_sources

GiB = 1024**3


def test_environment_variable_makes_default_sources_simulated(monkeypatch):
    monkeypatch.setenv(simulation.ENV, "2xv100")
    sources = default_sources()
    nvml = next(s for s in sources if isinstance(s, NvmlSource))
    assert [s.device for s in nvml.sample()] == ["gpu0 (simulated)", "gpu1 (simulated)"]
    assert nvml.name == "nvml (simulated)" and nvml.state == "simulated"
    assert simulation.from_environment() is simulation.from_environment()  # installed once


def test_a_bad_environment_value_is_shown_as_a_source_state(monkeypatch):
    monkeypatch.setenv(simulation.ENV, "/nonexistent/scenario.json")
    sources = default_sources()
    broken = [s for s in sources if isinstance(s, UnavailableSource)]
    assert broken and "neither a preset" in broken[0].state and broken[0].sample() == []


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
