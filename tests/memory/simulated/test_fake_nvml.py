"""The fake NVML library (memory/simulated/_fake_nvml.py) answers the real pynvml's own code paths as a driver
would, and leaves pynvml as it found it."""

from __future__ import annotations

import os

import pynvml
import pytest

from mgenv_jupyter.memory.simulated._fake_nvml import FakeDevice, FakeNvml, FakeProcess, installed

GiB = 1024**3
MiB = 1024**2


def test_fake_answers_the_real_pynvml_code_path():
    device = FakeDevice(total=16 * GiB, reserved=256 * MiB, processes=[FakeProcess(os.getpid(), 2 * GiB)])
    with FakeNvml([device]) as nvml:
        assert installed() is nvml
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
        assert (memory.total, memory.used, memory.free) == (16 * GiB, 2 * GiB + 256 * MiB, 16 * GiB - memory.used)
        v2 = pynvml.nvmlDeviceGetMemoryInfo(handle, version=pynvml.nvmlMemory_v2)
        assert (v2.reserved, v2.used) == (256 * MiB, 2 * GiB)
        processes = pynvml.nvmlDeviceGetComputeRunningProcesses(handle)
        assert [(p.pid, p.usedGpuMemory) for p in processes] == [(os.getpid(), 2 * GiB)]
        # pynvml's two-call protocol: a size query with a NULL array, then the fill.
        assert nvml.calls["nvmlDeviceGetComputeRunningProcesses_v3"] == 2
        assert pynvml.nvmlDeviceGetName(handle) == "NVIDIA A100-SXM4-40GB"
        with pytest.raises(pynvml.NVMLError_InvalidArgument):
            pynvml.nvmlDeviceGetHandleByIndex(1)
        with pytest.raises(pynvml.NVMLError_FunctionNotFound):  # anything the fake lacks fails like an old driver
            pynvml.nvmlDeviceGetPowerUsage(handle)
    assert installed() is None


def test_no_processes_is_a_single_call_and_an_empty_list():
    with FakeNvml([FakeDevice()]) as nvml:
        pynvml.nvmlInit()
        assert pynvml.nvmlDeviceGetComputeRunningProcesses(pynvml.nvmlDeviceGetHandleByIndex(0)) == []
        assert nvml.calls["nvmlDeviceGetComputeRunningProcesses_v3"] == 1


def test_used_memory_not_available_reaches_pynvml_as_none():
    with FakeNvml([FakeDevice(processes=[FakeProcess(os.getpid(), None)])]):
        pynvml.nvmlInit()
        [process] = pynvml.nvmlDeviceGetComputeRunningProcesses(pynvml.nvmlDeviceGetHandleByIndex(0))
        assert process.usedGpuMemory is None


def test_uninstall_restores_pynvml_as_it_was():
    before = (pynvml.nvmlLib, dict(pynvml._nvmlGetFunctionPointer_cache), pynvml._nvmlLib_refcount, pynvml.CDLL)
    with FakeNvml([FakeDevice()]):
        with FakeNvml(library=False):  # nested: the inner one restores the outer one
            assert pynvml.nvmlLib is None
        assert installed() is not None
        pynvml.nvmlInit()
    after = (pynvml.nvmlLib, dict(pynvml._nvmlGetFunctionPointer_cache), pynvml._nvmlLib_refcount, pynvml.CDLL)
    assert after == before


def test_fake_error_texts_are_the_drivers_wording():
    with FakeNvml([FakeDevice()]) as nvml:
        pynvml.nvmlInit()
        nvml.failure = pynvml.NVML_ERROR_GPU_NOT_FOUND
        with pytest.raises(pynvml.NVMLError) as caught:
            pynvml.nvmlDeviceGetCount()
        assert str(caught.value) == "GPU not found"  # pynvml caches it process-wide: no "simulated" may leak
