"""The memory state at a failure, read from a real sampler over the simulated GPU (the fake NVML behind pynvml):
per device the total, the kernel's share and the rest; every process outside the kernel's tree with its user and name
where psutil can see it. The other processes are read through an NVML client of their own that gives its
initialisation back, and a list NVML refuses is a note beside what was listed before it."""

from __future__ import annotations

import os

import pynvml
from node_series import kernels_sampler

from mgenv_jupyter.memory._sampler import Sampler
from mgenv_jupyter.memory._sources import default_sources
from mgenv_jupyter.memory.simulated._fake_nvml import FakeDevice, FakeNvml, FakeProcess
from mgenv_jupyter.memory.simulated._simulation import Simulation
from mgenv_jupyter.oom._state import DeviceFigures, other_processes, read_state

GiB = 1024**3


def test_two_simulated_gpus_with_a_visible_and_an_invisible_other_process():
    scenario = {"name": "state", "devices": [
        {"name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "kernel": "6GB",
         "other_processes": [{"pid": 4000002, "bytes": "20GB"}, {"pid": os.getppid(), "bytes": "1GB"}]},
        {"name": "NVIDIA A100-SXM4-40GB", "total": "40GB"}]}
    from mgenv_jupyter.memory.simulated._scenario import Scenario

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


def test_other_processes_are_listed_biggest_first_and_nvml_is_given_back():
    devices = [FakeDevice(processes=[FakeProcess(os.getpid(), 6 * GiB), FakeProcess(4000003, 1 * GiB)]),
               FakeDevice(processes=[FakeProcess(4000004, 9 * GiB), FakeProcess(4000005, None)])]
    with FakeNvml(devices) as fake:
        pynvml.nvmlInit()  # someone else in the kernel (the sampler's NVML source) holds NVML already
        found, problem = other_processes(None)
        assert fake._initialized == 1  # ours was given back, theirs is kept
        pynvml.nvmlShutdown()
    assert problem == ""
    assert [(p.gpu, p.pid, p.bytes) for p in found] == [(1, 4000004, 9 * GiB), (0, 4000003, GiB), (1, 4000005, None)]


def test_a_process_list_nvml_refuses_is_a_note_beside_what_was_listed_before_it():
    devices = [FakeDevice(processes=[FakeProcess(4000006, 2 * GiB)]),
               FakeDevice(process_error=pynvml.NVML_ERROR_NO_PERMISSION)]
    with FakeNvml(devices) as fake:
        found, problem = other_processes(None)
        assert fake._initialized == 0
    assert [(p.gpu, p.pid) for p in found] == [(0, 4000006)]
    assert problem == f"NVML did not list gpu1's processes: {pynvml.NVMLError(pynvml.NVML_ERROR_NO_PERMISSION)}"


def test_without_a_driver_there_is_nothing_to_list_and_nothing_to_say():
    with FakeNvml([FakeDevice()], library=False):
        assert other_processes(None) == ([], "")
    with FakeNvml([FakeDevice()], driver=False):
        assert other_processes(None) == ([], "")


def test_the_states_gpus_are_the_kernels_own_read_by_their_fields():
    """A cluster node's GPU (gpu1 of "gpubox") is not the kernel's second GPU, and PyTorch's counters on gpu0 join
    NVML's figures of gpu0."""
    with kernels_sampler() as sampler:
        state = read_state(sampler)
    (gpu0,) = state.devices
    assert (gpu0.device, gpu0.gpu, gpu0.simulated) == ("gpu0 (simulated)", 0, True)
    assert (gpu0.total, gpu0.kernel, gpu0.allocated, gpu0.reserved) == (40 * GiB, 6 * GiB, 4 * GiB, 5 * GiB)


def test_the_kernels_figure_and_the_others_are_one_reading_of_the_process_list():
    """Issue 36, point 5: the kernel's figure came from the sampler, whose process list may be a second old, and the
    other processes from a list read now: on a device that climbs, the report's figures were of two moments and did
    not add up. Both now come from the one list read at the failure."""
    device = FakeDevice(total=40 * GiB, processes=[FakeProcess(os.getpid(), 10 * GiB), FakeProcess(4000003, 5 * GiB)])
    with FakeNvml([device]):
        sampler = Sampler(default_sources())
        try:
            sampler.sample_once()  # the sampler lists the processes now, and not again for a second
            device.processes[0].used = 30 * GiB  # the kernel climbed since
            state = read_state(sampler)
        finally:
            sampler.close()
    (gpu0,) = state.devices
    assert (gpu0.kernel, gpu0.others, gpu0.used) == (30 * GiB, 5 * GiB, 35 * GiB)
    assert gpu0.unlisted == 0


def test_the_kernels_figure_and_the_charts_point_at_the_failure_are_one_reading():
    """Issue 36, point 5: the report read NVML's process list again for the kernel's figure and the other processes,
    while the sample it took (the chart's point at the failure, the timeline's last) kept the sampler's list, up to a
    second old: "this kernel 2.12 GiB" beside a timeline ending at 2.02 GiB. Now the sample's lists are read anew for
    the report, and every figure comes from them."""
    from mgenv_jupyter.memory._host_source import HostSource
    from mgenv_jupyter.memory._nvml_source import NvmlSource
    from mgenv_jupyter.memory._process_tree import ProcessTree

    kernel, other = FakeProcess(os.getpid(), 3 * GiB), FakeProcess(4000006, 1 * GiB)
    with FakeNvml([FakeDevice(total=40 * GiB, processes=[kernel, other])]):
        tree = ProcessTree()
        nvml = NvmlSource(tree, process_interval=60)  # a list read once stays for a minute, unless asked anew
        sampler = Sampler([nvml, HostSource(tree, gpus=nvml)])
        try:
            sampler.sample_once()  # the list as the chart last read it: 3 GiB
            kernel.used, other.used = 5 * GiB, 2 * GiB  # the kernel took more since, and so did the other process
            state = read_state(sampler)
            series = next(key for key in sampler.history.series if key.endswith("process") and "gpu0" in key)
            charted = sampler.history.points(series)[-1][1]
        finally:
            sampler.close()
    (gpu,) = state.devices
    assert (gpu.kernel, charted, gpu.others) == (5 * GiB, 5 * GiB, 2 * GiB), (gpu, charted)
    assert [(p.pid, p.bytes) for p in state.processes] == [(4000006, 2 * GiB)]
