"""A remote node's memory as a source of the kernel's real sampler: batches fed from a stream (a plain generator, as
any transport would give) land in the history as node-labelled series; a stream that fails marks the node lost while
another node's source goes on; a quiet stream says so; a stream that ends stops its node."""

from __future__ import annotations

import time

from said import said

from mgenv_jupyter.base._source_state import STATE_OK, State
from mgenv_jupyter.cluster._remote_source import NodeBatch, RemoteSource, consume, start_reader
from mgenv_jupyter.memory._sample import Sample
from mgenv_jupyter.memory._sampler import Sampler


def batch(used: int, device: str = "gpu0", state: State = STATE_OK, idle: bool = False) -> NodeBatch:
    return {"samples": [Sample(time.time(), "nvml", device, used=used, total=100)],
            "states": [{"name": "nvml", "state": state, "idle": idle, "simulated": False, "simulation": None}],
            "cpu_seconds": 0.01, "sampled": 1}


def test_batches_land_in_the_kernels_history_labelled_with_the_node():
    a, b = RemoteSource("node_a"), RemoteSource("node_b")
    consume(a, iter([batch(10), batch(20)]))
    b.feed(batch(7, device="gpu1"))
    sampler = Sampler([a, b], interval=0.1)
    row = sampler.sample_once()
    assert row == {"node_a gpu0 used": 20, "node_a gpu0 total": 100, "node_b gpu1 used": 7, "node_b gpu1 total": 100}
    assert sampler.history.series == list(row)
    assert sampler.sample_once() == {}  # each reading is taken once
    assert len(a.latencies()) == 1 and 0 <= a.latencies()[0] < 5 and len(a.transport_latencies()) == 2
    states = {s["name"]: s["text"] for s in sampler.states()}
    assert states == {"node_a (remote)": "stopped", "node_b (remote)": "ok"}  # a's stream ended
    # The chart groups by node: each series and each source says which node it belongs to.
    assert {s["key"]: s["node"] for s in sampler.snapshot()["series"]} == {
        "node_a gpu0 used": "node_a", "node_a gpu0 total": "node_a", "node_b gpu1 used": "node_b",
        "node_b gpu1 total": "node_b"}
    assert [s["node"] for s in sampler.states()] == ["node_a", "node_b"]
    sampler.close()


def test_a_failing_stream_marks_its_node_lost_and_the_others_go_on():
    def dies():
        yield batch(5)
        raise ConnectionError("node went away")

    lost, alive = RemoteSource("node_c"), RemoteSource("node_a")
    start_reader(lost, dies()).join(5)
    assert said(lost.state) == "lost: ConnectionError: node went away" and lost.sample() == []
    lost.feed(batch(9))  # late data from a lost node is not taken
    alive.feed(batch(3))
    assert lost.sample() == [] and [s.label for s in alive.sample()] == ["node_a gpu0"]


def test_an_orderly_stop_is_not_a_loss():
    source = RemoteSource("node_a")

    def cancelled():
        yield batch(4)
        raise RuntimeError("cancelled by close()")

    consume(source, cancelled(), lost_reason=lambda exc: None)  # what ClusterMemory says while it closes
    assert said(source.state) == "ok" and source.lost is None


def test_states_say_starting_quiet_and_the_nodes_own_problems():
    source = RemoteSource("node_b", stale_seconds=0.05)
    assert said(source.state) == "starting"
    source.feed(batch(1, state=State("not_imported", framework="megengine"), idle=True))
    assert said(source.state) == "ok"  # an idle source's state is no problem
    source.feed(batch(1, state=State("nvml_error", error="GPU is lost")))
    assert said(source.state) == "nvml: NVML error: GPU is lost"
    time.sleep(0.1)  # no batch for twice its stale_seconds: what going stale is
    assert said(source.state).startswith("no data for")


def test_closing_ends_the_source_once_and_a_node_lost_before_stays_lost():
    ended: list[str] = []
    source = RemoteSource("node_a", on_close=lambda: ended.append("a"))
    source.feed(batch(4))
    source.close()
    source.close()
    assert said(source.state) == "ended" and source.lost is None and ended == ["a"]
    source.lose("ActorDiedError: killed by close()")  # the stream fails as its actor is killed: not a loss
    assert said(source.state) == "ended" and source.sample() == []
    lost = RemoteSource("node_c")
    lost.lose("ConnectionError: node went away")
    lost.close()
    assert said(lost.state) == "lost: ConnectionError: node went away"


def test_the_sampler_closing_closes_its_remote_sources():
    # What ends a cluster watch when the kernel's sampler goes (the extension unloaded): its sources' on_close.
    ended: list[str] = []
    sources = [RemoteSource(label, on_close=lambda label=label: ended.append(label)) for label in ("node_a", "node_b")]
    Sampler(list(sources), interval=0.1).close()
    assert ended == ["node_a", "node_b"] and [said(source.state) for source in sources] == ["ended", "ended"]
