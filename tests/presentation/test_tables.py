"""What %envlist and %envdiff return (presentation/_tables.py): a pandas DataFrame for code, shown in a notebook as a
compact table with the columns that matter first, "not set" for missing values, times to the second and long texts
wrapped to the width the output has (only a very long one cut, at a space, whole in its tooltip)."""

from __future__ import annotations

import time

import pandas

from mgenv_jupyter.presentation._tables import EnvTable, env_table


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
    assert ("<th title='name'>name</th><th title='value'>value</th><th title='status'>status</th></tr>" in shown
            and ">description</th>" not in shown)
    assert "2 rows · 1 more columns in the DataFrame: description" in shown
    # a name may break after its underscores; a value anywhere; a status keeps the width of two words a line
    assert ("<td class='mgenv-name'>A_<wbr>VAR</td><td class='mgenv-value'>1</td>"
            "<td class='mgenv-short'>effective</td>") in shown
    assert "<span class='mgenv-missing'>not set</span>" in shown  # None is "not set", not None or NaN


def test_a_long_text_wraps_whole_and_a_very_long_one_is_cut_at_a_space_with_the_whole_in_its_tooltip():
    """A description is shown whole, wrapped to the output's width (cut mid-word at 90 characters before); only a
    text of more than 600 characters (a value) is cut, at a space, the whole of it in its tooltip."""
    shown = env_table(frame())._repr_html_()
    assert f"<td class='mgenv-long'>{'x' * 200}</td>" in shown
    words = " ".join(["word"] * 300)
    long = env_table(pandas.DataFrame({"value": [words]}, index=pandas.Index(["A"], name="name")))._repr_html_()
    assert f"<span title='{words}'>{' '.join(['word'] * 120)} …</span>" in long


def test_times_are_shown_to_the_second_and_missing_ones_as_not_set():
    now = pandas.Timestamp.now(tz="UTC")
    table = env_table(pandas.DataFrame({"changed": [now, pandas.NaT]}, index=pandas.Index(["A", "B"], name="name")))
    shown = table._repr_html_()
    assert f"<td class='mgenv-time'>{time.strftime('%H:%M:%S', time.localtime(now.timestamp()))}</td>" in shown
    assert shown.count("not set") == 1


def test_what_the_user_typed_is_escaped():
    table = env_table(pandas.DataFrame({"value": ["<b>x</b>"]}, index=pandas.Index(["A"], name="name")))
    assert "&lt;b&gt;x&lt;/b&gt;" in table._repr_html_() and "<b>x</b>" not in table._repr_html_()


def test_in_chinese():
    from mgenv_jupyter.base._text import set_language

    set_language("zh")
    try:
        shown = env_table(frame(), ["value"], "zh")._repr_html_()
    finally:
        set_language(None)
    assert "未设置" in shown and "2 行" in shown and "DataFrame 中另有 2 列" in shown
    assert "<th title='value'>取值</th>" in shown  # the header in the language, the column's name in its tooltip


def test_a_table_is_shown_in_the_sessions_language_when_it_is_shown(ip):
    """Issue 29, point 10: the demo's listing made under %envlang zh, shown after %envlang en, mixed Chinese
    descriptions, "未设置" and "5 行" with English headers. Every word of ours follows the language of the moment."""
    ip.run_line_magic("envlang", "zh")
    threads = ip.run_line_magic("envlist", "mxnet --category 线程")
    diff = ip.run_line_magic("envdiff", "")
    ip.run_line_magic("envlang", "en")
    shown = threads[["value", "default", "description"]]._repr_html_()
    assert "CPU" in shown and "rows" in shown and "not set" in shown
    assert not any("\u4e00" <= char <= "\u9fff" for char in shown), "Chinese left in an English display"
    ip.run_line_magic("envset", "MXNET_CPU_WORKER_NTHREADS=2")
    diff = ip.run_line_magic("envdiff", "")
    ip.run_line_magic("envlang", "zh")
    shown_zh = diff._repr_html_()
    ip.run_line_magic("envlang", "auto")
    assert "是" in shown_zh and "行" in shown_zh and ">来源</th>" in shown_zh  # exported: yes, the rows, the header
    assert threads.loc["MXNET_CPU_WORKER_NTHREADS", "description"].isascii() is False  # the data keep what was made


def test_memory_frames_show_binary_sizes_while_the_data_stay_integer_bytes():
    """chart.history / chart.per_cell(): no 3.590324e+09 and no NaN on screen, GiB and MiB as the chart writes them."""
    from mgenv_jupyter.memory._history import History
    from mgenv_jupyter.presentation._tables import MemoryTable, memory_table

    history = History()
    for i in range(100):
        history.append(100 + i / 10, {"gpu0 used": 3590324224 + i * 1024**2,
                                      **({"host used": 7 * 1024**3} if i % 10 == 0 else {})})
    table = memory_table(history.frame())
    tail = table.tail()
    assert isinstance(tail, MemoryTable) and tail["gpu0 used"].iloc[-1] == 3590324224 + 99 * 1024**2
    shown = tail._repr_html_()
    assert "<td>3.44 GiB</td>" in shown and "<td>7 GiB</td>" in shown and "00:01:49.900<" in shown
    assert "e+09" not in shown and "NaN" not in shown and "time (UTC)" in shown
    long = table._repr_html_()  # 100 rows, more than pandas' display.max_rows: the first and last five
    assert long.count("<tr>") == 1 + 5 + 1 + 5 and "the first and last 5 shown" in long


def test_a_memory_table_says_no_reading_where_a_series_has_none():
    from mgenv_jupyter.presentation._tables import memory_table

    frame = pandas.DataFrame({"gpu0 process": pandas.array([None, 2 * 1024**2], dtype="Int64")})
    frame.attrs["bytes"] = ["gpu0 process"]
    shown = memory_table(frame)._repr_html_()
    assert "no reading" in shown and "2 MiB" in shown


def test_per_cell_shows_each_cells_peak_and_change_first_and_no_bare_row_numbers():
    from mgenv_jupyter.memory._cells import CellMarker, per_cell
    from mgenv_jupyter.memory._history import History
    from mgenv_jupyter.memory._sample import DeviceId
    from mgenv_jupyter.presentation._tables import memory_table

    history = History()
    history.append(100.0, {"gpu0 process": 1024**3})
    history.append(102.0, {"gpu0 process": 3 * 1024**3})
    shown = memory_table(per_cell(history, [CellMarker(4, start=100.5, end=101.5, ok=True)],
                                  [DeviceId("gpu0").series("process", "nvml")]))._repr_html_()
    assert "<tr><th>cell</th><th>device</th><th>peak</th><th>delta</th>" in shown
    assert "<td>4</td><td class='mgenv-text'>gpu0</td><td>3 GiB</td><td>2 GiB</td>" in shown
