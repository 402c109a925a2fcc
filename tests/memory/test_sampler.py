"""The sampler thread: batches to subscribers, faults that must not kill it, lifecycle without leaks, and cell markers
from a real IPython shell."""

from __future__ import annotations

import gc
import json
import threading
import time
import tracemalloc
from collections.abc import Iterator

import psutil
import pytest
from node_series import NODE, kernels_sampler

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.base._source_state import STATE_OK
from mgenv_jupyter.memory._cell_events import cell_follower
from mgenv_jupyter.memory._nvml_source import NvmlSource
from mgenv_jupyter.memory._process_tree import ProcessTree
from mgenv_jupyter.memory._sample import DeviceId, Sample
from mgenv_jupyter.memory._sampler import Sampler
from mgenv_jupyter.memory.simulated import _simulation as simulation
from mgenv_jupyter.memory.simulated._fake_nvml import FakeDevice, FakeNvml
from mgenv_jupyter.protocol import MIN_INTERVAL

GiB = 1024**3


class CountingSource:
    """A well-behaved source: `process` counts up by one per sample."""

    simulated = False

    def __init__(self, name: str = "counting", device: str = "dev0") -> None:
        self.name = name
        self.device = device
        self.state = STATE_OK
        self.calls = 0
        self.closed = 0

    def sample(self) -> list[Sample]:
        self.calls += 1
        return [Sample(time.time(), self.name, self.device, used=self.calls, total=100, process=self.calls)]

    def close(self) -> None:
        self.closed += 1


class RaisingSource(CountingSource):
    """Breaks the promise never to raise."""

    def sample(self) -> list[Sample]:
        self.calls += 1
        raise RuntimeError("driver exploded")


def wait_for(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.01)


@pytest.fixture
def sampler() -> Iterator[Sampler]:
    s = Sampler([CountingSource()], interval=0.01, pushes_per_second=20)
    yield s
    s.close()


def test_batches_are_columns_of_json_and_meta_comes_first_and_on_change(sampler):
    batches = []
    sampler.subscribe(batches.append)
    sampler.start()
    wait_for(lambda: len(batches) >= 3)
    sampler.stop()
    json.dumps(batches)  # JSON-ready as is
    first = batches[0]
    assert first["type"] == "memory.batch" and first["interval"] == 0.01
    assert set(first["columns"]) == {"dev0 used", "dev0 total", "dev0 process"}
    assert all(len(column) == len(first["t"]) for column in first["columns"].values())
    assert [s["key"] for s in first["series"]] == ["dev0 used", "dev0 total", "dev0 process"]
    assert first["sources"] == [{"name": "counting", "state": STATE_OK.wire(), "text": "ok", "lead": None,
                                 "simulated": False, "simulation": None, "node": None}]
    assert abs(first["started"] - psutil.Process().create_time()) < 1  # the chart's time axis counts from it
    assert first["overlays"][0]["kind"] == "total" and first["overlays"][0]["bytes"] == 100
    assert all("series" not in b for b in batches[1:])  # unchanged: not repeated
    assert [b["seq"] for b in batches] == sorted({b["seq"] for b in batches})
    values = [v for b in batches for v in b["columns"]["dev0 process"]]
    assert values == list(range(1, len(values) + 1))  # no sample lost or repeated


def test_pushes_are_rate_limited_not_one_per_sample():
    s = Sampler([CountingSource()], interval=0.01, pushes_per_second=4)
    batches = []
    s.subscribe(batches.append)
    with s:
        time.sleep(1.0)  # the window the pushes are counted over: their rate is the check
    samples = sum(len(b["t"]) for b in batches)
    assert samples > 50 and len(batches) <= 6


def test_a_raising_source_keeps_the_sampler_alive_and_visible():
    good, bad = CountingSource(), RaisingSource("broken", "dev1")
    s = Sampler([bad, good], interval=0.01, pushes_per_second=50)
    batches = []
    s.subscribe(batches.append)
    with s:
        wait_for(lambda: good.calls >= 20 and bad.calls >= 20)
        assert s.running
        states = {state["name"]: state["text"] for state in s.states()}
        assert states == {"broken": "error: RuntimeError: driver exploded", "counting": "ok"}
        wait_for(lambda: any("dev0 process" in b["columns"] for b in batches))
        assert any(st["state"]["code"] == "source_error" for b in batches for st in b.get("sources", []))
    assert s.history.frame()["dev0 process"].count() >= 20


