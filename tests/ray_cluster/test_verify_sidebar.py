"""The Framework Env sidebar's view of a real verify() on the real local Ray cluster (cluster_scenario.py): the result
verify() records becomes the comm's "verify" notice with every node and the normalised bytes each node's workers
started with; the panel's "Verify nodes" JSON request runs a real verify() there; a secret asked for by name travels
to the sidebar only as a match, never as its value."""

from __future__ import annotations

import json
from typing import Any

from mgenv_jupyter.protocol._sidebar import VerifyNotice

from wire_check import check

NODES = ["node_a", "node_b", "node_c"]
DTR = "MEGENGINE_DTR_EVICTION_THRESHOLD"


def test_a_real_verify_is_what_the_sidebar_is_sent_node_by_node(scenario: dict[str, Any]):
    notice = scenario["verify_notice"]
    assert notice is not None, "verify() did not record its report"
    check(notice, VerifyNotice)
    assert notice["ok"] is True and sorted(node["node"] for node in notice["nodes"]) == NODES
    rows = {(row["node"], row["name"]): row for row in scenario["verify"]}
    for node in notice["nodes"]:
        assert node["state"] == "ok" and node["mismatch"] == node["missing"] == 0, node
        assert node["ok"] == len(node["variables"]) == sum(1 for where, _ in rows if where == node["node"])
        dtr = next(v for v in node["variables"] if v["name"] == DTR)
        assert dtr == {"name": DTR, "secret": False, "expected": "5368709120", "seen": "5368709120", "matches": True,
                       "verdict": "ok", "arrived": "at_start", "imported_before": []}, dtr
        for variable in node["variables"]:  # the same answers as the notebook's report
            row = rows[(node["node"], variable["name"])]
            assert (variable["matches"], variable["arrived"] == "at_start") == (row["matches"], True), variable


def test_the_panels_verify_request_runs_a_real_verify(scenario: dict[str, Any]):
    [reply] = scenario["verify_request"]
    assert (reply["type"], reply["reply_to"]) == ("result", "sidebar-1"), reply
    again = scenario["verify_request_notice"]
    assert again is not None and again["ok"] is True and sorted(n["node"] for n in again["nodes"]) == NODES
    assert again["time"] > scenario["verify_notice"]["time"]


def test_a_secret_reaches_the_sidebar_only_as_a_match(scenario: dict[str, Any]):
    notice = scenario["secret_notice"]
    check(notice, VerifyNotice)
    assert sorted(node["node"] for node in notice["nodes"]) == NODES
    for node in notice["nodes"]:
        assert node["variables"] == [{"name": "MY_API_TOKEN", "secret": True, "expected": None, "seen": None,
                                      "matches": True, "verdict": "ok", "arrived": "at_start",
                                      "imported_before": []}], node
    assert "tok-123" not in json.dumps(notice)
