"""A sweep's figure in real JupyterLab and real Chromium: %%envsweep over four points on the simulated GPU (mirror-1gb:
each point's GPU memory is what its cell really allocated), one of which runs out of memory. The live chart draws the
three panels with uPlot (time and peak against the setting, the failed point marked, the budget line, the best point
ringed, each point's memory over time); its words are the session's language (Chinese with JupyterLab's Chinese
pack). Screenshots narrow and wide, light and dark, English and Chinese, under test-artifacts/."""

from __future__ import annotations

import re

import pytest
from layout_checks import set_theme

from lab_server import (
    CHINESE_LAB,
    OOM_SCENARIO,
    OOM_STAND_IN,
    chromium_page,
    open_notebook,
    open_sidebar,
    raise_oom,
    run_cell,
    screenshot,
    set_left_area_width,
    write_notebook,
)

SWEEP = """%%envsweep SWEEP_MB=100,300,oom,600,1200 --repeat 2
if os.environ["SWEEP_MB"] == "oom":
    np.empty(2**50)  # NumPy's MemoryError: out of memory, as the report sees it
x = None  # the last run's array goes before the next one is made
x = np.ones(int(os.environ["SWEEP_MB"]) * 2**17)
time.sleep(0.3)  # each run holds its array for a while: the sampler sees it
"""
CELLS = ["%load_ext mgenv_jupyter", "import os, time\nimport numpy as np", SWEEP]
FIGURE = ".jp-Cell:nth-child(3) .mgenv-sweep-chart"
HAN = re.compile("[\u4e00-\u9fff]")
# Every status line the figure shows, in order, from before the sweep starts.
WATCH_STATUS = """() => {
    window.sweepStatuses = [];
    new MutationObserver(() => {
        const status = document.querySelector('.mgenv-sweep-status')?.textContent;
        if (status && status !== window.sweepStatuses[window.sweepStatuses.length - 1]) {
            window.sweepStatuses.push(status);
        }
    }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def _lab(shared_lab, chinese: bool):
    """A lab of the session's pool on the mirror-1gb GPU, set to 中文 before its page loads where `chinese`."""
    return shared_lab(env={"MGENV_SIMULATE_GPU": "mirror-1gb"}, settings=CHINESE_LAB if chinese else None)


def _shoot(page, language: str) -> None:
    """The figure wide and at 700 px, light and dark."""
    for width in (1400, 700):
        page.set_viewport_size({"width": width, "height": 900})
        for dark in (False, True):
            set_theme(page, dark)
            page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
            page.locator(FIGURE).scroll_into_view_if_needed()
            page.wait_for_function(  # laid out at this width: its panels redrawn for it
                f"() => document.querySelector('{FIGURE} .mgenv-sweep-panels').style.gridTemplateColumns"
                f".startsWith('repeat({3 if width > 1000 else 2},')", timeout=10_000)
            page.locator(FIGURE).screenshot(
                path=str(screenshot(page, f"sweep-{language}-{width}-{'dark' if dark else 'light'}.png")))
    set_theme(page, False)
    page.set_viewport_size({"width": 1400, "height": 900})


