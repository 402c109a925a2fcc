"""The sites as a notebook shows them, in English and Chinese: one line a site with its place, code, size and
blocks, the largest first and at most SHOWN of them; what no line of the user's allocated; what %memtrace on|off
did."""

from __future__ import annotations

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.memory._memtrace_sites import Site, Sites
from mgenv_jupyter.presentation._memtrace import SHOWN, MemtraceView, SitesView

MiB = 1 << 20


def _site(cell: int | None, line: int, size: int, blocks: int = 2, depth: int = 3) -> Site:
    return Site(cell, None if cell is not None else "/home/me/train.py", line, f"h{line} = model(x)", "<module>",
                size, blocks, (("gpu0", size),), depth, ("torch",))


def test_one_line_a_site_largest_first():
    sites = Sites((_site(7, 3, 12 * MiB, 340), _site(None, 12, MiB, 1, 0)), "peak", 13 * MiB, frameworks=("torch",))
    lines = SitesView(sites, "en").lines()
    assert lines == ["Where the memory was allocated, at the cell's peak:",
                     "  13 MiB recorded by PyTorch",
                     "  [7] line 3, 12 MiB in 340 blocks (through 3 library frames): h3 = model(x)",
                     "  train.py line 12, 1 MiB in 1 block: h12 = model(x)"]
    chinese = SitesView(sites, "zh").lines()
    assert chinese[0] == "内存分配位置(单元的峰值时刻):"
    assert chinese[2] == "  [7] 行 3,12 MiB,340 个块(经过 3 层库代码):h3 = model(x)"


def test_more_than_shown_and_what_no_line_of_yours_allocated():
    many = tuple(_site(1, line, (100 - line) * MiB) for line in range(SHOWN + 4))
    sites = Sites(many, "failure", 0, unattributed=5 * MiB, unattributed_blocks=9, frameworks=("jax",),
                  unrecorded=(("paddle", Text("Paddle keeps none", "飞桨不记录")),))
    lines = SitesView(sites, "en").lines()
    assert lines[0] == "Where the memory was allocated:"
    assert sum(line.startswith("  [1] line") for line in lines) == SHOWN
    assert "  … 4 more lines (" in "\n".join(lines) and ".frame() lists them all" in lines[-3]
    assert lines[-2] == "  5 MiB in 9 blocks allocated outside your code (no cell or file of yours in the stack)"
    assert lines[-1] == "  Paddle keeps none"
    assert len(SitesView(sites).frame()) == SHOWN + 4
    assert "<div>" in SitesView(sites, "en")._repr_html_()


def test_what_memtrace_on_and_off_say():
    assert "every cell" in repr(MemtraceView(True, {"jax": True, "torch": False}, "en"))
    assert "CPU profiler" in repr(MemtraceView(True, {"torch": False}, "en"))
    assert "no framework that records stacks is loaded" in repr(MemtraceView(True, {}, "en"))
    assert repr(MemtraceView(False, {}, "zh")).startswith("已停止记录")
