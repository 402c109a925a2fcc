"""verify()'s report as a notebook shows it: node by node, secrets masked, values as the session has them, every
value escaped, long ones cut with a tooltip."""

from __future__ import annotations

import html
from html.parser import HTMLParser

from mgenv_jupyter.catalog._secrets import MASK
from mgenv_jupyter.cluster._verify import ClusterReport, _compare, _digest, new_key

KEY = new_key()


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
    seen = [_compare("node_a", dtr, "5368709120", {"value": "5368709120", "hmac": None, "at_start": True,
                                                   "imported": []}, KEY),
            _compare("node_a", "HF_TOKEN", "s3cr3t", {"value": None, "hmac": _digest(KEY, "s3cr3t"), "at_start": True,
                                                      "imported": []}, KEY),
            _compare("node_b", dtr, "5368709120", {"value": "5", "hmac": None, "at_start": False,
                                                   "imported": ["megengine"]}, KEY),
            _compare("node_b", "HF_TOKEN", "s3cr3t", {"value": None, "hmac": _digest(KEY, "other"), "at_start": True,
                                                      "imported": []}, KEY),
            _compare("node_c", "LABEL", "<b>" + "x" * 80, {"value": "<b>" + "x" * 80, "hmac": None,
                                                          "at_start": True, "imported": []}, KEY)]
    report = ClusterReport([], seen, {"node_d": "no answer within 60 s"})
    page = report._repr_html_()
    assert "s3cr3t" not in page and "<b>" not in page  # a secret never, a value never as markup
    table = _Cells()
    table.feed(page)
    assert table.rows == [
        ["node", "variable", "its workers hold", "matches the session", "arrived"],
        ["node_a", dtr, "5368709120", "✓ yes", "at worker start (imports there read it)"],
        ["HF_TOKEN", MASK, "✓ yes", "at worker start (imports there read it)"],
        ["node_b", dtr, "5", "✗ no: the session has 5368709120", "after worker start (already imported: megengine)"],
        ["HF_TOKEN", MASK, f"✗ no: the session has {MASK}", "at worker start (imports there read it)"],
        ["node_c", "LABEL", "<b>" + "x" * 44 + "…", "✓ yes", "at worker start (imports there read it)"],
        ["node_d", "no answer: no answer within 60 s"],
    ]
    assert table.titles == ["<b>" + "x" * 80]  # a long value cut, whole in its tooltip
    assert "verify(): 4 nodes; not as the session has it on node_b, node_d" in html.unescape(page)
    good = ClusterReport([], seen[:2])._repr_html_()
    assert "1 node answered; each holds the session's value of every variable" in html.unescape(good)
    assert "class='mgenv-verify-summary mgenv-verify-bad'" not in good and "class='mgenv-verify-summary'" in good
