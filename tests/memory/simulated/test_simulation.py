"""The simulated GPU (`MGENV_SIMULATE_GPU`): presets and scenario files drive the real NVML source through the fake
library, with real worker processes, and everything it produces is labelled simulated."""

from __future__ import annotations

import json
import os

import psutil
import pytest
from said import UNAVAILABLE, said

from mgenv_jupyter.memory._nvml_source import NvmlSource
from mgenv_jupyter.memory._process_tree import ProcessTree
from mgenv_jupyter.memory.simulated._fake_nvml import installed
from mgenv_jupyter.memory.simulated._scenario import PRESETS, Scenario
from mgenv_jupyter.memory.simulated._simulation import Simulation

GiB = 1024**3
MiB = 1024**2


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def fresh_source() -> NvmlSource:
    return NvmlSource(ProcessTree(max_age=0), retry_seconds=0, process_interval=0)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_is_a_valid_labelled_scenario(preset):
    with Simulation(preset):
        source = fresh_source()
        samples = source.sample()
        assert source.simulated and source.simulation == preset  # the state itself says only what NVML does
        assert all(s.simulated and s.label.endswith("(simulated)") for s in samples)
        source.close()
    assert installed() is None


def test_training_grows_per_step_spawns_workers_fails_and_recovers(clock):
    source = fresh_source()
    with Simulation("training", clock=clock) as sim:
        first = source.sample()[0]
        assert first.process == 1536 * MiB and first.total == 40 * GiB and not sim.workers
        clock.now += 2.5  # two steps and half of the activation wave
        grown = source.sample()[0]
        assert grown.process == 1536 * MiB + 2 * 256 * MiB + 512 * MiB
        clock.now += 1.0  # past 3 s: two DataLoader-like workers, real children of this process
        source.sample()  # they start during this sample, after its process-tree walk
        with_workers = source.sample()[0]
        assert len(sim.workers) == 2
        children = {p.pid for p in psutil.Process().children()}
        assert all(w.process.pid in children for w in sim.workers)
        kernel_alone = 1536 * MiB + 3 * 256 * MiB + 512 * MiB
        assert with_workers.process == kernel_alone + 2 * 300 * MiB
        clock.now = 1000.0 + 21  # the NVML error window
        assert source.sample() == [] and said(source.state) == "NVML error on gpu0: Unknown Error"
        clock.now = 1000.0 + 24  # recovered
        assert source.sample()[0].process is not None and said(source.state) == "ok"
        clock.now = 1000.0 + 90 + 0.1  # the timeline repeats; the workers stay
        kernel = (1536 * MiB + int(1024 * MiB * 0.1)) // (2 * MiB) * (2 * MiB)
        assert source.sample()[0].process == kernel + 2 * 300 * MiB
        workers = [w.process for w in sim.workers]
    assert all(w.poll() is not None for w in workers)  # stopped with the simulation
    source.close()


def test_container_preset_reports_unavailable_per_process_memory():
    with Simulation("container"):
        source = fresh_source()
        [sample] = source.sample()
    assert sample.process is None and sample.total == 40 * GiB
    assert UNAVAILABLE in said(source.state)


def test_two_devices_preset():
    with Simulation("2xv100"):
        samples = fresh_source().sample()
    assert [s.label for s in samples] == ["gpu0 (simulated)", "gpu1 (simulated)"]
    assert samples[1].process == 0 and samples[1].used > 5 * GiB


def test_scenario_file_format_from_the_docs(tmp_path, clock):
    scenario = {
        "name": "my-run", "step_seconds": 2, "period": 0,
        "devices": [{"name": "NVIDIA H100 80GB HBM3", "total": "80GB", "others": "1GB", "reserved": "512MB",
                     "kernel": {"start": "10GB", "step": "1GB", "max": "11GB"},
                     "other_processes": [{"pid": os.getppid(), "bytes": "5GB"}]}],
        "errors": [{"at": 10, "for": 2, "error": "GPU_IS_LOST"}],
    }
    path = tmp_path / "run.json"
    path.write_text(json.dumps(scenario))
    with Simulation(str(path), clock=clock) as sim:
        assert sim.label == "simulated (my-run)"
        source = fresh_source()
        assert source.sample()[0].process == 10 * GiB
        clock.now += 100
        [sample] = source.sample()
        assert sample.process == 11 * GiB  # capped at max
        assert sample.used == 11 * GiB + 5 * GiB + GiB + 512 * MiB
        assert sample.total == 80 * GiB


# ---- the mirror-* presets: the kernel holds what its process tree really holds -----------------------------------

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
