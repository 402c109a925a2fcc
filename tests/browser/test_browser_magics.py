"""The magics in JupyterLab in real Chromium: a user runs a notebook and reads what %envset, %envlist and %envdiff
say, in a 700 px notebook and a wide one, light and dark: left-aligned rows, code shown as code, the tables inside
the notebook's column (a wide table scrolls in its own box), nothing cut off without a tooltip."""

from __future__ import annotations

import pytest
from layout_checks import clipped_text, set_theme, sticking_out

from lab_server import chromium_page, run_all_cells, screenshot, write_notebook

CELLS = [
    "%load_ext mgenv_jupyter",
    "%envset MEGENGINE_DTR_EVICTION_THRESHOLD=5GB FLAGS_allocator_strategy=auto_growth",
    "%envlist megengine",
    "%envdiff",
]
OUTPUTS = ".jp-OutputArea-output"


@pytest.mark.parametrize(("width", "dark"), [(700, False), (1400, True)])
def test_envset_envlist_and_envdiff_read_well_in_jupyterlab(shared_lab, width, dark):
    with shared_lab() as lab:
        write_notebook(lab, "magics.ipynb", CELLS)
        with chromium_page(width=width, height=1400) as page:
            run_all_cells(page, lab, "magics.ipynb")
            page.evaluate("() => window.jupyterapp.shell.collapseLeft()")  # the notebook gets the window's width
            page.wait_for_selector(f"{OUTPUTS} .mgenv-report", timeout=60_000)
            page.wait_for_selector(f"{OUTPUTS} table.mgenv-table >> nth=1", timeout=60_000)
            set_theme(page, dark)
            text = page.inner_text(".jp-Notebook")
            aligned = page.eval_on_selector_all(f"{OUTPUTS} table.mgenv-table td",
                                                "cells => [...new Set(cells.map(c => getComputedStyle(c).textAlign))]")
            code = page.eval_on_selector_all(f"{OUTPUTS} .mgenv-report code",
                                             "nodes => nodes.map(n => n.textContent)")
            outside = sticking_out(page, ".mgenv-table-wrap, .mgenv-change", ".jp-OutputArea-output")
            clipped = clipped_text(page, ".jp-OutputArea")
            screenshot(page, f"magics-{width}-{'dark' if dark else 'light'}.png")
    assert "takes effect at import" in text and "5368709120" in text
    assert aligned == ["left"]  # JupyterLab right-aligns table cells; ours read from the left
    assert "import megengine" in code and "`" not in text  # code as code, not backticks
    assert outside == [] and clipped == []
    assert "NaN" not in text and "NaT" not in text
