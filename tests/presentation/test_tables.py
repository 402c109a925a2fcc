"""What %envlist and %envdiff return (presentation/tables.py): a pandas DataFrame for code, shown in a notebook as a
compact table with the columns that matter first, "not set" for missing values, times to the second and long texts
cut with the whole text as a tooltip."""

from __future__ import annotations

import time

import pandas

from mgenv_jupyter.presentation.tables import EnvTable, env_table


def frame() -> pandas.DataFrame:
    return pandas.DataFrame({"name": ["A_VAR", "B_VAR"], "value": ["1", None], "status": ["effective", "not set"],
                             "description": ["short", "x" * 200]}).set_index("name")


def test_it_stays_a_dataframe_that_code_can_filter_and_join():
    table = env_table(frame(), ["value", "status"], "en")
    assert isinstance(table, pandas.DataFrame) and list(table.index) == ["A_VAR", "B_VAR"]
    chosen = table[table["status"] == "effective"]
    assert isinstance(chosen, EnvTable) and chosen.shown_columns == ["value", "status"]  # the display survives
    assert list(chosen.index) == ["A_VAR"]


def test_the_notebook_shows_the_chosen_columns_and_says_what_else_the_frame_holds():
    shown = env_table(frame(), ["value", "status"], "en")._repr_html_()
    assert "<th>name</th><th>value</th><th>status</th></tr>" in shown and "<th>description</th>" not in shown
    assert "2 rows · 1 more columns in the DataFrame: description" in shown
    assert "<td class='mgenv-name'>A_VAR</td><td>1</td><td>effective</td>" in shown
    assert "<span class='mgenv-missing'>not set</span>" in shown  # None is "not set", not None or NaN


def test_a_long_text_is_cut_and_whole_in_its_tooltip():
    shown = env_table(frame())._repr_html_()
    assert f"<span title='{'x' * 200}'>{'x' * 89}…</span>" in shown


def test_times_are_shown_to_the_second_and_missing_ones_as_not_set():
    now = pandas.Timestamp.now(tz="UTC")
    table = env_table(pandas.DataFrame({"changed": [now, pandas.NaT]}, index=pandas.Index(["A", "B"], name="name")))
    shown = table._repr_html_()
    assert f"<td>{time.strftime('%H:%M:%S', time.localtime(now.timestamp()))}</td>" in shown
    assert shown.count("not set") == 1


def test_what_the_user_typed_is_escaped():
    table = env_table(pandas.DataFrame({"value": ["<b>x</b>"]}, index=pandas.Index(["A"], name="name")))
    assert "&lt;b&gt;x&lt;/b&gt;" in table._repr_html_() and "<b>x</b>" not in table._repr_html_()


def test_in_chinese():
    shown = env_table(frame(), ["value"], "zh")._repr_html_()
    assert "未设置" in shown and "2 行" in shown and "DataFrame 中另有 2 列" in shown
