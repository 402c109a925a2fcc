"""The whole-server NVML reader through the real pynvml, answered by the fake NVML library: every device's processes
with their bytes, no driver, the process list refused (MIG), an NVML error mid-run and the recovery."""

from __future__ import annotations

from collections.abc import Iterator

import pynvml
import pytest
from said import said

from mgenv_jupyter.base._source_state import STATE_OK
from mgenv_jupyter.memory._gpu_processes import GpuProcess, GpuProcessReader
from mgenv_jupyter.memory.simulated._fake_nvml import FakeDevice, FakeNvml, FakeProcess

GiB = 1024**3


@pytest.fixture
def reader() -> Iterator[GpuProcessReader]:
    r = GpuProcessReader(retry_seconds=0)
    yield r
    r.close()


def test_every_device_lists_its_processes_with_their_bytes(reader):
    devices = [FakeDevice(total=40 * GiB, others=GiB, processes=[FakeProcess(101, 3 * GiB), FakeProcess(102, GiB)]),
               FakeDevice(name="Tesla V100-SXM2-16GB", total=16 * GiB, processes=[FakeProcess(103, None)])]
    with FakeNvml(devices, name="two"):
        reading = reader.read()
    assert reading.state == STATE_OK and reading.simulated and reading.simulation == "two"
    first, second = reading.devices
    assert (first.index, first.total, first.used) == (0, 40 * GiB, 5 * GiB)
    assert first.processes == (GpuProcess(101, 3 * GiB), GpuProcess(102, GiB))
    assert second.name == "Tesla V100-SXM2-16GB" and second.processes == (GpuProcess(103, None),)


def test_without_a_driver_the_reading_says_so_and_holds_no_device(reader):
    with FakeNvml(library=False):
        reading = reader.read()
    assert reading.devices == () and said(reading.state).startswith("no NVIDIA driver")
    with FakeNvml(driver=False):
        assert "not loaded" in said(reader.read().state)


def test_a_refused_process_list_keeps_the_device_figures_and_names_the_problem(reader):
    nvml = FakeNvml([FakeDevice(mig=True, reserved=GiB, processes=[FakeProcess(7, GiB)],
                                process_error=pynvml.NVML_ERROR_NO_PERMISSION)])
    with nvml:
        (device,) = reader.read().devices
    assert device.processes is None and device.used == 2 * GiB
    assert device.problem.startswith("MIG mode: NVML answers") and "Permission" in device.problem


def test_an_error_mid_run_becomes_the_state_and_the_reader_recovers(reader):
    nvml = FakeNvml([FakeDevice(processes=[FakeProcess(5, GiB)])])
    with nvml:
        assert reader.read().state == STATE_OK
        nvml.failure = pynvml.NVML_ERROR_GPU_IS_LOST
        failed = reader.read()
        assert failed.devices == () and said(failed.state).startswith("NVML error:")
        nvml.failure = None
        assert reader.read().devices[0].processes == (GpuProcess(5, GiB),)
