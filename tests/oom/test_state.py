"""The memory state at a failure, read from a real sampler over the simulated GPU (the fake NVML behind pynvml):
per device the total, the kernel's share and the rest; every process outside the kernel's tree with its user and name
where psutil can see it."""

from __future__ import annotations

import os

from mgenv_jupyter.memory._sampler import Sampler
from mgenv_jupyter.memory._simulation import Simulation
from mgenv_jupyter.memory._sources import default_sources
from mgenv_jupyter.oom._state import DeviceFigures, read_state

GiB = 1024**3


def test_two_simulated_gpus_with_a_visible_and_an_invisible_other_process():
    scenario = {"name": "state", "devices": [
        {"name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "kernel": "6GB",
         "other_processes": [{"pid": 4000002, "bytes": "20GB"}, {"pid": os.getppid(), "bytes": "1GB"}]},
        {"name": "NVIDIA A100-SXM4-40GB", "total": "40GB"}]}
    from mgenv_jupyter.memory._scenario import Scenario

    with Simulation(Scenario.from_json(scenario)):
        sampler = Sampler(default_sources())
        try:
            state = read_state(sampler)
        finally:
            sampler.close()
    gpu0, gpu1 = state.devices
    assert (gpu0.gpu, gpu0.total, gpu0.kernel, gpu0.simulated) == (0, 40 * GiB, 6 * GiB, True)
    assert gpu0.others == 21 * GiB and gpu1.kernel == 0 and gpu1.free == 40 * GiB
    invisible, parent = state.processes
    assert (invisible.pid, invisible.bytes, invisible.user, invisible.name) == (4000002, 20 * GiB, None, None)
    assert parent.pid == os.getppid() and parent.name and parent.user  # psutil names the real process
    assert state.host_total and state.kernel_rss


def test_without_a_sampler_the_host_is_still_read():
    state = read_state(None)
    assert state.devices == () and state.host_total is not None and state.host_available is not None


def test_fragmentation_is_reserved_less_allocated():
    device = DeviceFigures("gpu0", 0, total=10, used=8, kernel=6, allocated=2, reserved=5)
    assert (device.cached_free, device.others, device.free) == (3, 2, 2)
    assert DeviceFigures("gpu0", 0).cached_free is None
