"""The per-node sampler that Ray runs as an actor, run here as the plain class it is: it streams the simulated GPU's
readings at the rate asked for, with its sampling cost, and stops when told."""

from __future__ import annotations

import threading
import time

import pytest
from said import said
from waiting import wait_until

from mgenv_jupyter.base._source_state import STATE_OK
from mgenv_jupyter.cluster._node_memory import ClusterMemory, NodeMemory
from mgenv_jupyter.memory._state_words import state_text


def test_node_memory_streams_the_nodes_gpus_at_the_rate_asked(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MGENV_SIMULATE_GPU", "2xv100")
    node = NodeMemory()
    start = time.monotonic()
    batches = []
    for batch in node.stream(0.05):
        batches.append(batch)
        if len(batches) == 6:
            break
    elapsed = time.monotonic() - start
    assert 0.2 <= elapsed < 2.0  # five intervals of 50 ms between six batches
    devices = {s.label for s in batches[-1]["samples"]}
    assert devices == {"gpu0 (simulated)", "gpu1 (simulated)"}
    assert batches[-1]["sampled"] == 6 and batches[-1]["cpu_seconds"] > 0
    nvml = next(s for s in batches[0]["states"] if s["name"].startswith("nvml"))
    assert nvml == {"name": "nvml (simulated)", "state": STATE_OK.wire(), "idle": False, "simulated": True,
                    "simulation": "2xv100"}


def test_stop_ends_the_stream():
    node = NodeMemory()
    stream = node.stream(0.05)
    next(stream)
    threading.Timer(0.1, node.stop).start()
    assert len(list(stream)) < 10


def test_cluster_memory_checks_its_interval_before_touching_ray():
    from mgenv_jupyter.base._errors import InvalidValueError

    with pytest.raises(InvalidValueError):
        ClusterMemory(interval=0)
    assert ClusterMemory(interval=1.0).stale_seconds == 20.0


# ---- what a node sends is checked before the kernel takes it -------------------------------------------------------

def _batch(samples: list, states: list | None = None) -> dict:
    return {"samples": samples, "cpu_seconds": 0.01, "sampled": 1,
            "states": states if states is not None else [{"name": "nvml", "state": STATE_OK.wire(), "idle": False,
                                                           "simulated": False, "simulation": None}]}


def test_a_nodes_nonsense_readings_are_refused_and_the_kernels_own_series_go_on():
    from mgenv_jupyter.cluster._node_memory import MAX_DEVICES, checked_batch
    from mgenv_jupyter.cluster._remote_source import RemoteSource
    from mgenv_jupyter.memory._sample import Sample
    from mgenv_jupyter.memory._sampler import Sampler

    class Local:  # the kernel's own source
        name, state = "host", STATE_OK

        def sample(self):
            return [Sample(time.time(), "host", "host", used=5, total=10)]

        def close(self):
            pass

    now = time.time()
    bad = [Sample(now, "nvml", "gpu0", used=float("inf")), Sample(now, "nvml", "gpu1", used=float("nan")),
           Sample(now, "nvml", "gpu2", used="lots"), Sample(now, "nvml", "gpu3", used=10**400),
           Sample(now, "nvml", "gpu4", used=-1), Sample(float("nan"), "nvml", "gpu5", used=1),
           Sample(now, "nvml", "x" * 5_000_000, used=1), Sample(now, "nvml", "<script>alert(1)</script>", used=1),
           Sample(now, "nvml", "gpu6", used=True), {"device": "gpu7"},
           Sample(now, "torch", "gpu8", used=1, framework="<script>alert(1)</script>"),
           Sample(now, "torch", "gpu9", used=1, framework=["torch"])]  # type: ignore[arg-type]
    good = [Sample(now, "nvml", "gpu0", used=7, total=100.0, simulated=True),
            Sample(now, "torch", "gpu0", allocated=3, framework="torch")]
    remote = RemoteSource("node_b")
    sampler = Sampler([Local(), remote], interval=0.1)
    remote.feed(checked_batch(_batch(bad + good)))
    row = sampler.sample_once()
    assert row == {"host used": 5, "host total": 10, "node_b gpu0 (simulated) used": 7,
                   "node_b gpu0 (simulated) total": 100, "node_b torch gpu0 allocated": 3}
    info = sampler.series_info("node_b torch gpu0 allocated")  # the node's reading keeps its fields
    assert info is not None and (info["device"], info["framework"], info["node"]) == ("gpu0", "torch", "node_b")
    assert all(type(value) is int for value in row.values())
    assert "refused 12 of 14 readings" in said(remote.state) and "lots" not in said(remote.state)
    # a code, worded in the chart's language
    refusal = next(part for part in (remote.state, *remote.state.parts) if part.code == "readings_refused")
    assert "已拒收 14 条读数中的 12 条" in state_text(refusal, "zh") and "refused" not in state_text(refusal, "zh")
    many = checked_batch(_batch([Sample(now, "nvml", f"gpu{i}", used=i) for i in range(20_000)]))
    assert len(many["samples"]) == MAX_DEVICES and "refused" in said(many["states"][-1]["state"])
    sampler.close()


def test_a_nodes_states_are_short_single_lines_and_a_batch_that_is_no_dict_is_said():
    from mgenv_jupyter.cluster._node_memory import checked_batch

    error = {"code": "nvml_error", "args": {"error": "line\nbreak\x1b[31m\u2028" + "s" * 10_000}}
    nonsense = [{"code": "x" * 5000}, {"code": "not a code"}, {"code": "ok", "args": {"a": 1}},
                {"code": "ok", "args": {f"a{i}": "" for i in range(100)}},
                {"code": "problems", "parts": [error] * 1000},
                {"code": "problems", "parts": [{"code": "problems", "parts": [error]}]}]
    states = [{"name": "n" * 10_000, "state": error, "idle": "yes", "simulated": 1, "simulation": "<b>" * 5000},
              "not a state", {"name": 3, "state": STATE_OK.wire()},
              *({"name": "nvml", "state": state} for state in nonsense)] * 100
    checked = checked_batch(_batch([], states))
    assert len(checked["states"]) <= 64
    first = checked["states"][0]
    assert len(first["name"]) <= 300 and len(first["simulation"] or "") <= 300
    assert len(first["state"].arg("error")) <= 300 and len(said(first["state"])) <= 320
    assert not any(c in said(first["state"]) for c in "\n\x1b\u2028") and first["idle"] is False
    assert all(state["name"] == first["name"] for state in checked["states"])  # nonsense states are left out
    refused = checked_batch(["samples"])["states"][0]["state"]
    assert refused.code == "batch_refused" and said(refused).startswith("refused a batch that is a list")
    assert state_text(refused, "zh") == "已拒收:批次是 list,不是 dict"
    assert checked_batch({"samples": None, "cpu_seconds": float("inf"), "sampled": 2**80}) == {
        "samples": [], "states": [], "cpu_seconds": 0.0, "sampled": 0}


# ---- when a watch ends ----------------------------------------------------------------------------------------------

class _Consumer:
    """Anything with on_close(callback), as a MemoryChart has."""

    def __init__(self) -> None:
        self.callbacks: list = []

    def on_close(self, callback) -> None:
        self.callbacks.append(callback)

    def close(self) -> None:
        for callback in self.callbacks:
            callback()


def test_a_watch_bound_to_consumers_ends_when_the_last_of_them_closes():
    watch = ClusterMemory(interval=0.5)  # not started: no actors, so no Ray needed to close it
    first, second = _Consumer(), _Consumer()
    assert watch.close_with(first) is watch
    watch.close_with(second)
    first.close()
    assert not watch.closed
    second.close()
    assert watch.closed
    with pytest.raises(RuntimeError, match="closed"):
        watch.close_with(_Consumer())


def test_closing_a_memory_chart_ends_the_watch_it_was_bound_to():
    from mgenv_jupyter.memory._sampler import Sampler
    from mgenv_jupyter.widgets._memory_chart import MemoryChart

    sampler = Sampler([], interval=0.5)
    watch = ClusterMemory(interval=0.5, sampler=sampler)
    chart = MemoryChart(sampler, interval=0.5)
    calls: list[str] = []
    chart.on_close(lambda: calls.append("closed"))
    chart.on_close(lambda: 1 / 0)  # a failing callback is logged; the others still run
    watch.close_with(chart)
    assert not watch.closed
    chart.close()
    assert watch.closed and calls == ["closed"]
    chart.close()  # idempotent: the callbacks ran once
    assert calls == ["closed"]
    sampler.close()


def test_the_chart_of_a_watch_draws_its_sampler_at_its_rate_and_closing_it_ends_the_watch():
    """The widget composes the watch (`MemoryChart.for_cluster`): the cluster layer imports no widget."""
    from mgenv_jupyter.memory._sampler import Sampler
    from mgenv_jupyter.widgets._memory_chart import MemoryChart

    sampler = Sampler([], interval=0.5)
    watch = ClusterMemory(interval=0.25, sampler=sampler)
    chart = MemoryChart.for_cluster(watch)
    assert chart.sampler is sampler and chart.title == "Memory of the kernel and its Ray cluster"
    assert [s.interval for s in sampler.subscriptions] == [0.25]
    chart.close()
    assert watch.closed
    sampler.close()


def test_the_watch_starts_an_actor_for_each_node_that_joins_once_and_stops_looking_when_closed(
        monkeypatch: pytest.MonkeyPatch):
    # Ray's part (listing nodes, starting an actor) replaced: what is checked is which nodes get one, and when.
    from mgenv_jupyter.cluster import _node_memory as node_memory
    from mgenv_jupyter.cluster._nodes import Node
    from mgenv_jupyter.cluster._remote_source import RemoteSource
    from mgenv_jupyter.memory._sampler import Sampler

    alive = [Node("id-a", "node_a", "127.0.0.1")]
    scans: list[int] = []  # one entry per look at the nodes
    monkeypatch.setattr(node_memory, "alive_nodes", lambda: (scans.append(1), list(alive))[1])
    sampler = Sampler([], interval=0.5)
    watch = ClusterMemory(interval=0.5, sampler=sampler, rescan_seconds=0.05)
    started: list[str] = []

    def start_node(node: Node) -> RemoteSource:
        started.append(node.label)
        source = RemoteSource(node.label)
        watch.nodes = [*watch.nodes, node]
        watch.sources = {**watch.sources, node.label: source}
        return source

    monkeypatch.setattr(watch, "_start_node", start_node)
    watch.start()
    assert started == ["node_a"]
    alive.append(Node("id-d", "node_d", "127.0.0.1"))
    deadline = time.monotonic() + 10
    while "node_d (remote)" not in [s.name for s in sampler.sources] and time.monotonic() < deadline:
        time.sleep(0.02)
    seen = len(scans)
    wait_until(lambda: len(scans) >= seen + 3, what="three more rescans")  # node_d is not started twice
    assert started == ["node_a", "node_d"] and [s.name for s in sampler.sources] == ["node_a (remote)",
                                                                                      "node_d (remote)"]
    watch.close()
    alive.append(Node("id-e", "node_e", "127.0.0.1"))
    time.sleep(0.2)  # four rescans' worth of time: the window in which a closed watch must start nothing
    assert started == ["node_a", "node_d"] and sampler.sources == [] and watch.states() == {
        "node_a": "ended", "node_d": "ended"}
    sampler.close()


def test_rescan_seconds_is_checked():
    from mgenv_jupyter.base._errors import InvalidValueError

    for bad in (0, -1, "5", float("nan")):
        with pytest.raises(InvalidValueError):
            ClusterMemory(interval=0.5, rescan_seconds=bad)  # type: ignore[arg-type]
    assert ClusterMemory(interval=0.5, rescan_seconds=None).rescan_seconds is None


def test_the_kernels_sampler_closing_ends_the_watch(monkeypatch: pytest.MonkeyPatch):
    # As when the extension is unloaded: the sampler closes its sources, and a watch's sources end the watch.
    from mgenv_jupyter.cluster import _node_memory as node_memory
    from mgenv_jupyter.cluster._nodes import Node
    from mgenv_jupyter.cluster._remote_source import RemoteSource
    from mgenv_jupyter.memory._sampler import Sampler

    monkeypatch.setattr(node_memory, "alive_nodes", lambda: [Node("id-a", "node_a", "127.0.0.1")])
    sampler = Sampler([], interval=0.5)
    watch = ClusterMemory(interval=0.5, sampler=sampler, rescan_seconds=None)

    def start_node(node: Node) -> RemoteSource:  # what _start_node makes, without the actor
        source = RemoteSource(node.label, on_close=watch.close)
        watch.sources = {**watch.sources, node.label: source}
        return source

    monkeypatch.setattr(watch, "_start_node", start_node)
    watch.start()
    assert not watch.closed and sampler.subscriptions
    sampler.close()
    assert watch.closed and watch.states() == {"node_a": "ended"}
