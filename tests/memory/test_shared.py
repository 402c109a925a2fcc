"""The kernel's one sampler (mgenv_jupyter/memory/_shared.py): every consumer shares it, at the fastest rate asked."""

from __future__ import annotations

import threading
import time

import pytest

from mgenv_jupyter.base._source_state import STATE_OK
from mgenv_jupyter.memory._shared import close_kernel_sampler, kernel_sampler
from mgenv_jupyter.memory.simulated import _simulation as simulation
from mgenv_jupyter.memory.simulated._fake_nvml import installed


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
    from mgenv_jupyter.comms._requests import MemoryStream

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
    # Past the first process list (its size query and its fill): the window below starts with the next one due.
    wait_for(lambda: fake.calls.get("nvmlDeviceGetComputeRunningProcesses_v3", 0) >= 2)
    listed = fake.calls["nvmlDeviceGetComputeRunningProcesses_v3"]
    memory = fake.calls["nvmlDeviceGetMemoryInfo"]
    time.sleep(3.0)  # the window the reads are counted over: their rate is the check
    lists = (fake.calls["nvmlDeviceGetComputeRunningProcesses_v3"] - listed) / 2  # size query + fill per list
    reads = fake.calls["nvmlDeviceGetMemoryInfo"] - memory
    subscription.close()
    assert lists <= 4 and reads >= 150  # the device's counters every sample, the list at most once a second


def test_a_notebook_that_sets_the_simulation_later_gets_it_from_the_running_sampler(ip, monkeypatch):
    """demo.ipynb sets MGENV_SIMULATE_GPU just before %memchart, when the sidebar may have started the sampler."""
    monkeypatch.delenv(simulation.ENV, raising=False)
    close_kernel_sampler()
    simulation.stop_environment()
    try:
        first = kernel_sampler()
        first.sample_once()
        assert not any(s.get("simulation") for s in first.states())
        monkeypatch.setenv(simulation.ENV, "training")
        assert kernel_sampler() is first  # the same sampler, now reading the simulated GPU
        row = first.sample_once()
        assert "gpu0 (simulated) process" in row
        nvml = {"name": "nvml (simulated)", "state": STATE_OK.wire(), "text": "ok", "lead": None, "simulated": True,
                "simulation": "training", "node": None}
        assert nvml in first.states()
    finally:
        close_kernel_sampler()
        simulation.stop_environment()


def test_a_threshold_set_after_the_chart_opened_is_drawn_as_its_line(kernel, ip):
    """%memchart, then %envset in a later cell: the open chart gets the DTR line without being reopened."""
    chart = ip.run_line_magic("memchart", "--interval 0.05")
    sent: list[dict] = []
    chart.send = sent.append  # what would go to the browser
    try:
        chart._on_front_end_message(chart, {"type": "memory.hello"}, [])  # the view asks for what it missed

        def drawn() -> dict[str, dict]:
            latest = [m["overlays"] for m in sent if "overlays" in m][-1]
            return {line["kind"]: line for line in latest}

        wait_for(lambda: "total" in drawn())  # the device total, once the GPU has been read
        assert set(drawn()) == {"total"}
        ip.run_line_magic("envset", "MEGENGINE_DTR_EVICTION_THRESHOLD=8GB")
        wait_for(lambda: "dtr_threshold" in drawn())  # the sampler rereads the session once a second
        line = drawn()["dtr_threshold"]
        assert (line["bytes"], line["label"], line["short"]) == (8 * 1024**3, "DTR eviction threshold (8 GiB)", "DTR")
        assert chart.sampler is kernel and kernel.overlays[-1].key == line["key"]  # the sidebar, sharing it, too
    finally:
        chart.close()
