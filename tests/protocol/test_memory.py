"""The memory stream's messages (protocol/_memory.py): the batches and snapshots a sampler sends have exactly the
schema's shape, and a sampling interval is one range for every front end."""

from __future__ import annotations

import json

import pytest

from mgenv_jupyter import protocol
from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.base._source_state import STATE_OK
from mgenv_jupyter.cluster._remote_source import RemoteSource, consume
from mgenv_jupyter.memory._nvml_source import NvmlSource
from mgenv_jupyter.memory._sample import DeviceId, Sample, series_key
from mgenv_jupyter.memory._sampler import Sampler
from mgenv_jupyter.memory.simulated._fake_nvml import FakeDevice, FakeNvml
from mgenv_jupyter.protocol import checked_interval

from wire_check import check

GiB = 1024**3


def test_batches_conform_to_the_protocol_types():
    with FakeNvml([FakeDevice(total=40 * GiB), FakeDevice(total=16 * GiB)]):
        sampler = Sampler([NvmlSource()])
        batches = []
        sampler.subscribe(batches.append)
        sampler.cells.start(1)
        sampler.sample_once()
        sampler.cells.finish()
        sampler.flush()
        sampler.sample_once()
        sampler.flush()
        snapshot = sampler.snapshot()
        sampler.close()
    for batch in [*batches, snapshot]:
        json.loads(json.dumps(batch, allow_nan=False))  # what Jupyter's comm layer will do
        check(batch, protocol.Batch if batch is not snapshot else protocol.Snapshot)
        assert batch["type"] == ("memory.batch" if batch is not snapshot else "memory.snapshot")
        assert all(len(column) == len(batch["t"]) for column in batch["columns"].values())
        for series in batch.get("series", []):  # a key is written from the fields, which carry what it names
            device = DeviceId(series["device"], series["framework"], series["node"], series["simulated"])
            assert series["key"] == series_key(device.label, series["quantity"])
            assert series["device"] in ("gpu0", "gpu1") and series["framework"] is None and series["simulated"]
    first, second = batches
    assert {"series", "sources", "overlays"} <= set(first) and not {"series", "sources", "overlays"} & set(second)
    assert [c["end"] is None for c in first["cells"]] == [True, False]  # a cell appears when it starts and ends
    assert {s["key"] for s in first["series"]} == set(first["columns"])
    assert all(s["simulated"] for s in first["series"])


def test_a_cluster_nodes_series_and_state_name_the_node_and_the_kernels_own_name_none():
    node_b, node_c = RemoteSource("node_b"), RemoteSource("node_c")
    state = {"name": "nvml", "state": STATE_OK, "idle": False, "simulated": False, "simulation": None}
    node_b.feed({"samples": [Sample(1.0, "nvml", "gpu1", used=5, total=9)], "states": [state], "cpu_seconds": 0.0,
                 "sampled": 1})

    def dies():
        yield {"samples": [Sample(1.0, "nvml", "gpu0", used=3)], "states": [state], "cpu_seconds": 0.0, "sampled": 1}
        raise ConnectionError("raylet gone")

    with FakeNvml([FakeDevice(total=40 * GiB)]):
        sampler = Sampler([NvmlSource(), node_b, node_c])
        batches: list = []
        sampler.subscribe(batches.append)
        consume(node_c, dies())  # node_c sent nothing the sampler took before it was lost
        sampler.sample_once()
        sampler.flush()
        sampler.close()
    (batch,) = batches
    check(batch, protocol.Batch)
    nodes = {s["key"]: s["node"] for s in batch["series"]}
    assert nodes == {"gpu0 (simulated) used": None, "gpu0 (simulated) total": None, "gpu0 (simulated) process": None,
                     "node_b gpu1 used": "node_b", "node_b gpu1 total": "node_b"}
    states = {s["name"]: (s["node"], s["text"]) for s in batch["sources"]}
    assert states == {"nvml (simulated)": (None, "ok"), "node_b (remote)": ("node_b", "ok"),
                      "node_c (remote)": ("node_c", "lost: ConnectionError: raylet gone")}


@pytest.mark.parametrize(("value", "seconds"), [(0.01, 0.01), (0.1, 0.1), (60, 60.0), ("0.5", 0.5)])
def test_a_sampling_interval_from_100_hz_to_one_a_minute_is_accepted(value, seconds):
    assert checked_interval(value) == seconds


@pytest.mark.parametrize("value", [0.005, 0, -1, 60.5, float("nan"), float("inf"), "fast", None, [0.1]])
def test_any_other_interval_is_refused_saying_what_is_allowed(value):
    with pytest.raises(InvalidValueError, match=r"a sampling interval is from 0.01 s \(100 Hz\) to 60 s, not "):
        checked_interval(value)
