"""The NVML source through the real pynvml, answered by the fake NVML library: attribution to the kernel's process
tree (real child processes), several devices, no driver, errors mid-run, usedGpuMemory unavailable, foreign PIDs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pynvml
import pytest
from said import UNAVAILABLE, said

from mgenv_jupyter.memory._nvml_source import NvmlSource
from mgenv_jupyter.memory._process_tree import ProcessTree
from mgenv_jupyter.memory.simulated._fake_nvml import FakeDevice, FakeNvml, FakeProcess

GiB = 1024**3
MiB = 1024**2


@pytest.fixture
def source() -> Iterator[NvmlSource]:
    """An NVML source whose process-tree walk is never cached, so a child started by the test counts at once."""
    src = NvmlSource(ProcessTree(max_age=0), retry_seconds=0, process_interval=0)
    yield src
    src.close()


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    """A real child of this process that itself starts a grandchild; both wait for stdin to close."""
    code = ("import subprocess, sys; g = subprocess.Popen([sys.executable, '-c', 'import sys; sys.stdin.read()'], "
            "stdin=subprocess.PIPE); print(g.pid, flush=True); sys.stdin.read(); g.stdin.close(); g.wait()")
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    yield proc
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=10)


def grandchild_pid(proc: subprocess.Popen[bytes]) -> int:
    assert proc.stdout is not None
    return int(proc.stdout.readline())


def test_kernel_process_tree_is_attributed_including_real_children(source, child):
    grandchild = grandchild_pid(child)
    outsider = os.getppid()  # exists, but is not the kernel's descendant
    device = FakeDevice(total=40 * GiB, others=GiB, processes=[
        FakeProcess(os.getpid(), 3 * GiB), FakeProcess(child.pid, 500 * MiB), FakeProcess(grandchild, 200 * MiB),
        FakeProcess(outsider, 7 * GiB)])
    with FakeNvml([device]):
        [sample] = source.sample()
    assert sample.process == 3 * GiB + 700 * MiB
    assert sample.used == 3 * GiB + 700 * MiB + 7 * GiB + GiB and sample.total == 40 * GiB
    assert said(source.state) == "ok" and source.simulation == "fake NVML"  # the fake says what it is, once
    assert sample.simulated and sample.label == "gpu0 (simulated)" and source.name == "nvml (simulated)"
    assert source.uses_device(0) is True


def test_a_child_that_exits_stops_counting(source, child):
    device = FakeDevice(processes=[FakeProcess(child.pid, GiB)])
    with FakeNvml([device]):
        assert source.sample()[0].process == GiB
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=10)
        # NVML may still list it for a moment; the tree walk no longer includes it.
        assert source.sample()[0].process == 0
        assert source.uses_device(0) is False


def test_several_devices_are_all_reported():
    devices = [FakeDevice(name="Tesla V100-SXM2-16GB", total=16 * GiB, processes=[FakeProcess(os.getpid(), GiB)]),
               FakeDevice(name="Tesla V100-SXM2-16GB", total=16 * GiB, others=5 * GiB)]
    with FakeNvml(devices):
        samples = NvmlSource().sample()
    assert [(s.label, s.total, s.used, s.process) for s in samples] == [
        ("gpu0 (simulated)", 16 * GiB, GiB, GiB), ("gpu1 (simulated)", 16 * GiB, 5 * GiB, 0)]


@pytest.mark.parametrize(("fake", "words"), [
    (FakeNvml(library=False), "no NVIDIA driver (libnvidia-ml.so.1 not found)"),
    (FakeNvml(driver=False), "no NVIDIA driver (the driver is not loaded)"),
])
def test_missing_driver_is_a_state_not_an_error(source, fake, words):
    with fake:
        assert source.sample() == []
        assert said(source.state) == words
    with FakeNvml([FakeDevice()]):  # the driver appears (retry_seconds=0): the source picks it up
        assert len(source.sample()) == 1 and said(source.state) == "ok"


def test_without_a_driver_retries_are_spaced():
    src = NvmlSource(retry_seconds=60)
    with FakeNvml(library=False):
        src.sample()
    with FakeNvml([FakeDevice()]) as nvml:
        assert src.sample() == []  # not yet retried
        assert nvml.calls["nvmlInitWithFlags"] == 0


def test_errors_mid_run_change_the_state_and_sampling_recovers(source):
    with FakeNvml([FakeDevice(processes=[FakeProcess(os.getpid(), GiB)])]) as nvml:
        assert len(source.sample()) == 1
        nvml.failure = pynvml.NVML_ERROR_GPU_IS_LOST
        assert source.sample() == []
        assert said(source.state) == "NVML error on gpu0: GPU is lost"
        nvml.failure = None
        assert source.sample()[0].process == GiB and said(source.state) == "ok"


def test_one_lost_device_leaves_the_others_visible(source):
    lost = FakeDevice(error=pynvml.NVML_ERROR_GPU_IS_LOST)
    with FakeNvml([FakeDevice(total=8 * GiB), lost]):
        [sample] = source.sample()
    assert sample.label == "gpu0 (simulated)" and "gpu1: GPU is lost" in said(source.state)


def test_nvml_shut_down_under_the_source_is_initialised_again(source):
    with FakeNvml([FakeDevice()]):
        source.sample()
        pynvml.nvmlShutdown()  # e.g. another library calling nvmlShutdown
        assert source.sample() == [] and "Uninitialized" in said(source.state)
        assert len(source.sample()) == 1 and said(source.state) == "ok"


def test_used_gpu_memory_unavailable_hides_only_the_per_process_figure(source):
    with FakeNvml([FakeDevice(total=24 * GiB, others=2 * GiB, processes=[FakeProcess(os.getpid(), None)])]):
        [sample] = source.sample()
    assert sample.process is None and sample.used == 2 * GiB and sample.total == 24 * GiB
    assert "per-process memory unavailable" in said(source.state) and "WDDM" in said(source.state)
    assert source.uses_device(0) is None


def test_foreign_pid_namespace_is_detected_and_totals_still_shown(source):
    foreign = (1 << 22) + os.getpid()  # above any pid_max: cannot exist here, like a host PID seen from a container
    with FakeNvml([FakeDevice(total=40 * GiB, processes=[FakeProcess(foreign, 4 * GiB)])]):
        [sample] = source.sample()
    assert sample.process is None and sample.used == 4 * GiB and sample.total == 40 * GiB
    assert said(source.state).startswith(UNAVAILABLE) and str(foreign) in said(source.state)


def test_mig_without_privileges_is_said_so(source):
    device = FakeDevice(mig=True, process_error=pynvml.NVML_ERROR_NO_PERMISSION, others=5 * GiB)
    with FakeNvml([device]):
        [sample] = source.sample()
    assert sample.process is None and sample.used == 5 * GiB
    assert UNAVAILABLE in said(source.state) and "MIG mode" in said(source.state)


def test_close_releases_the_nvml_initialisation():
    with FakeNvml([FakeDevice()]) as nvml:
        src = NvmlSource()
        src.sample()
        assert nvml._initialized == 1
        src.close()
        src.close()
        assert nvml._initialized == 0
        assert len(src.sample()) == 1  # initialises again


def test_the_real_library_on_this_machine_is_reported_truthfully():
    src = NvmlSource()
    samples = src.sample()
    if samples:
        pytest.skip("this machine has an NVIDIA driver")
    assert said(src.state).startswith("no NVIDIA driver") and not src.simulated


def test_steady_memory_reads_the_process_list_only_once_a_second():
    device = FakeDevice(processes=[FakeProcess(os.getpid(), GiB)])
    with FakeNvml([device]) as nvml:
        src = NvmlSource(ProcessTree(max_age=60), process_refresh=60, process_interval=0)
        for _ in range(10):
            assert src.sample()[0].process == GiB
        queries = nvml.calls["nvmlDeviceGetComputeRunningProcesses_v3"]
        assert queries == 2  # one size query and one fill, for the first sample only
        assert nvml.calls["nvmlDeviceGetMemoryInfo"] == 10
        device.processes[0].used = 3 * GiB  # the device's used memory changes: the list is read again
        assert src.sample()[0].process == 3 * GiB
        src.tree.refresh()  # the same tree walked again: nothing to read
        src.sample()
        assert nvml.calls["nvmlDeviceGetComputeRunningProcesses_v3"] == queries + 2
        worker = subprocess.Popen(["sleep", "30"])  # a worker started: the tree changed, read again
        try:
            src.tree.refresh()
            src.sample()
            assert nvml.calls["nvmlDeviceGetComputeRunningProcesses_v3"] == queries + 4
        finally:
            worker.kill()
            worker.wait()
        src.close()


def test_the_process_list_is_read_at_most_once_a_second_while_the_device_changes():
    device = FakeDevice(processes=[FakeProcess(os.getpid(), GiB)])
    with FakeNvml([device]) as nvml:
        src = NvmlSource(ProcessTree(max_age=60))
        assert src.sample()[0].process == GiB
        device.processes[0].used = 2 * GiB
        changed = src.sample()[0]
        assert changed.used == device.used and changed.process == GiB  # the device's use at once, the share later
        assert nvml.calls["nvmlDeviceGetComputeRunningProcesses_v3"] == 2
        time.sleep(src.process_interval)  # the process list is read again only after this long: the rule checked
        assert src.sample()[0].process == 2 * GiB
        src.close()


def test_sampling_is_cheap_enough_for_10_hz(source):
    with FakeNvml([FakeDevice(processes=[FakeProcess(os.getpid(), GiB)]) for _ in range(4)]):
        source.tree.max_age = 1.0
        source.sample()
        start = time.perf_counter()
        for _ in range(100):
            source.sample()
        per_sample = (time.perf_counter() - start) / 100
    assert per_sample < 0.01  # 4 devices; the benchmark in bench/ measures the real overhead
