"""Allocation sites grouped by the user's lines: cells of a real IPython shell found through its compiler's map and
named with their line's text, the user's own .py file by file and line, library frames folded into a count, memory
with no user frame counted apart. The blocks are made here (their stacks point into the shell's real cells and real
library files); what real frameworks record is tested in tests/frameworks/test_memtrace_real.py."""

from __future__ import annotations

import json
import linecache
import os
import sys

import numpy
import pandas
import pytest

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.memory._memtrace_sites import CellNames, group
from mgenv_jupyter.runtime._memtrace import BlockRecord, Frame, LiveBlocks

MiB = 1 << 20
LIBRARY = Frame(numpy.__file__, 10, "zeros")
STDLIB = Frame(json.__file__, 20, "loads")


def _cell_file(ip, source: str) -> tuple[str, int]:
    """Run `source` as a cell; its compiled file name and execution count."""
    result = ip.run_cell(source, store_history=True)
    assert result.error_in_exec is None
    number = result.execution_count
    names = [name for name, count in ip.compile._filename_map.items()
             if count == number and "".join(linecache.getlines(name)) == source]
    assert names
    return names[-1], number


def test_blocks_are_grouped_by_the_innermost_line_of_a_cell(ip):
    define, first = _cell_file(ip, "def make(n):\n    x = list(range(n))\n    y = [0] * n\n    return x, y\n")
    caller, second = _cell_file(ip, "a = 1\np, q = make(3)\n")
    blocks = (
        LiveBlocks(4 * MiB, 2, "cpu:0", (LIBRARY, STDLIB, Frame(define, 2, "make"), Frame(caller, 2, "<module>"))),
        LiveBlocks(8 * MiB, 1, "cpu:0", (LIBRARY, Frame(define, 3, "make"), Frame(caller, 2, "<module>"))),
        LiveBlocks(1 * MiB, 1, "gpu0", (LIBRARY, Frame(define, 2, "make"))),
        LiveBlocks(2 * MiB, 3, "cpu:0", (LIBRARY, Frame(caller, 1, "<module>"))),
        LiveBlocks(5 * MiB, 7, "cpu:0", (LIBRARY, STDLIB)),  # no frame of the user's: apart
    )
    sites = group([BlockRecord("jax", blocks, 21 * MiB)], CellNames(ip), "peak", cell=second)
    found = [(s.cell, s.line, s.code, s.bytes, s.blocks, s.library_frames) for s in sites.sites]
    assert found == [
        (first, 3, "y = [0] * n", 8 * MiB, 1, 1),
        (first, 2, "x = list(range(n))", 5 * MiB, 3, 2),  # the deepest library stack of its blocks
        (second, 1, "a = 1", 2 * MiB, 3, 1),
    ]
    assert dict(sites.sites[1].devices) == {"cpu:0": 4 * MiB, "gpu0": 1 * MiB}
    assert (sites.unattributed, sites.unattributed_blocks, sites.total) == (5 * MiB, 7, 21 * MiB)
    assert sites.sites[0].place == f"[{first}] line 3"


def test_the_users_own_file_is_named_by_file_and_line(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import numpy\n\ndef step():\n    h = numpy.zeros(10)  # the activations\n")
    blocks = (LiveBlocks(3 * MiB, 1, "gpu0", (LIBRARY, Frame(str(script), 4, "step"))),)
    sites = group([BlockRecord("torch", blocks, 3 * MiB)], CellNames(numbers={}), "now")
    (site,) = sites.sites
    assert (site.cell, site.file, site.line, site.code) == (None, str(script), 4,
                                                            "h = numpy.zeros(10)  # the activations")
    assert site.place == "train.py line 4"


def test_installed_packages_and_this_package_are_never_the_users():
    ours = Frame(os.path.join(os.path.dirname(sys.modules["mgenv_jupyter"].__file__), "magics.py"), 1, "f")
    blocks = (LiveBlocks(MiB, 1, "cpu:0", (LIBRARY, STDLIB, ours)),)
    sites = group([BlockRecord("jax", blocks, MiB)], CellNames(numbers={}), "now")
    assert sites.sites == () and sites.unattributed == MiB


def test_the_frame_has_one_row_a_site(ip):
    cell, number = _cell_file(ip, "z = 2\n")
    blocks = (LiveBlocks(MiB, 4, "cpu:0", (Frame(cell, 1, "<module>"),)),)
    frame = group([BlockRecord("jax", blocks, MiB)], CellNames(ip), "peak").frame()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns[:5]) == ["cell", "line", "code", "bytes", "blocks"]
    assert frame.iloc[0][["cell", "line", "code", "bytes", "blocks"]].tolist() == [number, 1, "z = 2", MiB, 4]


def test_a_very_long_line_is_cut(ip):
    cell, _ = _cell_file(ip, "s = '" + "x" * 500 + "'\n")
    blocks = (LiveBlocks(MiB, 1, "cpu:0", (Frame(cell, 1, "<module>"),)),)
    (site,) = group([BlockRecord("jax", blocks, MiB)], CellNames(ip), "peak").sites
    assert len(site.code) == 200 and site.code.endswith("…")


def test_unrecorded_frameworks_are_named(ip):
    from mgenv_jupyter.presentation._memtrace import SitesView

    sites = group([], CellNames(ip), "failure", unrecorded=(("paddle", Text("Paddle keeps no stacks", "飞桨不记录")),))
    assert "nothing was recorded" in repr(SitesView(sites, "en"))
    assert "Paddle keeps no stacks" in repr(SitesView(sites, "en"))
    assert "飞桨不记录" in repr(SitesView(sites, "zh"))


def test_memtrace_magic_refuses_bad_input(ip):
    from IPython.core.error import UsageError

    with pytest.raises(UsageError, match="invalid choice: 'maybe'"):
        ip.run_line_magic("memtrace", "maybe")
    with pytest.raises(UsageError, match="no arguments"):
        ip.run_cell_magic("memtrace", "on", "refused_cell_ran = 1")
    with pytest.raises(UsageError, match="unrecognized arguments"):
        ip.run_cell_magic("memtrace", "--fast", "refused_cell_ran = 1")
    assert "refused_cell_ran" not in ip.user_ns
    assert ip.run_line_magic("memtrace", "off").on is False


def test_memtrace_without_a_recording_framework_says_so(ip):
    result = ip.run_cell("%%memtrace\nplain = [0] * 10\n", store_history=True)
    assert result.error_in_exec is None and ip.user_ns["plain"] == [0] * 10
    said = repr(result.result)
    assert "nothing was recorded, so .frame() has no rows" in said
    assert repr(ip.run_line_magic("memtrace", "")) == said  # %memtrace alone: the last recorded cell


def test_an_error_in_a_traced_cell_is_the_cells(ip):
    result = ip.run_cell("%%memtrace\nx = 1\nraise KeyError('mine')\n", store_history=True)
    assert isinstance(result.error_in_exec, KeyError)
