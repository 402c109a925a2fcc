"""A verify() result as the sidebar receives it (presentation/wire.py verify_notice), from reports built from data:
counts per node, a lost node last with its reason, arrivals and verdicts as codes, secrets never as values (nor as
the mask)."""

from __future__ import annotations

import json

from mgenv_jupyter.catalog.secrets import MASK
from mgenv_jupyter.cluster.seen import AFTER_START, AT_START, MISSING, Seen
from mgenv_jupyter.cluster.verify_report import ClusterReport
from mgenv_jupyter.presentation import wire
from mgenv_jupyter.protocol.sidebar import VerifyNotice

from wire_check import check

DTR = "MEGENGINE_DTR_EVICTION_THRESHOLD"
FLAG = "FLAGS_fraction_of_gpu_memory_to_use"
KEY = "WANDB_API_KEY"
TOKEN = "sk-proj-abcdefghijklmnopqrstuvwx"  # shaped like a credential, under an innocent name


def report() -> ClusterReport:
    return ClusterReport([], [
        Seen("node_a", DTR, "5368709120", "5368709120", True, AT_START),
        Seen("node_a", KEY, MASK, MASK, True, AT_START),
        Seen("node_b", DTR, "5368709120", "5", False, AFTER_START, ("megengine",)),
        Seen("node_b", FLAG, "0.5", None, False, MISSING),
        Seen("node_b", KEY, MASK, MASK, False, AT_START),
        Seen("node_b", "MGENV_NOTE", TOKEN, TOKEN, True, AT_START),
        Seen("node_b", "MGENV_LONG", "x" * 2000, "x" * 2000, True, AT_START),
    ], {"node_c": "ActorDiedError: the actor died unexpectedly before finishing this task"})


def test_the_notice_says_per_node_what_its_workers_hold_and_when_it_arrived():
    message = json.loads(json.dumps(wire.verify_notice(report(), 1700000000.5)))
    check(message, VerifyNotice)
    assert message["type"] == "verify" and message["time"] == 1700000000.5 and message["ok"] is False
    nodes = {node["node"]: node for node in message["nodes"]}
    assert [node["node"] for node in message["nodes"]] == ["node_a", "node_b", "node_c"]
    assert {name: (n["state"], n["ok"], n["mismatch"], n["missing"]) for name, n in nodes.items()} == {
        "node_a": ("ok", 2, 0, 0), "node_b": ("mismatch", 2, 2, 1), "node_c": ("lost", 0, 0, 0)}
    assert nodes["node_c"]["reason"].startswith("ActorDiedError") and nodes["node_c"]["variables"] == []
    a_dtr, b_dtr, b_flag = nodes["node_a"]["variables"][0], *nodes["node_b"]["variables"][:2]
    assert a_dtr == {"name": DTR, "secret": False, "expected": "5368709120", "seen": "5368709120", "matches": True,
                     "verdict": "ok", "arrived": "at_start", "imported_before": []}
    assert [v["verdict"] for v in nodes["node_b"]["variables"]] == ["differs", "missing", "differs", "ok", "ok"]
    assert (b_dtr["seen"], b_dtr["matches"], b_dtr["arrived"], b_dtr["imported_before"]) == (
        "5", False, "after_start", ["megengine"])
    assert (b_flag["expected"], b_flag["seen"], b_flag["arrived"]) == ("0.5", None, "missing")
    long = nodes["node_b"]["variables"][-1]
    assert len(long["seen"]) == wire.MAX_VALUE and long["seen"].endswith("…")


def test_secrets_travel_only_as_match_or_mismatch():
    message = wire.verify_notice(report(), 0.0)
    secrets = [v for node in message["nodes"] for v in node["variables"] if v["name"] in (KEY, "MGENV_NOTE")]
    assert [(v["name"], v["matches"]) for v in secrets] == [(KEY, True), (KEY, False), ("MGENV_NOTE", True)]
    assert all(v["secret"] and v["expected"] is None and v["seen"] is None for v in secrets)
    text = json.dumps(message)
    assert TOKEN not in text and MASK not in text
