"""The memory chart as a user sees it, inline in a notebook (700 and 1400 px wide) and in the sidebar's memory panel
(280 and 480 px), in the light and the dark theme, and at the narrow sizes in the dark high-contrast one: a simulated
A100 with the DTR threshold and Paddle's first-chunk cap drawn, and cells run in quick succession so that their
markers crowd together. In each case the legend stays inside its panel, no label covers another or the data,
nothing is cut off without a tooltip, every button can be used, and a screenshot lands in test-artifacts/
(chart-<where>-<width>-<theme>.png). One lab and one kernel serve every case."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from layout_checks import clipped_text, overlapping, set_theme, sticking_out, unusable_inputs

from lab_server import (
    chromium_page,
    open_sidebar,
    run_all_cells,
    running_lab,
    screenshot,
    set_left_area_width,
    write_notebook,
)

OVERLAYS = ("%envset MEGENGINE_DTR_EVICTION_THRESHOLD=8GB FLAGS_allocator_strategy=naive_best_fit "
            "FLAGS_fraction_of_gpu_memory_to_use=0.5")
CELLS = ["%load_ext mgenv_jupyter\n" + OVERLAYS, "chart = %memchart\nchart", *["x = 1"] * 5]
INLINE = ".jp-OutputArea-output:has(.mgenv-chart)"
SIDEBAR = ".mgenv-sb-memory"
HIGH_CONTRAST = "JupyterLab Dark High Contrast"


@pytest.fixture(scope="module")
def lab_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One lab, one notebook whose chart has every overlay and a crowd of cell markers, shared by every case."""
    with running_lab(tmp_path_factory.mktemp("layout"), env={"MGENV_SIMULATE_GPU": "a100-40gb"}) as lab:
        name = write_notebook(lab, "layout.ipynb", CELLS)
        with chromium_page(width=1400, height=900) as opened:
            page: Any = opened
            run_all_cells(page, lab, name)
            chart = f"document.querySelector('{INLINE} .mgenv-chart')?.mgenvChart"
            page.wait_for_function(f"() => {chart}?.overlays.length >= 3 && {chart}.markers.length >= 5",
                                   timeout=120_000)
            open_sidebar(page)
            page.wait_for_function("() => document.querySelector('.mgenv-sb-chart').mgenvChart.overlays.length >= 3",
                                   timeout=60_000)
            yield page


NOTEBOOK_WIDTH = "() => document.querySelector('.jp-NotebookPanel').getBoundingClientRect().width"


def apply_theme(page: Any, theme: str) -> None:
    """Light, dark (layout_checks.set_theme) or JupyterLab's dark high-contrast theme."""
    if theme != "high-contrast":
        set_theme(page, dark=theme == "dark")
        return
    page.evaluate("theme => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", HIGH_CONTRAST)
    page.wait_for_function("name => document.body.dataset.jpThemeName === name", arg=HIGH_CONTRAST, timeout=30_000)


def set_notebook_width(page: Any, width: int) -> None:
    """Size the window so that the notebook on screen is `width` px wide (the window is wider by what surrounds the
    notebook: the side bars' tabs), as a user with that window would see it."""
    for _ in range(4):
        current = page.evaluate(NOTEBOOK_WIDTH)
        if abs(current - width) < 1:
            return
        page.set_viewport_size({"width": round(page.viewport_size["width"] + width - current), "height": 900})
        page.wait_for_function(f"before => Math.abs(({NOTEBOOK_WIDTH})() - before) >= 1", arg=current)
    raise AssertionError(f"the notebook is {page.evaluate(NOTEBOOK_WIDTH):.0f} px wide, not {width} px")


FITS_JS = """root => {
    const chart = document.querySelector(`${root} .mgenv-chart`);
    const plot = chart?.querySelector('.uplot');
    return plot ? [plot.offsetWidth, chart.querySelector('.mgenv-chart-plot').clientWidth] : [null, null];
}"""


def settle(page: Any, root: str) -> None:
    """Wait until the chart under `root` fits its box again and has drawn in the current theme."""
    try:
        fits = f"root => {{ const [a, b] = ({FITS_JS})(root); return a !== null && Math.abs(a - b) <= 1; }}"
        page.wait_for_function(fits, arg=root, timeout=30_000)
    except Exception as exc:
        raise AssertionError(f"the chart does not fit its box: {page.evaluate(FITS_JS, root)}") from exc
    # JupyterLab covers the page with its splash while a theme loads; then two frames, for the coalesced redraw.
    page.wait_for_selector("#jupyterlab-splash", state="detached", timeout=30_000)
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def layout_problems(page: Any, root: str) -> list[str]:
    chart = f"{root} .mgenv-chart"
    labels = f"{chart} .mgenv-chart-overlay-label, {chart} .mgenv-chart-marker-label"
    return [
        *sticking_out(page, ".mgenv-chart-legend", root),
        *sticking_out(page, ".mgenv-chart-overlay-label, .mgenv-chart-marker-label", chart),
        # Labels apart from each other and from the plotting area, where the data is.
        *overlapping(page, f"{labels}, {chart} .u-over"),
        *clipped_text(page, chart),
        *unusable_inputs(page, chart),
    ]


