"""What a worker reports (run here, in this process, as a worker runs it) and how the kernel compares it: a value set
after the process started did not arrive at its start; a secret comes back as a hash only."""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
from html.parser import HTMLParser

from mgenv_jupyter.catalog.secrets import MASK
from mgenv_jupyter.cluster.verify import (
    AFTER_START,
    AT_START,
    MISSING,
    ClusterReport,
    _compare,
    _digest,
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


class _Cells(HTMLParser):
    """The table's rows as lists of cell texts, and every title (tooltip) in it."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.titles: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.titles += [value or "" for name, value in attrs if name == "title"]
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def test_a_notebook_shows_the_report_node_by_node_with_secrets_masked_and_values_as_the_session_has_them():
    dtr = "MEGENGINE_DTR_EVICTION_THRESHOLD"
    seen = [_compare("node_a", dtr, "5368709120", {"value": "5368709120", "sha256": None, "at_start": True,
                                                   "imported": []}),
            _compare("node_a", "HF_TOKEN", "s3cr3t", {"value": None, "sha256": _digest("s3cr3t"), "at_start": True,
                                                      "imported": []}),
            _compare("node_b", dtr, "5368709120", {"value": "5", "sha256": None, "at_start": False,
                                                   "imported": ["megengine"]}),
            _compare("node_b", "HF_TOKEN", "s3cr3t", {"value": None, "sha256": _digest("other"), "at_start": True,
                                                      "imported": []}),
            _compare("node_c", "LABEL", "<b>" + "x" * 80, {"value": "<b>" + "x" * 80, "sha256": None,
                                                          "at_start": True, "imported": []})]
    report = ClusterReport([], seen, {"node_d": "no answer within 60 s"})
    page = report._repr_html_()
    assert "s3cr3t" not in page and "<b>" not in page  # a secret never, a value never as markup
    table = _Cells()
    table.feed(page)
    assert table.rows == [
        ["node", "variable", "its workers hold", "the session's value?", "arrived"],
        ["node_a", dtr, "5368709120", "✓ yes", "at worker start (a framework imported there reads it)"],
        ["HF_TOKEN", MASK, "✓ yes", "at worker start (a framework imported there reads it)"],
        ["node_b", dtr, "5", "✗ no: the session has 5368709120", "after worker start (already imported there: "
                                                                  "megengine)"],
        ["HF_TOKEN", MASK, f"✗ no: the session has {MASK}", "at worker start (a framework imported there reads it)"],
        ["node_c", "LABEL", "<b>" + "x" * 44 + "…", "✓ yes", "at worker start (a framework imported there reads it)"],
        ["node_d", "no answer: no answer within 60 s"],
    ]
    assert table.titles == ["<b>" + "x" * 80]  # a long value cut, whole in its tooltip
    assert "verify(): 4 nodes; not as the session has it on node_b, node_d" in html.unescape(page)
    good = ClusterReport([], seen[:2])._repr_html_()
    assert "1 node answered; each holds the session's value of every variable" in html.unescape(good)
    assert "class='mgenv-verify-summary mgenv-verify-bad'" not in good and "class='mgenv-verify-summary'" in good
