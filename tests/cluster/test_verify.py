"""What a worker reports (run here, in this process, as a worker runs it) and how the kernel compares it: a value set
after the process started did not arrive at its start; a secret comes back as a hash only."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from mgenv_jupyter.catalog.secrets import MASK
from mgenv_jupyter.cluster.verify import (
    AFTER_START,
    AT_START,
    MISSING,
    ClusterReport,
    _compare,
    worker_view,
)


def test_a_value_set_while_the_process_runs_did_not_arrive_at_its_start():
    os.environ["MGENV_VERIFY_PROBE"] = "1"
    view = worker_view(["MGENV_VERIFY_PROBE", "MGENV_VERIFY_UNSET"], {"MGENV_VERIFY_PROBE": ["json", "nosuchmod"]})
    probe = view["variables"]["MGENV_VERIFY_PROBE"]
    assert probe == {"value": "1", "sha256": None, "at_start": False, "imported": ["json"]}
    assert view["variables"]["MGENV_VERIFY_UNSET"]["value"] is None and view["pid"] == os.getpid()


def test_a_value_in_the_start_environment_arrived_at_start_and_a_secret_is_only_hashed():
    code = ("import json; from mgenv_jupyter.cluster.verify import worker_view; "
            "print(json.dumps(worker_view(['MEGENGINE_X', 'MY_TOKEN'], {})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "MEGENGINE_X": "5368709120", "MY_TOKEN": "s3cr3t"})
    assert done.returncode == 0, done.stderr
    assert "s3cr3t" not in done.stdout
    seen = json.loads(done.stdout)["variables"]
    assert seen["MEGENGINE_X"]["at_start"] is True and seen["MY_TOKEN"]["value"] is None
    secret = _compare("n", "MY_TOKEN", "s3cr3t", seen["MY_TOKEN"])
    assert secret.matches and secret.seen == MASK and secret.expected == MASK and secret.arrived == AT_START
    wrong = _compare("n", "MY_TOKEN", "other", seen["MY_TOKEN"])
    assert not wrong.matches and wrong.seen == MASK


def test_report_says_what_differs_and_what_is_missing():
    seen = [_compare("node_a", "A", "1", {"value": "1", "sha256": None, "at_start": True, "imported": []}),
            _compare("node_b", "A", "1", {"value": "2", "sha256": None, "at_start": False, "imported": ["paddle"]}),
            _compare("node_c", "A", "1", {"value": None, "sha256": None, "at_start": False, "imported": []})]
    report = ClusterReport([], seen, {"node_d": "no answer within 60 s"})
    assert [s.arrived for s in seen] == [AT_START, AFTER_START, MISSING] and not report.ok
    assert report.lines() == ["node_a: A ok, at worker start; a framework imported there reads it",
                              "node_b: A differs (worker has '2'), after worker start; already imported there: paddle",
                              "node_c: A missing", "node_d: no answer (no answer within 60 s)"]
    assert list(report.frame()["matches"]) == [True, False, False]
    assert ClusterReport([], seen[:1]).ok


def test_a_secret_a_node_sends_in_clear_is_masked_here_and_a_malformed_answer_is_not_used():
    from mgenv_jupyter.cluster.verify import compared

    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2"
    # A node with an older mgenv_jupyter (fewer secret names) sends DB_PASSWD, or a token under a plain name, in clear.
    old_node = {"variables": {"DB_PASSWD": {"value": "hunter2", "sha256": None, "at_start": True, "imported": []},
                              "PLAIN": {"value": token, "sha256": None, "at_start": True, "imported": []}}}
    unanswered: dict[str, str] = {}
    seen = compared({"node_a": old_node}, ["DB_PASSWD", "PLAIN"], {}, unanswered)
    report = ClusterReport([], seen, unanswered)
    shown = repr(report) + report.frame().to_string() + report.frame().to_html()
    assert "hunter2" not in shown and token not in shown and [s.seen for s in seen] == [MASK, MASK]
    malformed = {"node_b": {"variables": {}}, "node_c": "garbage", "node_d": {"variables": {"PLAIN": {
        "value": "x" * (1 << 20), "sha256": None, "at_start": True, "imported": []}}},
        "node_e": {"variables": {"PLAIN": {"value": None, "sha256": "<b>", "at_start": True, "imported": []}}},
        "node_f": {"variables": {"PLAIN": {"value": 5, "sha256": None, "at_start": True, "imported": ["m"] * 10**6}}}}
    unanswered = {}
    assert compared(malformed, ["PLAIN"], {"PLAIN": "1"}, unanswered) == []
    assert set(unanswered) == set(malformed) and all("not what verify() asks for" in why
                                                     for why in unanswered.values())

