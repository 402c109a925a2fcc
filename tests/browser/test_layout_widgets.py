"""The editor widgets as a user sees them, in real JupyterLab and Notebook 7 and real Chromium: DTRWidget,
AllocatorWidget(framework="paddle") and ConfigWidget(framework="ascend") in a 700 px and a 1400 px notebook, in the
light and the dark theme. In every case each input, select and checkbox is visible, at least 48 px wide (checkboxes
excepted) and not covered (the element at its centre is itself); no text is cut off without a tooltip; no control,
slider knob, value readout, name or badge lies over another. One lab serves both front ends; screenshots land in
test-artifacts/ (widgets-<front end>-<width>-<theme>.png)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from layout_checks import clipped_text, overlapping, set_theme, unusable_inputs

from lab_pool import LabPool
from lab_server import ARTIFACTS, chromium_page, open_notebook, run_all_cells_until, write_notebook

NOTEBOOK = "layout-widgets.ipynb"
NOTEBOOK_7 = "layout-widgets-nb7.ipynb"  # its own kernel: widgets shown by another page's kernel are not redrawn
CELLS = [
    "%load_ext mgenv_jupyter\nimport mgenv_jupyter\nmgenv_jupyter.DTRWidget(gpu_total_bytes=16 * 1024**3)",
    "mgenv_jupyter.AllocatorWidget(framework='paddle')",
    "mgenv_jupyter.ConfigWidget(framework='ascend')",
]
WIDGETS = ("dtr", "paddle", "ascend")
THEMES = ("light", "dark")
WIDTHS = (700, 1400)
# What must never lie over something else inside a widget: the inputs, the slider's knob and value, the buttons, and
# the texts next to them (a row's name, badge and edit mark).
PARTS = ("input:not([type=hidden])", "select", "button", ".noUi-handle", ".widget-readout", ".mgenv-name",
         ".mgenv-badge", ".mgenv-edit-mark")


@pytest.fixture(scope="module")
def lab(lab_pool: LabPool) -> Iterator[Any]:
    """One server for JupyterLab (/lab) and Notebook 7 (/notebooks), which exposes its app to tests as the lab does (a
    lab of the session's pool, held by this module)."""
    with lab_pool.lab() as lab:
        write_notebook(lab, NOTEBOOK, CELLS)
        write_notebook(lab, NOTEBOOK_7, CELLS)
        yield lab


def run_widgets(page: Any, lab: Any) -> None:
    """Run every cell and wait for the three widgets; name each one's output for the checks."""
    run_all_cells_until(page, lab, "() => document.querySelectorAll('.mgenv-widget').length === 3")
    page.evaluate("""names => document.querySelectorAll('.mgenv-widget').forEach((widget, i) => {
        widget.closest('.jp-OutputArea-output').dataset.layoutCheck = names[i];
    })""", list(WIDGETS))


@pytest.fixture(scope="module")
def page(lab: Any) -> Iterator[Any]:
    with chromium_page(width=1400, height=1600) as page:  # tall enough for a whole widget in a picture
        open_notebook(page, lab, NOTEBOOK)
        run_widgets(page, lab)
        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        page.evaluate("() => window.jupyterapp.shell.collapseRight()")
        yield page


NOTEBOOK_WIDTH = "() => document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook')" \
                 ".getBoundingClientRect().width"


def set_notebook_width(page: Any, width: int) -> None:
    """Size the window so that the notebook is `width` px wide, as a user with that window sees it."""
    for _ in range(5):
        current = page.evaluate(NOTEBOOK_WIDTH)
        if abs(current - width) < 1:
            return
        page.set_viewport_size({"width": round(page.viewport_size["width"] + width - current),
                                "height": page.viewport_size["height"]})
        page.wait_for_function(f"before => Math.abs(({NOTEBOOK_WIDTH})() - before) >= 1", arg=current)
    raise AssertionError(f"the notebook is {page.evaluate(NOTEBOOK_WIDTH):.0f} px wide, not {width} px")


def settle(page: Any) -> None:
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def problems(page: Any, name: str) -> list[str]:
    root = f"[data-layout-check='{name}']"
    parts = ", ".join(f"{root} {part}" for part in PARTS)
    return [f"{name}: {problem}" for problem in [
        *unusable_inputs(page, root),
        *clipped_text(page, root),
        *overlapping(page, parts),
    ]]


def picture(page: Any, name: str, file: str) -> None:
    """The widget from its top, as much of it as the window shows (the Ascend one is many screens long)."""
    page.evaluate("name => document.querySelector(`[data-layout-check='${name}']`).scrollIntoView({block: 'start'})",
                  name)
    settle(page)
    box = page.locator(f"[data-layout-check='{name}']").bounding_box()
    height = page.viewport_size["height"]
    top = max(box["y"], 0)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / file), clip={
        "x": box["x"], "y": top, "width": box["width"], "height": min(box["y"] + box["height"], height - 24) - top})


def check_all(page: Any, where: str, width: int, theme: str) -> list[str]:
    set_theme(page, dark=theme == "dark")
    settle(page)
    found = []
    for name in WIDGETS:
        picture(page, name, f"widgets-{where}-{name}-{width}-{theme}.png")
        found += problems(page, name)
    return found


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_widgets_layout_in_jupyterlab(page, width, theme):
    started = time.perf_counter()
    set_notebook_width(page, width)
    assert check_all(page, "lab", width, theme) == []
    print(f"widgets {width} px {theme}: {time.perf_counter() - started:.1f} s")


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_widgets_layout_in_notebook_7(page, lab, width, theme):
    if not page.url.split("?")[0].endswith(f"notebooks/{NOTEBOOK_7}"):
        page.set_viewport_size({"width": 1400, "height": 1600})
        page.goto(lab.page_url(f"notebooks/{NOTEBOOK_7}"))
        page.wait_for_function("() => window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel",
                               timeout=60_000)
        page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status"
                               " === 'idle'", timeout=60_000)
        run_widgets(page, lab)
    page.set_viewport_size({"width": width, "height": 1600})
    assert check_all(page, "notebook7", width, theme) == []