def label_counts(page: Any, root: str) -> dict[str, int]:
    return page.evaluate(
        """root => ({
            overlays: document.querySelectorAll(`${root} .mgenv-chart-overlay-label`).length,
            markers: document.querySelectorAll(`${root} .mgenv-chart-marker-label`).length,
            legendOverlays: document.querySelectorAll(`${root} .mgenv-chart-legend-overlay`).length,
        })""", root)


@pytest.mark.parametrize(("width", "theme"), [(700, "light"), (700, "dark"), (700, "high-contrast"),
                                              (1400, "light"), (1400, "dark")])
def test_inline_chart_layout(lab_page, width, theme):
    page = lab_page
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    set_notebook_width(page, width)
    page.locator(f"{INLINE} .mgenv-chart").scroll_into_view_if_needed()
    apply_theme(page, theme)
    settle(page, INLINE)
    page.locator(INLINE).screenshot(path=str(screenshot(page, f"chart-inline-{width}-{theme}.png")))
    assert layout_problems(page, INLINE) == []
    counts = label_counts(page, INLINE)
    assert counts["overlays"] == 3 and counts["legendOverlays"] == 3  # total, DTR, Paddle: drawn and listed
    assert 1 <= counts["markers"] < 6  # six cells ran within a few seconds: close markers share a label


@pytest.mark.parametrize(("width", "theme"), [(280, "light"), (280, "dark"), (280, "high-contrast"),
                                              (480, "light"), (480, "dark")])
def test_sidebar_chart_layout(lab_page, width, theme):
    page = lab_page
    page.set_viewport_size({"width": 1400, "height": 900})
    page.evaluate("() => window.jupyterapp.shell.expandLeft()")
    page.wait_for_selector(SIDEBAR, state="visible")
    set_left_area_width(page, width)
    apply_theme(page, theme)
    page.locator(SIDEBAR).scroll_into_view_if_needed()
    settle(page, SIDEBAR)
    page.locator(SIDEBAR).screenshot(path=str(screenshot(page, f"chart-sidebar-{width}-{theme}.png")))
    assert layout_problems(page, SIDEBAR) == []
    assert label_counts(page, SIDEBAR)["overlays"] == 3
    # The time axis counts from the kernel's start, in seconds or minutes: never a date, cut off or not.
    ticks = page.evaluate("() => document.querySelector('.mgenv-sb-chart').mgenvChart.timeTicks")
    assert len(ticks) >= 2 and all(re.fullmatch(r"(\d+h)?(\d+m)?(\d+(\.\d+)?s)?", t) for t in ticks), ticks


def test_legend_rows_toggle_lines_and_hover_gives_the_wall_clock(lab_page):
    page = lab_page
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    set_notebook_width(page, 1400)
    chart = page.locator(f"{INLINE} .mgenv-chart")
    chart.scroll_into_view_if_needed()
    set_theme(page, dark=False)
    settle(page, INLINE)
    dtr = chart.get_by_role("button", name=re.compile("DTR eviction threshold"))
    dtr.click()
    page.wait_for_function(f"() => document.querySelectorAll('{INLINE} .mgenv-chart-overlay-label').length === 2")
    assert dtr.get_attribute("aria-pressed") == "false"
    dtr.click()
    page.wait_for_function(f"() => document.querySelectorAll('{INLINE} .mgenv-chart-overlay-label').length === 3")
    # Hovering the plot gives the wall-clock time under the cursor and the values there.
    chart.locator(".u-over").scroll_into_view_if_needed()
    box = chart.locator(".u-over").bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2, steps=5)
    hover = chart.locator(".mgenv-chart-cursor-time")
    try:
        hover.wait_for(state="visible", timeout=10_000)
    except Exception:
        screenshot(page, "chart-inline-hover-failed.png")
        raise
    text = hover.inner_text()
    heading = chart.locator(".mgenv-chart-legend-head .mgenv-chart-legend-now").inner_text()
    page.locator(INLINE).screenshot(path=str(screenshot(page, "chart-inline-hover.png")))
    page.mouse.move(1, 1)
    assert re.fullmatch(r"\d\d:\d\d:\d\d\.\d \(\S+ since start\)", text), text
    assert heading.startswith("at ")
    assert overlapping(page, f"{INLINE} .mgenv-chart-cursor-time, {INLINE} .u-over") == []
