"""verify()'s answer as a table, text and HTML (cluster/_verify_report.py), built from data: every form labels the
same verdicts (cluster/_seen.py)."""

from __future__ import annotations

from mgenv_jupyter.cluster._seen import AFTER_START, AT_START, MISSING, Seen
from mgenv_jupyter.cluster._verify_report import ClusterReport

SEEN = [Seen("node_a", "A", "1", "1", True, AT_START), Seen("node_b", "A", "1", "2", False, AFTER_START, ("paddle",)),
        Seen("node_c", "A", "1", None, False, MISSING), Seen("node_c", "B", None, None, True, MISSING)]


def test_the_text_and_the_table_label_the_verdict_and_the_arrival():
    report = ClusterReport([], SEEN, {"node_d": "no answer within 60 s"})
    assert report.lines() == ["node_a: A ok, at worker start; a framework imported there reads it",
                              "node_b: A differs (worker has '2'), after worker start; already imported there: paddle",
                              "node_c: A missing", "node_c: B ok, unset there as in the session",
                              "node_d: no answer (no answer within 60 s)"]
    assert repr(report) == "\n".join(report.lines()) and not report.ok
    frame = report.frame()
    assert list(frame["arrived"]) == ["at worker start", "after worker start", "missing", "missing"]
    assert list(frame["imported_before"]) == ["", "paddle", "", ""]
    assert repr(ClusterReport([], [])) == "no variables to verify" and ClusterReport([], SEEN[:1]).ok


def test_the_notebook_shows_the_same_verdicts_as_html():
    page = ClusterReport([], SEEN)._repr_html_()
    assert page.count("✓ yes") == 2 and page.count("✗ no: the session has 1") == 1
    assert "mgenv-verify-missing'>missing<" in page
