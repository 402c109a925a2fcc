"""A memory chart shown in a notebook comes back live, with its history, each time the page is loaded again while the
kernel runs (issue 36, point 3), in JupyterLab and in Notebook 7, in real Chromium.

One notebook (`chart = %memchart`), run and saved; then the same page is loaded again RELOADS times. Each time its
chart must draw the kernel's live readings (the picture a saved notebook carries gives way to the live chart) and
hold the readings from before the reload: what the kernel sends in answer to the chart's hello. A chart that only
got the batches after the reload, or that stayed a picture, fails that reload; every reload is tried and the failures
are listed together.

The same kernel's chart is reloaded in JupyterLab, then in Notebook 7 (one server, one page). Screenshots of the chart
after each app's last reload: test-artifacts/chart-reload-<app>-<width>-<theme>.png."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from layout_checks import clipped_text, set_theme

from lab_server import chromium_page, execute_command, open_notebook, run_cell, screenshot, write_notebook

NOTEBOOK = "reloaded.ipynb"
CELLS = ["%load_ext mgenv_jupyter", "chart = %memchart\nchart"]
CHART = ".jp-Notebook .jp-Cell:nth-child(2) .jp-OutputArea .mgenv-chart"
LIVE = f"document.querySelector('{CHART}')?.mgenvChart"
# Before the fix (mgenv_jupyter/comms/_routing.py) 8 of 30 reloads in JupyterLab and 4 of 10 in Notebook 7 lost the
# history here: ten reloads in each pass on that code with a chance of about 0.73**10 * 0.6**10 < 0.1 %.
RELOADS = 10
# Each app's chart after its last reload, at one width and theme each: narrow and wide, light and dark, both apps.
LOOKS = {"lab": ((1280, "light"), (800, "dark")), "notebook": ((800, "light"), (1280, "dark"))}
# An answered hello brings the history within a second or two; a chart that is live this long without it does not get
# it (chart/widget.ts says its hello once more when the first batch arrives, then no more).
HISTORY_WAIT_S = 15


def chart_state(page: Any) -> dict | None:
    """The chart on the page: how many readings it holds, the oldest and the newest reading's time (seconds since the
    epoch, the kernel's clock)."""
    return page.evaluate(f"""() => {{
        const live = {LIVE};
        if (!live || !live.store.length) return null;
        const times = live.store.times;
        return {{length: times.length, oldest: times[0], newest: times[times.length - 1]}};
    }}""")


def wait_for_chart(page: Any, condition: str, arg: Any, timeout_s: float) -> bool:
    """Wait until `condition` (a JavaScript expression of `live`, the chart, and `arg`) holds; False on timeout."""
    try:
        page.wait_for_function(
            f"arg => {{ const live = {LIVE}; return !!live && live.store.length > 0 && ({condition}); }}",
            arg=arg, timeout=timeout_s * 1000)
    except Exception:  # Playwright's TimeoutError: what the chart holds then is the test's finding
        return False
    return True


def reload_until_live(page: Any, oldest: float) -> str | None:
    """Load the page again; None when its chart is live and reaches back to `oldest`, else what was wrong."""
    execute_command(page, "docmanager:save")  # the page restores its outputs (and the chart's model id) from the file
    reloaded_at = time.time()
    page.reload()
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    # live: readings newer than the reload arrive (a chart of the saved picture's moment has none)
    if not wait_for_chart(page, "live.store.times[live.store.length - 1] > arg", reloaded_at + 1, 60):
        return f"not live: {chart_state(page)}"
    if not wait_for_chart(page, "live.store.times[0] <= arg", oldest + 0.5, HISTORY_WAIT_S):
        state = chart_state(page)
        return f"live without its history (oldest reading {state and state['oldest'] - oldest:+.1f} s from before)"
    return None


def test_a_reloaded_chart_comes_back_live_with_its_history_every_time(shared_lab):
    with shared_lab() as lab, chromium_page(1280, 900) as page:
        write_notebook(lab, NOTEBOOK, CELLS)
        open_notebook(page, lab, NOTEBOOK)
        run_cell(page, 0)
        run_cell(page, 1)
        assert wait_for_chart(page, "live.store.length > 20", None, 60), chart_state(page)
        oldest = chart_state(page)["oldest"]
        failures, problems = {}, {}
        for app in ("lab", "notebook"):  # the same kernel's chart, in JupyterLab, then in Notebook 7
            if app == "notebook":
                execute_command(page, "docmanager:save")
                open_notebook(page, replace(lab, app=app), NOTEBOOK)
            for reload in range(1, RELOADS + 1):
                failure = reload_until_live(page, oldest)
                if failure:
                    failures[f"{app} {reload}"] = failure
            for width, theme in LOOKS[app]:
                page.set_viewport_size({"width": width, "height": 900})
                set_theme(page, dark=theme == "dark")
                page.locator(CHART).scroll_into_view_if_needed()
                page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
                page.locator(CHART).screenshot(path=str(screenshot(page, f"chart-reload-{app}-{width}-{theme}.png")))
                problems[f"{app} {width}-{theme}"] = clipped_text(page, CHART)
    assert not failures, f"{len(failures)} of {2 * RELOADS} reloads: {failures}"
    assert not any(problems.values()), problems
