"""What a worker reports (run here, in this process, as a worker runs it) and how the kernel compares it: a value set
after the process started did not arrive at its start; a secret comes back only as an HMAC keyed with the call's
nonce, never as its value or its plain sha256."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest

from mgenv_jupyter.catalog._secrets import MASK
from mgenv_jupyter.cluster._verify import (
    AFTER_START,
    AT_START,
    MISSING,
    ClusterReport,
    _compare,
    new_key,
    worker_view,
)

KEY = new_key()


def test_a_value_set_while_the_process_runs_did_not_arrive_at_its_start():
    os.environ["MGENV_VERIFY_PROBE"] = "1"
    view = worker_view(["MGENV_VERIFY_PROBE", "MGENV_VERIFY_UNSET"], {"MGENV_VERIFY_PROBE": ["json", "nosuchmod"]},
                       KEY)
    probe = view["variables"]["MGENV_VERIFY_PROBE"]
    assert probe == {"value": "1", "hmac": None, "at_start": False, "imported": ["json"]}
    assert view["variables"]["MGENV_VERIFY_UNSET"]["value"] is None and view["pid"] == os.getpid()


def test_a_value_in_the_start_environment_arrived_at_start_and_a_secret_comes_back_only_as_a_keyed_hmac():
    # The worker runs in another process, as on a node; the key travels to it as a task's argument does.
    code = ("import json, sys; from mgenv_jupyter.cluster._verify import worker_view; "
            "key = bytes.fromhex(sys.argv[1]); "
            "print(json.dumps([worker_view(['MEGENGINE_X', 'MY_TOKEN'], {}, key), "
            "worker_view(['MY_TOKEN'], {}, bytes.fromhex(sys.argv[2]))]))")
    other_key = new_key()
    done = subprocess.run([sys.executable, "-c", code, KEY.hex(), other_key.hex()], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "MEGENGINE_X": "5368709120", "MY_TOKEN": "s3cr3t"})
    assert done.returncode == 0, done.stderr
    assert "s3cr3t" not in done.stdout and hashlib.sha256(b"s3cr3t").hexdigest() not in done.stdout
    first, second = json.loads(done.stdout)
    seen = first["variables"]
    assert seen["MEGENGINE_X"]["at_start"] is True and seen["MY_TOKEN"]["value"] is None
    # Another call, another key: the same secret gives another digest, so answers cannot be matched across calls.
    assert seen["MY_TOKEN"]["hmac"] != second["variables"]["MY_TOKEN"]["hmac"]
    secret = _compare("n", "MY_TOKEN", "s3cr3t", seen["MY_TOKEN"], KEY)
    assert secret.matches and secret.seen == MASK and secret.expected == MASK and secret.arrived == AT_START
    wrong = _compare("n", "MY_TOKEN", "other", seen["MY_TOKEN"], KEY)
    assert not wrong.matches and wrong.seen == MASK
    # Compared under a key other than the one the node was given, even the right secret does not match.
    assert not _compare("n", "MY_TOKEN", "s3cr3t", seen["MY_TOKEN"], other_key).matches


def test_each_key_is_fresh_and_a_worker_refuses_a_short_one(monkeypatch: pytest.MonkeyPatch):
    assert len({new_key() for _ in range(100)}) == 100 and len(KEY) == 32
    monkeypatch.setenv("MY_TOKEN", "s3cr3t")
    for weak in (b"", b"0" * 15, "a string key"):
        with pytest.raises(ValueError, match="random key"):
            worker_view(["MY_TOKEN"], {}, weak)  # type: ignore[arg-type]


def test_report_says_what_differs_and_what_is_missing():
    seen = [_compare("node_a", "A", "1", {"value": "1", "hmac": None, "at_start": True, "imported": []}, KEY),
            _compare("node_b", "A", "1", {"value": "2", "hmac": None, "at_start": False, "imported": ["paddle"]}, KEY),
            _compare("node_c", "A", "1", {"value": None, "hmac": None, "at_start": False, "imported": []}, KEY)]
    report = ClusterReport([], seen, {"node_d": "no answer within 60 s"})
    assert [s.arrived for s in seen] == [AT_START, AFTER_START, MISSING] and not report.ok
    assert report.lines() == ["node_a: A ok, at worker start; a framework imported there reads it",
                              "node_b: A differs (worker has '2'), after worker start; already imported there: paddle",
                              "node_c: A missing", "node_d: no answer (no answer within 60 s)"]
    assert list(report.frame()["matches"]) == [True, False, False]
    assert ClusterReport([], seen[:1]).ok


def test_a_secret_a_node_sends_in_clear_is_masked_here_and_a_malformed_answer_is_not_used():
    from mgenv_jupyter.cluster._verify import compared

    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2"
    # A node with an older mgenv_jupyter (fewer secret names) sends DB_PASSWD, or a token under a plain name, in clear.
    old_node = {"variables": {"DB_PASSWD": {"value": "hunter2", "hmac": None, "at_start": True, "imported": []},
                              "PLAIN": {"value": token, "hmac": None, "at_start": True, "imported": []}}}
    unanswered: dict[str, str] = {}
    seen = compared({"node_a": old_node}, ["DB_PASSWD", "PLAIN"], {}, unanswered, KEY)
    report = ClusterReport([], seen, unanswered)
    shown = repr(report) + report.frame().to_string() + report.frame().to_html()
    assert "hunter2" not in shown and token not in shown and [s.seen for s in seen] == [MASK, MASK]
    malformed = {"node_b": {"variables": {}}, "node_c": "garbage", "node_d": {"variables": {"PLAIN": {
        "value": "x" * (1 << 20), "hmac": None, "at_start": True, "imported": []}}},
        "node_e": {"variables": {"PLAIN": {"value": None, "hmac": "<b>", "at_start": True, "imported": []}}},
        "node_f": {"variables": {"PLAIN": {"value": 5, "hmac": None, "at_start": True, "imported": ["m"] * 10**6}}},
        # An older mgenv_jupyter's unkeyed sha256: not compared (it would match the plain hash), not used.
        "node_g": {"variables": {"PLAIN": {"value": None, "sha256": hashlib.sha256(b"1").hexdigest(),
                                           "at_start": True, "imported": []}}}}
    unanswered = {}
    assert compared(malformed, ["PLAIN"], {"PLAIN": "1"}, unanswered, KEY) == []
    assert set(unanswered) == set(malformed) and all("not what verify() asks for" in why
                                                     for why in unanswered.values())

