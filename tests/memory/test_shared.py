"""The kernel's one sampler (mgenv_jupyter/memory/shared.py): every consumer shares it, at the fastest rate asked."""

from __future__ import annotations

import threading
import time

import pytest

from mgenv_jupyter.memory import simulation
from mgenv_jupyter.memory.fake_nvml import installed
from mgenv_jupyter.memory.shared import close_kernel_sampler, kernel_sampler


def sampler_threads() -> int:
    return sum(thread.name == "mgenv-memory-sampler" and thread.is_alive() for thread in threading.enumerate())


def wait_for(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture
def kernel(ip, monkeypatch):
    monkeypatch.setenv(simulation.ENV, "a100-40gb")
    close_kernel_sampler()
    yield kernel_sampler()
    close_kernel_sampler()


def test_charts_and_the_sidebar_share_one_sampler_thread_and_closing_them_all_stops_it(kernel, fresh_session):
    from mgenv_jupyter import MemoryChart
    from mgenv_jupyter.comm import MemoryStream

    before = sampler_threads()
    first = MemoryChart(interval=0.5)
    sidebar = MemoryStream(lambda message: None)
    sidebar.switch(True, 0.1)
    second = MemoryChart(interval=1.0)
    assert first.sampler is second.sampler is kernel
    assert sampler_threads() == before + 1
    assert kernel.interval == 0.1  # the fastest rate asked for
    sidebar.close()
    assert kernel.interval == 0.5  # falls back as consumers leave
    first.close()
    assert kernel.interval == 1.0 and kernel.running
    second.close()
    wait_for(lambda: sampler_threads() == before)
    assert not kernel.running and len(kernel.history) > 0  # the history stays for the next consumer


@pytest.mark.slow  # watches the sampler for four seconds
def test_the_process_list_is_read_at_most_once_a_second_at_100_hz(kernel):
    subscription = kernel.subscribe(interval=0.01)
    fake = installed()
    assert fake is not None
    time.sleep(1.2)
    listed = fake.calls["nvmlDeviceGetComputeRunningProcesses_v3"]
    memory = fake.calls["nvmlDeviceGetMemoryInfo"]
    time.sleep(3.0)
    lists = (fake.calls["nvmlDeviceGetComputeRunningProcesses_v3"] - listed) / 2  # size query + fill per list
    reads = fake.calls["nvmlDeviceGetMemoryInfo"] - memory
    subscription.close()
    assert lists <= 4 and reads >= 150  # the device's counters every sample, the list at most once a second
