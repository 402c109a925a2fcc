"""One NVML client's life (memory/_nvml_client.py), through the real pynvml answered by the fake NVML library: the
first read initialises and lists the devices, a missing driver is a state retried only after `retry_seconds`, NVML
shut down under the client is initialised again, `close()` gives back exactly its own initialisation, and nothing a
reader's function raises escapes a read."""

from __future__ import annotations

import os
from typing import Any

import pynvml
from said import said

from mgenv_jupyter.base._source_state import NO_GPU, NO_LIBRARY, NOT_LOADED, STATE_OK
from mgenv_jupyter.memory._nvml_client import NvmlClient
from mgenv_jupyter.memory.simulated._fake_nvml import FakeDevice, FakeNvml, FakeProcess

GiB = 1024**3


def device_count(nvml: Any) -> tuple[int, str]:
    return nvml.nvmlDeviceGetCount(), STATE_OK


def test_the_first_read_initialises_lists_the_devices_and_runs_on_start_once():
    started: list[int] = []
    client = NvmlClient(on_start=lambda nvml: started.append(nvml.nvmlDeviceGetCount()))
    with FakeNvml([FakeDevice(), FakeDevice(mig=True)]) as fake:
        assert client.read(device_count) == 2 and said(client.state) == "ok"
        assert client.read(device_count) == 2
        assert [device.mig for device in client.devices] == [False, True]
        assert started == [2] and fake._initialized == 1  # initialised once, however many reads
        assert client.simulated and client.simulation == "fake NVML"
        client.close()


def test_a_device_list_nvml_leaves_empty_is_said_so_until_the_reader_says_otherwise():
    client = NvmlClient()
    with FakeNvml([]):
        assert client.read(lambda nvml: (len(client.devices), client.state)) == 0  # the reader keeps that state
        assert client.state.code == NO_GPU and said(client.state) == "NVML sees no GPU"
        client.close()


def test_without_a_driver_the_state_says_why_and_the_next_try_waits_retry_seconds():
    for fake, words in ((FakeNvml(library=False), NO_LIBRARY), (FakeNvml(driver=False), NOT_LOADED)):
        client = NvmlClient(retry_seconds=60)
        with fake:
            assert client.read(device_count) is None and client.state.code == words and client.devices == []
        with FakeNvml([FakeDevice()]) as working:
            assert client.read(device_count) is None  # the driver came, but the retry is not due yet
            assert working.calls["nvmlInitWithFlags"] == 0
        patient = NvmlClient(retry_seconds=0)
        with fake:
            patient.read(device_count)
        with FakeNvml([FakeDevice()]):
            assert patient.read(device_count) == 1 and said(patient.state) == "ok"
            patient.close()


def test_nvml_shut_down_under_the_client_is_initialised_again():
    client = NvmlClient()
    with FakeNvml([FakeDevice()]):
        assert client.read(device_count) == 1
        pynvml.nvmlShutdown()  # another library's nvmlShutdown
        assert client.read(device_count) is None and "Uninitialized" in said(client.state)
        assert client.read(device_count) == 1 and said(client.state) == "ok"
        client.close()


def test_close_gives_back_only_its_own_initialisation_and_a_later_read_starts_again():
    with FakeNvml([FakeDevice()]) as fake:
        pynvml.nvmlInit()  # someone else's initialisation, which must outlive ours
        client = NvmlClient()
        client.read(device_count)
        assert fake._initialized == 2
        client.close()
        client.close()
        assert fake._initialized == 1 and client.devices == []
        assert client.read(device_count) == 1 and fake._initialized == 2
        client.close()
        pynvml.nvmlShutdown()


def test_the_process_list_and_a_failing_reader_never_raise_out_of_a_read():
    client = NvmlClient()
    with FakeNvml([FakeDevice(processes=[FakeProcess(os.getpid(), GiB)])]):
        pids = client.read(lambda nvml: ([p.pid for p in client.processes(nvml, client.devices[0].handle)], STATE_OK))
        assert pids == [os.getpid()]

        def broken(nvml: Any) -> tuple[int, str]:
            raise KeyError("a binding's surprise")

        assert client.read(broken) is None and said(client.state) == "NVML error: KeyError: \"a binding's surprise\""
        assert client.read(device_count) == 1 and said(client.state) == "ok"
        client.close()
