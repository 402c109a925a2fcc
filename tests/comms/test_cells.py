"""The kernel's side of each cell's memory in a real IPython shell: `%load_ext` starts recording every cell (and
`%unload_ext` stops), outside a Jupyter kernel no comm is opened and nothing fails; a front end's hello on the cells'
comm teaches the kernel its language and nothing else does. The comm itself, in a real kernel with a real front end,
is tested in tests/browser/test_browser_cell_memory.py."""

from __future__ import annotations

from mgenv_jupyter.base._text import current_language, learn_language
from mgenv_jupyter.comms import _cells as cell_comm
from mgenv_jupyter.comms._cells import RECORDS


def test_loading_records_every_cell_and_unloading_stops(ip):
    records = RECORDS.get()
    assert cell_comm.start(ip) is records  # idempotent
    ip.run_cell("x = 1", store_history=True)
    assert records.last is not None and records.last.execution_count is not None
    ip.run_line_magic("unload_ext", "mgenv_jupyter")
    assert RECORDS.get() is None
    last = records.last
    ip.run_cell("y = 2", store_history=True)
    assert records.last is last
    ip.run_line_magic("load_ext", "mgenv_jupyter")


def test_a_plain_shell_has_no_comm(ip):
    assert cell_comm._open_comm(ip) is None


def test_only_a_hello_in_a_known_language_is_learnt():
    learn_language(None)
    try:
        before = current_language()
        other = "zh" if before == "en" else "en"
        for junk in (None, "hello", {"content": None}, {"content": {"data": {"type": "hello", "language": "fr"}}},
                     {"content": {"data": {"type": "set", "language": other}}},
                     {"content": {"data": ["hello", other]}}):
            cell_comm._on_msg(junk)
            assert current_language() == before
        cell_comm._on_msg({"content": {"data": {"v": 1, "type": "hello", "language": other}}})
        assert current_language() == other or current_language() == before  # MGENV_LANG, where set, wins
    finally:
        learn_language(None)
