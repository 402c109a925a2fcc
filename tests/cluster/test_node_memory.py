"""The per-node sampler that Ray runs as an actor, run here as the plain class it is: it streams the simulated GPU's
readings at the rate asked for, with its sampling cost, and stops when told."""

from __future__ import annotations

import threading
import time

import pytest

from mgenv_jupyter.cluster.node_memory import ClusterMemory, NodeMemory


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
    devices = {s.device for s in batches[-1]["samples"]}
    assert devices == {"gpu0 (simulated)", "gpu1 (simulated)"}
    assert batches[-1]["sampled"] == 6 and batches[-1]["cpu_seconds"] > 0
    nvml = next(s for s in batches[0]["states"] if s["name"].startswith("nvml"))
    assert nvml == {"name": "nvml (simulated)", "state": "ok", "idle": False, "simulated": True,
                    "simulation": "2xv100"}


def test_stop_ends_the_stream():
    node = NodeMemory()
    stream = node.stream(0.05)
    next(stream)
    threading.Timer(0.1, node.stop).start()
    assert len(list(stream)) < 10


def test_cluster_memory_checks_its_interval_before_touching_ray():
    from mgenv_jupyter.errors import InvalidValueError

    with pytest.raises(InvalidValueError):
        ClusterMemory(interval=0)
    assert ClusterMemory(interval=1.0).stale_seconds == 20.0
