"""What a `set` did, as users read it (presentation/_changes.py, the report's view; `SetReport` shows itself as it):
one line per variable in the shell and a block per variable in a notebook, secrets masked, long values shortened to
their start and length, names and values escaped, in the language of the moment."""

from __future__ import annotations

import pytest

from mgenv_jupyter.base._text import set_language
from mgenv_jupyter.catalog._secrets import MASK
from mgenv_jupyter.runtime import SetReport, Status


def test_a_report_is_one_line_per_variable_with_its_outcome_and_why(fresh_session):
    report = fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB", "MY_SETTING": "on"})
    assert len(report) == 2 and [c.name for c in report] == ["MEGENGINE_DTR_EVICTION_THRESHOLD", "MY_SETTING"]
    assert report["MY_SETTING"].outcome is Status.EFFECTIVE
    lines = report.lines()
    assert lines[0] == ("MEGENGINE_DTR_EVICTION_THRESHOLD=5 GiB (5368709120): takes effect at import — megengine is "
                        "not imported yet: it reads this when `import megengine` runs")  # a size in the one notation
    assert lines[1].startswith("    note: ") and "5368709120" in lines[1]  # how 5GB was normalised
    assert lines[2] == ("MY_SETTING='on': effective — set for this process and the processes it starts; not a "
                        "catalog variable")
    assert repr(report) == "\n".join(lines)
    with pytest.raises(KeyError):
        report["MGE_DEFAULT_DEVICE"]


def test_an_unset_and_an_empty_report_say_so(fresh_session):
    fresh_session.set({"MY_SETTING": "on"})
    unset = fresh_session.unset(["MY_SETTING"]).lines()[0]
    assert unset == f"MY_SETTING=(unset): {Status.UNSET.label.get()} — removed from this process's environment"
    assert repr(SetReport()) == "nothing changed" and len(SetReport()) == 0


def test_a_secret_is_masked_in_the_report_and_the_history(fresh_session):
    report = fresh_session.set({"MY_API_TOKEN": "hunter2hunter2", "MY_URL": "postgres://me:hunter2@db/app"})
    shown = repr(report) + report._repr_html_() + repr(fresh_session.history_frame().to_dict())
    assert "hunter2" not in shown and shown.count(MASK) >= 4
    assert [c.secret for c in report] == [True, True]


def test_a_long_value_is_shown_by_its_start_and_length(fresh_session):
    report = fresh_session.set({"MY_LONG_SETTING": "x" * 5000})
    line = report.lines()[0]
    assert line.startswith("MY_LONG_SETTING='" + "x" * 40 + "…' (5,000 characters): effective")
    assert len(line) < 200 and "(5,000 characters)" in report._repr_html_()


def test_html_escapes_names_and_values(fresh_session):
    report = fresh_session.set({"MY_HTML": "<b>bold</b> & more"})
    shown = report._repr_html_()
    assert "<div class='mgenv-report'><div class='mgenv-change'><div><code>MY_HTML</code> = " in shown
    assert shown.startswith("<style>")
    assert "<b>bold</b>" not in shown and "&lt;b&gt;bold&lt;/b&gt; &amp; more" in shown


def test_the_report_speaks_the_chosen_language(fresh_session):
    set_language("zh")
    try:
        line = fresh_session.set({"FLAGS_allocator_strategy": "naive_best_fit"}).lines()[0]
    finally:
        set_language(None)
    assert line.startswith("FLAGS_allocator_strategy='naive_best_fit': 导入时生效 — paddle 尚未导入")