def test_a_raising_subscriber_does_not_stop_the_others(sampler):
    received = []

    def broken(batch):
        raise ValueError("chart is gone")

    sampler.subscribe(broken)
    sampler.subscribe(received.append)
    sampler.start()
    wait_for(lambda: len(received) >= 3)
    assert sampler.running


def test_unsubscribe_stops_the_batches(sampler):
    received = []
    subscription = sampler.subscribe(received.append)
    sampler.sample_once()
    sampler.flush()
    subscription.close()
    sampler.sample_once()
    sampler.flush()
    assert len(received) == 1


def test_interval_changes_at_once(sampler):
    source = sampler.sources[0]
    sampler.interval = 60
    sampler.start()
    wait_for(lambda: source.calls >= 1)
    time.sleep(0.2)  # twenty ticks' worth at the rate it is told next: the window in which it must stay asleep
    calls = source.calls
    assert calls <= 2  # asleep for a minute...
    sampler.interval = 0.01  # ...until told otherwise
    wait_for(lambda: source.calls >= calls + 10)
    with pytest.raises(ValueError):
        sampler.interval = 0


def test_start_stop_close_are_idempotent(sampler):
    source = sampler.sources[0]
    assert sampler.start() is sampler.start()
    sampler.stop()
    sampler.stop()
    assert not sampler.running
    sampler.start()
    assert sampler.running
    sampler.close()
    sampler.close()
    assert not sampler.running and source.closed == 1
    with pytest.raises(RuntimeError, match="closed"):
        sampler.start()


def test_a_forgotten_sampler_stops_by_itself():
    before = threading.active_count()
    Sampler([CountingSource()], interval=0.01).start()  # never closed, no reference kept
    gc.collect()
    wait_for(lambda: threading.active_count() == before)


@pytest.mark.slow  # about ten seconds
def test_a_thousand_samplers_leave_no_threads_and_no_memory_behind():
    tree = ProcessTree()  # one walk a second for all of them, as a chart's sources share one

    def cycle(n: int) -> None:
        for _ in range(n):
            s = Sampler([NvmlSource(tree), CountingSource()], interval=0.01)
            s.subscribe(lambda batch: None)
            s.start()
            s.sample_once()
            s.close()

    baseline_threads = threading.active_count()
    with FakeNvml([FakeDevice(total=40 * GiB)]) as nvml:
        cycle(50)  # warm caches (numpy, pynvml's function pointers, logging)
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.take_snapshot()
            cycle(1000)
            gc.collect()
            after = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        assert nvml._initialized == 0  # every sampler's source released its NVML initialisation
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert threading.active_count() == baseline_threads
    assert grown < 256 * 1024, f"{grown} bytes more after 1000 samplers"


def test_cell_markers_from_a_real_shell(ip):
    source = CountingSource()
    s = Sampler([source], interval=0.01)
    s.attach(ip)
    batches = []
    s.subscribe(batches.append)
    with s:
        ip.run_cell("import time; time.sleep(0.3)", store_history=True)  # a cell of a known duration, measured
        number = ip.execution_count - 1
        wait_for(lambda: any(c["cell"] == number and c["end"] is not None for b in batches for c in b["cells"]))
    [marker] = [m for m in s.cells.markers if m.cell == number]
    assert marker.ok and marker.duration == pytest.approx(0.3, abs=0.2)
    assert marker.peak["dev0 process"] >= 10  # it grew by one per 10 ms while the cell ran
    table = s.per_cell()
    row = table[(table["cell"] == number) & (table["device"] == "dev0")].iloc[0]
    assert row["delta"] >= 10 and row["peak"] >= row["after"] - 1
    # closing ended its following of cells: the cell follower no longer holds the sampler's markers
    assert not s.cells.registered
    assert all(getattr(sub.ended, "__self__", None) is not s.cells for sub in cell_follower(ip).subscriptions())


def test_a_failing_cell_is_marked(ip):
    s = Sampler([CountingSource()], interval=0.01)
    s.attach(ip)
    with s:
        ip.run_cell("1 / 0", store_history=True)
    assert s.cells.markers[-1].ok is False


def test_snapshot_gives_a_late_chart_everything(sampler):
    for _ in range(5):
        sampler.sample_once()
    sampler.cells.start(3)
    sampler.sample_once()
    sampler.cells.finish()
    snapshot = sampler.snapshot()
    json.dumps(snapshot)
    assert snapshot["type"] == "memory.snapshot"
    assert snapshot["columns"]["dev0 process"] == [1, 2, 3, 4, 5, 6] and len(snapshot["t"]) == 6
    assert snapshot["cells"][0]["cell"] == 3 and snapshot["cells"][0]["peak"] == {
        "dev0 used": 6, "dev0 total": 100, "dev0 process": 6}
    assert snapshot["sources"][0]["state"]["code"] == "ok"