@pytest.mark.parametrize("chinese", [False, True], ids=["en", "zh"])
def test_the_sweep_figure_is_drawn_live_and_final(shared_lab, chinese):
    language = "zh" if chinese else "en"
    with _lab(shared_lab, chinese) as lab:
        name = write_notebook(lab, "sweep.ipynb", CELLS)
        with chromium_page() as page:
            open_notebook(page, lab, name)
            page.evaluate("() => { window.jupyterapp.shell.collapseLeft(); window.jupyterapp.shell.collapseRight(); }")
            page.evaluate(WATCH_STATUS)
            for index in range(len(CELLS)):
                run_cell(page, index)
            page.wait_for_selector(f"{FIGURE} canvas", timeout=120_000)
            page.wait_for_function(
                f"() => document.querySelector('{FIGURE}')?.mgenvSweep?.figure?.running === false", timeout=240_000)
            figure = page.evaluate(f"() => document.querySelector('{FIGURE}').mgenvSweep.figure")
            panels = page.evaluate(
                f"() => [...document.querySelectorAll('{FIGURE} .uplot')].map(p => p.dataset.panel)")
            status = page.inner_text(f"{FIGURE} .mgenv-sweep-status")
            titles = page.inner_text(f"{FIGURE} .mgenv-sweep-panels")
            seen = page.evaluate("() => window.sweepStatuses")
            _shoot(page, language)
    assert len(seen) >= 3 and seen[-1] == status  # drawn while the points ran, a new status as each ended
    assert panels == ["time", "peak", "timeline"]
    outcomes = {point["label"]: point["outcome"] for point in figure["points"]}
    # 1200 MiB peaks above the whole 1 GiB card: on it that point would have run out of memory
    assert outcomes == {"100": "ok", "300": "ok", "oom": "oom", "600": "ok", "1200": "oom"}
    assert sum(p["best"] for p in figure["points"]) == 1
    assert figure["peak_kind"] == "device" and figure["simulated"] and figure["budget"] == int(1024**3 * 0.95)
    assert len(figure["timelines"]) == 5  # every point that began its cell, the one that ran out of memory too
    over = [p for p in figure["points"] if p["peak"] and p["peak"] > figure["budget"]]
    assert [p["label"] for p in over] == ["1200"] and not over[0]["best"]
    if chinese:
        assert HAN.search(status) and HAN.search(titles) and "推荐" in status and "模拟" in titles
        assert "recommended" not in status and "Peak" not in titles
    else:
        assert status.startswith("recommended: SWEEP_MB=") and "Peak GPU memory (simulated GPU)" in titles


# ---- the ways into a sweep: they insert a %%envsweep cell and run nothing ---------------------------------------

ENTRY_CELLS = ["%load_ext mgenv_jupyter", OOM_STAND_IN, raise_oom(after_s=1.5)]


def _cells(page) -> list[str]:
    return page.evaluate("() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells"
                         ".map(c => c.getSource())")


def test_try_it_first_and_try_several_values_insert_a_sweep_cell(shared_lab):
    with shared_lab(env={"MGENV_SIMULATE_GPU": str(OOM_SCENARIO)}) as lab:
        name = write_notebook(lab, "entry.ipynb", ENTRY_CELLS)
        with chromium_page() as page:
            open_notebook(page, lab, name)
            for index in range(len(ENTRY_CELLS)):
                run_cell(page, index)
            page.wait_for_selector(".jp-OutputArea .mgenv-oom .mgenv-oom-try", timeout=90_000)
            page.locator(".jp-OutputArea .mgenv-oom .mgenv-oom-remedy").first.scroll_into_view_if_needed()
            screenshot(page, "sweep-try-it-first.png")
            before = len(_cells(page))
            page.locator(".jp-OutputArea .mgenv-oom .mgenv-oom-try").first.click()
            page.wait_for_function(f"() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells"
                                   f".length > {before}", timeout=10_000)
            tried = _cells(page)
            # the sidebar's row: "Try several values…" in its details
            open_sidebar(page)
            page.get_by_label("Search variables").fill("MEGENGINE_DTR_EVICTION_THRESHOLD")
            row = page.locator(".mgenv-sb-row[data-name='MEGENGINE_DTR_EVICTION_THRESHOLD']")
            row.locator(".mgenv-sb-details > summary").click()  # first in the row's details
            row.locator(".mgenv-sb-try").scroll_into_view_if_needed()
            set_left_area_width(page, 320)
            screenshot(page, "sweep-try-several-sidebar.png")
            before = len(_cells(page))
            row.locator(".mgenv-sb-try").click()
            page.wait_for_function(f"() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells"
                                   f".length > {before}", timeout=30_000)
            several = _cells(page)
            prompts = page.evaluate("() => [...document.querySelectorAll('.jp-InputPrompt')].map(p => p.textContent)")
    inserted = [cell for cell in tried if cell.startswith("%%envsweep")]
    assert len(inserted) == 1 and "raise OutOfMemoryError(" in inserted[0]  # the failing cell, to run as a sweep
    assert "PYTORCH_" in inserted[0].splitlines()[0]  # the remedy's variable against its current setting
    sweeps = [cell for cell in several if cell.startswith("%%envsweep MEGENGINE_DTR_EVICTION_THRESHOLD=")]
    assert len(sweeps) == 1 and "GiB" in sweeps[0].splitlines()[0]  # shares of the simulated 40 GiB GPU
    assert sum(1 for p in prompts if "[" in p and any(ch.isdigit() for ch in p)) == len(ENTRY_CELLS)  # nothing ran
