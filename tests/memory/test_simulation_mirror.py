"""The `mirror-*` presets: the simulated GPU holds what this process tree really holds in host memory, on the device
CUDA_VISIBLE_DEVICES gives the process first, so a sweep's device figures follow what its cells really allocate."""

from __future__ import annotations

import pytest

from mgenv_jupyter.memory._nvml_source import NvmlSource
from mgenv_jupyter.memory._process_tree import ProcessTree
from mgenv_jupyter.memory._scenario import Scenario
from mgenv_jupyter.memory._simulation import Simulation

MiB = 1024**2


def _process_memory(visible: str | None, monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    with Simulation("mirror-4x1gb"):
        source = NvmlSource(ProcessTree(), process_interval=0.0, process_refresh=0.0)
        try:
            samples = source.sample()
        finally:
            source.close()
    assert all(sample.simulated for sample in samples)
    return [sample.process for sample in samples]


def test_the_kernel_is_on_the_device_it_would_use(monkeypatch):
    on = _process_memory("2", monkeypatch)
    assert on[2] and all(not used for index, used in enumerate(on) if index != 2)
    assert _process_memory(None, monkeypatch)[0]


def test_it_holds_what_the_tree_holds_in_host_memory(monkeypatch):
    before = _process_memory("0", monkeypatch)[0] or 0
    ballast = bytearray(200 * MiB)  # touched: bytearray fills with zeros
    after = _process_memory("0", monkeypatch)[0] or 0
    del ballast
    assert abs((after - before) - 200 * MiB) < 20 * MiB
    assert abs(after - ProcessTree().rss()) < 300 * MiB  # the tree's resident size, in 2 MiB pages


def test_host_is_the_only_word_a_kernel_takes_besides_sizes():
    assert Scenario.from_json({"devices": [{"kernel": "host"}]}).devices[0].kernel.host
    with pytest.raises(Exception, match='"host"'):
        Scenario.from_json({"devices": [{"kernel": "guest"}]})
