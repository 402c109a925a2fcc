"""A size setting in the one notation of sizes where a user sees it, in real JupyterLab and real Chromium (issue 29,
point 8): the Framework Env panel's size editor and its default line, with the panel at 250 px, and in the notebook
at 1000 and 1280 px the DTR widget's rows, %envset's report and %envget's view; light and dark, in English and with
JupyterLab set to 中文 (the kernel follows the front end's language). The threshold set to 5 GiB reads 5 GiB in the
editor and the report; MegEngine's evictee minimum, not set, reads "default: 1 MiB" ("默认值:1 MiB"), never
1048576, which the framework reads and which stays on hover. Each picture is taken, then checked by eye, in
test-artifacts/: sizes-<language>-<width>-<theme>.png (the window at the widget), sizes-<language>-outputs-<width>-
<theme>.png (at %envset's and %envget's outputs) and sizes-<language>-panel-<threshold|minimum>-<width>-<theme>.png
(the panel, at each row)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from layout_checks import clipped_text, set_theme, unusable_inputs

from lab_server import (
    chromium_page,
    open_notebook,
    run_cell,
    running_lab,
    screenshot,
    set_left_area_width,
    write_notebook,
)

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"
MINIMUM = "MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE"  # MegEngine's default: 1048576 bytes
CELLS = [
    f"%load_ext mgenv_jupyter\n%envset {THRESHOLD}=5GB",
    f"%envget {MINIMUM}",
    "import mgenv_jupyter\nmgenv_jupyter.DTRWidget(gpu_total_bytes=16 * 1024**3)",
]
OUTPUT = ".jp-Notebook .jp-Cell:nth-child({}) .jp-OutputArea"
PANEL = ".mgenv-sb"
# What each language calls the default, as the panel and the widget write it (the catalogs' own words).
DEFAULT = {"en": ("default: 1 MiB", "default: 1 MiB"), "zh": ("默认值:1 MiB", "默认值: 1 MiB")}

# The two rows as drawn: each editor's box and unit, its placeholder, the default line and its tooltip.
ROWS_JS = """names => names.map(name => {
    const row = document.querySelector(`.mgenv-sb-row[data-name='${name}']`);
    const box = row.querySelector(`[aria-label='${name}']`);
    const unit = row.querySelector(`[aria-label='${name} unit']`);
    const byDefault = row.querySelector('.mgenv-sb-default');
    return {value: box.value, placeholder: box.placeholder, unit: unit.value,
            default: byDefault.textContent, title: byDefault.title};
})"""


# A row's editor and its default line brought to the middle of the panel.
SCROLL_TO_JS = """name => document.querySelector(`.mgenv-sb-row[data-name='${name}'] .mgenv-sb-default`)
    .scrollIntoView({block: 'center'})"""


def lab_in(tmp_path: Any, language: str) -> Any:
    if language == "zh":
        settings = tmp_path / "settings" / "@jupyterlab" / "translation-extension" / "plugin.jupyterlab-settings"
        settings.parent.mkdir(parents=True)
        settings.write_text(json.dumps({"locale": "zh_CN"}))
    return running_lab(tmp_path)


def show_both_rows(page: Any) -> None:
    """The panel's search box narrowed to the two DTR sizes, as a user finds them."""
    page.locator(f"{PANEL} .mgenv-sb-search").fill("DTR_EVICT")
    for name in (THRESHOLD, MINIMUM):
        page.wait_for_selector(f"{PANEL} .mgenv-sb-row[data-name='{name}']", state="visible", timeout=10_000)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_size_and_its_default_read_alike_in_the_panel_and_the_notebook(tmp_path, language):
    panel_default, widget_default = DEFAULT[language]
    shots: dict[str, dict[str, Any]] = {}
    with lab_in(tmp_path, language) as lab, chromium_page(width=1280, height=900) as page:
        write_notebook(lab, "sizes.ipynb", CELLS)
        open_notebook(page, lab, "sizes.ipynb")
        # The panel opened before the cells run: the kernel learns the front end's language from it. (Its tab is
        # titled in the UI's language, so it is opened by its id.)
        page.evaluate("() => window.jupyterapp.shell.activateById('mgenv-jupyter-sidebar')")
        page.wait_for_selector(f"{PANEL}-config[data-connection='ready'] .mgenv-sb-row", timeout=60_000)
        for index in range(len(CELLS)):
            run_cell(page, index)
        page.wait_for_selector(f"{OUTPUT.format(3)} .mgenv-widget", timeout=60_000)
        page.wait_for_selector(f"{OUTPUT.format(2)} .mgenv-view", timeout=60_000)
        show_both_rows(page)
        page.wait_for_function("name => document.querySelector(`[aria-label='${name}']`)?.value === '5'",
                               arg=THRESHOLD, timeout=30_000)
        rows = page.evaluate(ROWS_JS, [THRESHOLD, MINIMUM])
        envset, envget = page.inner_text(OUTPUT.format(1)), page.inner_text(OUTPUT.format(2))
        widget = page.inner_text(OUTPUT.format(3))
        for width in (1280, 1000):
            page.set_viewport_size({"width": width, "height": 900})
            page.evaluate("() => window.jupyterapp.shell.expandLeft()")
            set_left_area_width(page, 250)
            page.locator(OUTPUT.format(3)).scroll_into_view_if_needed()
            for theme in ("light", "dark"):
                set_theme(page, dark=theme == "dark")
                screenshot(page, f"sizes-{language}-{width}-{theme}.png")
                page.locator(OUTPUT.format(1)).scroll_into_view_if_needed()  # %envset's report and %envget's view
                screenshot(page, f"sizes-{language}-outputs-{width}-{theme}.png")
                page.locator(OUTPUT.format(3)).scroll_into_view_if_needed()
                for short, name in (("threshold", THRESHOLD), ("minimum", MINIMUM)):  # each editor and default line
                    page.evaluate(SCROLL_TO_JS, name)
                    page.locator("#jp-left-stack").screenshot(
                        path=str(screenshot(page, f"sizes-{language}-panel-{short}-{width}-{theme}.png")))
                shots[f"{width}-{theme}"] = {
                    "clipped": clipped_text(page, f"{PANEL} .mgenv-sb-row:not([hidden])"),
                    "unusable": unusable_inputs(page, f"{PANEL} .mgenv-sb-row:not([hidden])"),
                }
    threshold, minimum = rows
    assert (threshold["value"], threshold["unit"]) == ("5", "GiB")  # the kernel's 5368709120 bytes
    assert (minimum["value"], minimum["placeholder"], minimum["unit"]) == ("", "1", "MiB")  # not set: the default
    assert (minimum["default"], minimum["title"]) == (panel_default, "1048576")
    assert threshold["title"] == "0"  # the threshold's own default, 0 B, likewise
    assert "5 GiB" in envset and "5368709120" in envset  # the value as a size, and the plain number in the note
    raw = widget_default.replace("1 MiB", "1048576")  # the default line as it read before (the live call keeps it)
    assert widget_default in envget and raw not in envget, envget
    assert widget_default in widget and raw not in widget, widget
    for look, problems in shots.items():
        assert problems == {"clipped": [], "unusable": []}, (look, problems)
