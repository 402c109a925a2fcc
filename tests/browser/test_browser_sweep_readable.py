"""Issue 37's figures in real JupyterLab and Chromium, live and saved: a two-variable grid on host memory (one point
raising, one timing out) and a largest-fit search. Screenshots narrow and wide, light and dark, under
test-artifacts/: the grid's labels fit and differ, the far host budget is a label at the top, the failures are
listed under the panels with their reasons, and the saved SVG reads the same."""

from __future__ import annotations

import json

from layout_checks import set_theme

from lab_server import cell_output, chromium_page, open_notebook, run_cell, screenshot, write_notebook

GRID = """%%envsweep OMP_NUM_THREADS=1,2 MALLOC_ARENA_MAX=1,8 --timeout 4
if os.environ["OMP_NUM_THREADS"] == "2" and os.environ["MALLOC_ARENA_MAX"] == "1":
    raise ValueError("the data loader is empty")
if os.environ["OMP_NUM_THREADS"] == "2" and os.environ["MALLOC_ARENA_MAX"] == "8":
    time.sleep(60)
held = b"1" * (40 * 2**20)
"""
FIT = """%%envsweep FIT_MB=1..300 --largest-fit --budget 250MB --setup none
import os
held = b"1" * (int(os.environ["FIT_MB"]) * 2**20)
"""
SAVED = """from mgenv_jupyter.presentation.sweep import SweepView
import json
print("SVGS", json.dumps([SweepView(grid).svg(), SweepView(mgenv_jupyter.last_sweep()).svg()]))"""
CELLS = ["%load_ext mgenv_jupyter", "import os, time\nimport mgenv_jupyter", GRID,
         "grid = mgenv_jupyter.last_sweep()", FIT, SAVED]
CHART = ".jp-Cell:nth-child({}) .mgenv-sweep-chart"


def _finished(page, cell: int) -> dict:
    selector = CHART.format(cell + 1)
    page.wait_for_function(f"() => document.querySelector('{selector}')?.mgenvSweep?.figure?.running === false",
                           timeout=300_000)
    return page.evaluate(f"() => document.querySelector('{selector}').mgenvSweep.figure")


def test_the_grid_and_the_largest_fit_read_clearly_live_and_saved(shared_lab):
    with shared_lab() as lab:
        name = write_notebook(lab, "readable.ipynb", CELLS)
        with chromium_page() as page:
            open_notebook(page, lab, name)
            page.evaluate("() => { window.jupyterapp.shell.collapseLeft(); window.jupyterapp.shell.collapseRight(); }")
            for index in range(len(CELLS) - 1):
                run_cell(page, index)
            grid = _finished(page, 2)
            fit = _finished(page, 4)
            run_cell(page, len(CELLS) - 1)
            out = cell_output(page, len(CELLS) - 1, "SVGS", timeout=60_000)
            failures = page.inner_text(f"{CHART.format(3)} .mgenv-sweep-failures")
            for width in (1280, 760):
                page.set_viewport_size({"width": width, "height": 900})
                for dark in (False, True):
                    set_theme(page, dark)
                    for cell, what in ((2, "grid"), (4, "fit")):
                        chart = page.locator(CHART.format(cell + 1))
                        chart.scroll_into_view_if_needed()
                        page.wait_for_function(
                            f"() => document.querySelector('{CHART.format(cell + 1)} .mgenv-sweep-panels')"
                            f".style.gridTemplateColumns.startsWith('repeat({3 if width > 1000 else 2},')",
                            timeout=10_000)
                        chart.screenshot(path=str(screenshot(
                            page, f"sweep37-{what}-live-{width}-{'dark' if dark else 'light'}.png")))
            svgs = json.loads(out[out.index("SVGS") + 5:].strip().splitlines()[0])
            for width in (1280, 760):
                page.set_viewport_size({"width": width, "height": 900})
                for dark in (False, True):
                    colors = "background:#111;color:#ddd" if dark else "background:#fff;color:#222"
                    page.set_content(f"<body style='{colors};margin:8px'>{''.join(svgs)}</body>")
                    page.screenshot(path=str(screenshot(
                        page, f"sweep37-saved-{width}-{'dark' if dark else 'light'}.png")),
                        full_page=True)
    labels = [point["label"] for point in grid["points"]]
    assert labels == ["1 · 1", "1 · 8", "2 · 1", "2 · 8"] and grid["axis"] == "OMP_NUM_THREADS × MALLOC_ARENA_MAX"
    assert "ValueError: the data loader is empty" in failures and "past the 4 s limit" in failures
    assert grid["peak_kind"] == "host" and grid["budget"] > 2 * max(p["peak"] or 0 for p in grid["points"])
    assert fit["status"].startswith("largest that fits: FIT_MB=") and len(fit["points"]) <= 9
    assert [p["label"] for p in fit["points"]] == sorted((p["label"] for p in fit["points"]), key=int)
    assert "↑ budget" in svgs[0] and "✕ 2 · 1: error — ValueError: the data loader is empty" in svgs[0]
