"""The demo's tables as a newcomer reads them, in real JupyterLab and real Chromium at 700 and 1400 px (light and
dark): demo.ipynb run top to bottom, then `%envdiff` lists only what the demo itself changed (ipykernel's CLICOLOR,
MPLBACKEND... only with `--all`), and `chart.history.tail()` and `chart.per_cell()` show sizes in binary units,
times to the millisecond, and neither NaN nor a float's "e+09". Screenshots are kept under test-artifacts/.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from layout_checks import clipped_text, set_theme, sticking_out

from lab_server import ROOT, chromium_page, run_all_cells, screenshot

EXTRA = "%envdiff --all"  # appended: what the kernel's start-up changed too
START_UP = ("CLICOLOR", "MPLBACKEND", "GIT_PAGER", "FORCE_COLOR")

# JupyterLab renders only the cells near the viewport: each cell is scrolled to (as a reader would), then read.
SHOW_JS = """async source => {
    const notebook = window.jupyterapp.shell.currentWidget.content;
    const index = notebook.widgets.findIndex(cell => cell.model.sharedModel.getSource().trim() === source);
    const frames = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    // Heights of cells not rendered yet are estimates: scroll, let the cells in view render, and scroll again,
    // until a scroll leaves the cell where the one before it did (at most 20 rounds).
    let top = null;
    for (let i = 0; i < 20 && index >= 0; i++) {
        await notebook.scrollToItem(index, 'start');
        await frames();
        notebook.widgets[index].node.scrollIntoView({block: 'start'});
        await frames();
        const now = notebook.widgets[index].node.getBoundingClientRect().top;
        if (top !== null && Math.abs(now - top) < 1) break;
        top = now;
    }
    return index;
}"""
OUTPUT_JS = """index => window.jupyterapp.shell.currentWidget.content.widgets[index].outputArea.node.innerText"""


def show(page, source: str) -> str:
    """Scroll the cell whose text is `source` to the top and return its output's text once it has one."""
    index = page.evaluate(SHOW_JS, source)
    assert index >= 0, source
    page.wait_for_function(f"() => ({OUTPUT_JS})({index}).trim() !== ''", timeout=30_000)
    return page.evaluate(OUTPUT_JS, index)


@pytest.mark.parametrize(("width", "dark"), [(700, False), (1400, True)])
def test_the_demos_tables_read_like_the_rest(shared_lab, width, dark):
    theme = "dark" if dark else "light"
    with shared_lab() as lab:
        nb = nbformat.read(ROOT / "demo.ipynb", as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell(EXTRA))
        nbformat.write(nb, lab.root / "demo.ipynb")
        with chromium_page(width=width, height=1000) as page:
            run_all_cells(page, lab, "demo.ipynb")
            page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
            page.wait_for_function(  # the last cell (appended) has run: every cell before it has
                "() => window.jupyterapp.shell.currentWidget.content.widgets.at(-1).model.executionCount !== null",
                timeout=300_000)
            set_theme(page, dark)
            outputs, problems = {}, []
            for source, name in (("%envdiff", "envdiff"), (EXTRA, "envdiff-all"),
                                 ("chart.history.tail()", "history-tail"), ("chart.per_cell()", "per-cell")):
                outputs[source] = show(page, source)
                problems += clipped_text(page, ".jp-OutputArea") + sticking_out(page, ".mgenv-table-wrap",
                                                                                ".jp-OutputArea-output")
                screenshot(page, f"demo-{name}-{width}-{theme}.png")

    diff, everything = outputs["%envdiff"], outputs[EXTRA]
    assert "MEGENGINE_DTR_EVICTION_THRESHOLD" in diff and "FLAGS_allocator_strategy" in diff
    assert not [name for name in START_UP if re.search(rf"\b{name}\b", diff)], diff
    assert "MPLBACKEND" in everything and "only with --all" in everything
    for source in ("chart.history.tail()", "chart.per_cell()"):
        table = outputs[source]
        assert "GiB" in table or "MiB" in table, table
        assert "NaN" not in table and "e+0" not in table and "<NA>" not in table, table
    assert re.search(r"\d\d:\d\d:\d\d\.\d{3}(?!\d)", outputs["chart.history.tail()"])  # to the millisecond
    # per_cell() shows the eight columns its frame names, to fit beside the sidebar; the rest are named under it
    assert "2 more columns in the DataFrame: series, start" in outputs["chart.per_cell()"]
    assert problems == []