def test_a_late_chart_gets_the_downsampled_past_too_so_that_it_can_show_everything():
    """Fifteen minutes at 10 Hz do not fit the history's recent window (600 rows here): a chart opened late still gets
    everything since the first sample, the older past one row per bucket with each series' maximum in it."""
    from mgenv_jupyter.memory._history import History

    clock = [1_000_000.0]
    source = CountingSource()
    s = Sampler([source], history=History(recent=600), clock=lambda: clock[0], started=999_999.0)
    try:
        for _ in range(9000):
            clock[0] += 0.1
            s.sample_once()
        snapshot = s.snapshot()
    finally:
        s.close()
    times, values = snapshot["t"], snapshot["columns"]["dev0 process"]
    assert times == sorted(times) and len(times) < 9000
    assert times[0] < 1_000_000.0 + 60 and times[-1] == round(clock[0], 3)  # from the first minute to the last sample
    assert values[-1] == 9000 and max(values) == 9000 and values[0] is not None
    assert snapshot["started"] == 999_999.0  # the chart's time axis counts from the moment the sampler was given


def test_the_clock_dates_rows_and_cells_and_the_series_say_what_they_are():
    """A sampler's clock (a replayed session's) dates its rows, its cell markers and its marks; each series is
    described by its fields, which the key is only written from."""
    clock = [5000.0]

    class Torch(CountingSource):
        def sample(self) -> list[Sample]:
            return [Sample(clock[0], "torch", "gpu0", allocated=7, framework="torch")]

    s = Sampler([CountingSource(device="gpu0"), Torch("torch")], clock=lambda: clock[0])
    try:
        s.cells.start(4)
        clock[0] += 2.5
        s.sample_once()
        s.cells.finish(4)
        s.mark("freed", "freed 1 GiB", "")
        snapshot = s.snapshot()
    finally:
        s.close()
    assert snapshot["t"] == [5002.5] and snapshot["cells"][0]["start"] == 5000.0
    assert snapshot["cells"][0]["end"] == 5002.5 and snapshot["marks"][0]["time"] == 5002.5
    torch = next(info for info in snapshot["series"] if info["framework"] == "torch")
    assert torch == {"key": "torch gpu0 allocated", "device": "gpu0", "framework": "torch", "quantity": "allocated",
                     "source": "torch", "simulated": False, "node": None}
    total = next(line for line in snapshot["overlays"] if line["kind"] == "total")
    assert total["series"] == "gpu0 total" and total["node"] is None  # the line says which series it stands for


def test_default_sampler_uses_the_simulated_gpu(monkeypatch):
    monkeypatch.setenv(simulation.ENV, "a100-40gb")
    s = Sampler(interval=0.05)
    row = s.sample_once()
    s.close()
    assert row["gpu0 (simulated) total"] == 40 * GiB
    assert row["host process"] > 0 and "host total" not in row  # beside a GPU, the kernel's own RSS (issue 36)
    assert {"name": "nvml (simulated)", "state": STATE_OK.wire(), "text": "ok", "lead": None, "simulated": True,
            "simulation": "a100-40gb", "node": None} in s.states()


def test_one_allowed_range_for_the_sampling_interval():
    for bad in (0.005, 0, -1, 61, float("nan"), "fast"):
        with pytest.raises(InvalidValueError, match="from 0.01 s"):
            Sampler([CountingSource()], interval=bad)
    assert Sampler([CountingSource()], interval=MIN_INTERVAL).interval == 0.01


def test_a_fresh_sample_by_device_names_each_device_by_its_fields():
    """For readers that tell devices apart (an out-of-memory report, a free): no series key to parse."""
    with kernels_sampler() as sampler:
        devices = sampler.sample_devices()
        assert devices[DeviceId("gpu0", simulated=True)]["process"] == 6 * GiB
        assert devices[DeviceId("gpu0", "torch")] == {"allocated": 4 * GiB, "reserved": 5 * GiB}
        assert devices[DeviceId("gpu1", node=NODE)] == {"used": 30 * GiB, "total": 80 * GiB, "process": 5 * GiB}
        assert devices[DeviceId("gpu1", "torch", NODE)] == {"allocated": GiB, "reserved": 3 * GiB}
        keys = sampler.history.series
        assert [info["key"] for info in sampler.series_infos([*keys, *keys, "no such series"])] == keys
