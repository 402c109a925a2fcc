"""The widgets rendered and edited in JupyterLab in real Chromium: a user types a threshold, picks GB, presses Apply,
and the kernel has the bytes; a %envset in a later cell shows up in the widget."""

from __future__ import annotations

from lab_server import chromium_page, run_all_cells, run_cell, screenshot, write_notebook

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"


def test_dtr_widget_in_jupyterlab(shared_lab):
    with shared_lab() as lab:
        write_notebook(lab, "widgets.ipynb", [
            ("%load_ext mgenv_jupyter\nimport mgenv_jupyter, os\n"
                                      "dtr = mgenv_jupyter.DTRWidget(gpu_total_bytes=16 * 1024**3)\ndtr"),
            (f"print('kernel sees', os.environ.get('{THRESHOLD}'))"),
            (f"%envset {THRESHOLD}=2GB"),
        ])
        with chromium_page() as page:
            run_all_cells(page, lab, "widgets.ipynb")
            page.wait_for_selector(".mgenv-widget", timeout=60_000)
            page.wait_for_selector(".jp-OutputArea-output:has-text('2147483648')", timeout=60_000)  # the %envset cell
            row = page.locator(f".widget-hbox:has(label:text-is('{THRESHOLD}'))").first
            number = row.locator("input[type=number]")
            page.wait_for_function(
                f"() => [...document.querySelectorAll('.widget-hbox')].some(b => b.textContent.includes('{THRESHOLD}')"
                " && b.querySelector('input[type=number]') && b.querySelector('input[type=number]').value === '2')",
                timeout=30_000)  # the %envset in a later cell reached the widget
            number.fill("4")
            number.press("Tab")
            row.locator("select").select_option("GiB")
            page.get_by_role("button", name="Apply").first.click()
            page.wait_for_selector(".mgenv-widget :text('4 GiB')", timeout=30_000)
            run_cell(page, 1)
            page.wait_for_selector("text=kernel sees 4294967296", timeout=30_000)
            screenshot(page, "dtr-widget-in-jupyterlab.png")
            page.locator(".mgenv-widget").first.screenshot(path=str(screenshot(page, "dtr-widget.png")))
