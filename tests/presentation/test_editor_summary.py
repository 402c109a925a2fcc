"""An editor widget's static view (presentation/_editor_summary.py), what a saved notebook keeps of it: a value set
with its status; an unset one as "not set" with the framework's default beside it, told apart in text and in grey in
HTML, so that a default never reads as a value set; names and values escaped; words in the session's language."""

from __future__ import annotations

from mgenv_jupyter.presentation._editor_summary import EditorSummary

NAMES = ["MEGENGINE_DTR_EVICTION_THRESHOLD", "MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE"]


def test_a_value_set_and_a_default_are_told_apart(fresh_session):
    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "3GB"})
    summary = EditorSummary.of("MegEngine DTR", fresh_session, NAMES, "en")
    assert summary.lines() == [
        "MegEngine DTR",
        "  MEGENGINE_DTR_EVICTION_THRESHOLD: 3 GiB (3221225472) — takes effect at import",
        "  MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE: not set (default 1 MiB)",  # sizes in the one notation
        "The widget's values as the notebook was saved; run the cell again to edit them.",
    ]
    page = summary._repr_html_()
    assert "font-style: italic'>not set (default 1 MiB)</td>" in page
    assert "text-align: left; padding: 2px 8px'>3 GiB (3221225472)</td>" in page


def test_chinese_and_escaped(fresh_session):
    fresh_session.set({"MY_HTML": "<b>x</b>"})
    summary = EditorSummary.of("<i>title</i>", fresh_session, ["MY_HTML", *NAMES], "zh")
    page = summary._repr_html_()
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page and "&lt;i&gt;title" in page
    assert "未设置(默认 1 MiB)" in repr(summary) and "变量" in page
