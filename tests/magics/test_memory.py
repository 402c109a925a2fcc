"""%memfree and %memholders in a real IPython shell: their options, bad input refused before anything is freed, and
the Chinese texts; mgenv_jupyter.free_memory() and memory_holders() return the same views. (What a free gives back
is tested in tests/oom/test_free.py, and with real frameworks in tests/frameworks/test_free_real.py.)"""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

import mgenv_jupyter
from mgenv_jupyter.base._text import set_language
from mgenv_jupyter.oom import _free as free_module
from mgenv_jupyter.presentation._freeing import FreeView, HoldersView


def test_bad_options_are_refused_and_nothing_is_freed(ip, monkeypatch):
    called = []
    monkeypatch.setattr(free_module, "drop_failed_cell", lambda shell: called.append(shell) or ([], []))
    with pytest.raises(UsageError, match="unrecognized arguments"):
        ip.run_line_magic("memfree", "--all")
    with pytest.raises(UsageError):
        ip.run_line_magic("memholders", "x")
    assert not called


def test_chinese(ip):
    set_language("zh")
    try:
        said = repr(ip.run_line_magic("memfree", ""))
    finally:
        set_language(None)
    assert "未改动你的变量" in said and "主机 RSS" in said


def test_the_python_api_returns_the_magics_views(ip):
    assert isinstance(mgenv_jupyter.free_memory(), FreeView)
    assert isinstance(mgenv_jupyter.memory_holders(), HoldersView)
    assert "memfree" in ip.magics_manager.magics["line"] and "memholders" in ip.magics_manager.magics["line"]


def test_help_says_what_it_never_touches(ip):
    assert "never" in ip.magics_manager.magics["line"]["memfree"].__doc__
    with pytest.raises(UsageError, match="too long|characters"):
        ip.run_line_magic("memfree", "x" * 200_000)


def test_unloading_removes_them(ip):
    ip.run_line_magic("unload_ext", "mgenv_jupyter")
    assert "memfree" not in ip.magics_manager.magics["line"]
    ip.run_line_magic("load_ext", "mgenv_jupyter")
    assert "memholders" in ip.magics_manager.magics["line"]


def test_memtrace_shows_the_cells_last_expression_as_without_the_magic(ip):
    from IPython.utils.capture import capture_output

    with capture_output() as shown:
        result = ip.run_cell("%%memtrace\nnumbers = [1, 2, 3]\nsum(numbers) * 14")
    assert result.success, result.error_in_exec
    assert shown.outputs[0].data["text/plain"] == "84"  # the value first, as the cell alone shows it
    assert ip.user_ns["numbers"] == [1, 2, 3]
    with capture_output() as quiet:
        ip.run_cell("%%memtrace\nnothing = None\nnothing")
    assert all(output.data.get("text/plain") != "None" for output in quiet.outputs[:-1])  # None is not shown


def test_memtrace_on_a_numpy_cell_says_why_nothing_is_listed(ip):
    # Issue 38: a NumPy cell said "no framework recorded where memory was allocated (JAX always records; PyTorch
    # records with %memtrace on or in a %%memtrace cell)" inside the %%memtrace cell itself, never named NumPy, and its
    # .frame() came back empty without a word.
    import html

    shown = {}
    for language in ("en", "zh"):
        ip.run_line_magic("envlang", language)
        try:
            result = ip.run_cell("%%memtrace\nimport numpy as np\narray = np.zeros(2 << 20)  # 16 MiB\n")
            assert result.success, result.error_in_exec
            assert len(result.result.frame()) == 0
            shown[language] = html.unescape(result.result._repr_html_())  # as the notebook shows it
        finally:
            ip.run_line_magic("envlang", "en")
    english, chinese = shown["en"], shown["zh"]
    assert "nothing was recorded, so .frame() has no rows" in english
    assert "only JAX and PyTorch record where they allocate" in english
    assert "NumPy keeps no record of where its arrays were allocated: %memholders lists them" in english
    assert "%memtrace on" not in english and "always records" not in english
    assert ".frame() 没有行" in chinese and "NumPy 不记录其数组的分配位置" in chinese and "%memtrace on" not in chinese


def test_memholders_names_what_it_did_not_look_into_in_a_sentence_a_person_can_read(ip):
    # Issue 38: "Not looked at: what report (a Change in it), dtr (a Config in it) holds (only its own code could
    # say: ...)" could not be parsed by a person. Now each object is named by what it is and where it is.
    import html

    ip.run_cell("class Change(list): pass\nreport = {'changes': Change()}\nmine = Change()\n")
    try:
        shown = {}
        for language in ("en", "zh"):
            ip.run_line_magic("envlang", language)
            try:
                view = ip.run_line_magic("memholders", "")
                shown[language] = html.unescape(view._repr_html_())  # as the notebook shows it
            finally:
                ip.run_line_magic("envlang", "en")
        assert ("Not looked into, as only their own code could tell what they hold (subclasses of containers or "
                "tensors, objects that hide their attributes): ") in shown["en"]
        assert "the Change in report" in shown["en"] and "mine (of type Change)" in shown["en"]
        assert "Not looked at: what" not in shown["en"] and "in it)" not in shown["en"]
        assert "report 中的 Change" in shown["zh"] and "mine(类型为 Change)" in shown["zh"]
    finally:
        ip.run_cell("del Change, report, mine")
