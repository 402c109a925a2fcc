"""Out-of-memory forensics end to end in real JupyterLab and real Chromium (issue 12): a cell fails with PyTorch's
out-of-memory error while the simulated GPU climbs to its limit (tests/data/oom/fragmentation.json); the traceback
stays, the report appears under it with the timeline and the remedies as buttons; a click on the first one
(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; PyTorch is not loaded: the kernel says it takes effect at first use)
goes to the kernel as the sidebar's own JSON "set" request and shows up in a later cell's %envdiff, in the sidebar and
in the notebook profile. Where the remedy needs a restart (PyTorch loaded with CUDA initialised, another process
holding the GPU: tests/data/oom/other_process.json), the report's "Restart and apply" brings it into a new kernel.
The report's timeline is drawn by the memory chart component (the failing cell's series, its marker, the earlier
cells' peaks and the device total as labelled lines, binary units). The report is checked for usable buttons, text
that is not cut off, and the chart's labels inside it and apart, at 1400 and 700 px wide, light and dark; screenshots
are kept under test-artifacts/.

The error is a stand-in with PyTorch's class name and wording, raised without a GPU (tests/lab_server.py's
out-of-memory scenario, as tests/kernel/test_oom_kernel.py does): what the hook recognises is the class and the message.
"""

from __future__ import annotations

import json
import re

import pytest
from layout_checks import clipped_text, other_looks, overlapping, sticking_out, unusable_inputs

from lab_server import (
    OOM_SCENARIO,
    OOM_STAND_IN,
    RESTART_QUESTION,
    ROOT,
    cell_output,
    chromium_page,
    open_and_run,
    open_sidebar,
    raise_oom,
    run_cell,
    screenshot,
    wait_for_saved_profile,
    write_notebook,
)

NAME, VALUE = "PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"
REPORT = ".jp-Cell:nth-child(3) .mgenv-oom"
APPLY = f"{REPORT} .mgenv-oom-remedy:first-child .mgenv-oom-apply"
OUTCOME = f"{REPORT} .mgenv-oom-remedy:first-child .mgenv-oom-outcome"
CHART = f"{REPORT} .mgenv-oom-timeline .mgenv-oom-chart"
SERIES = "gpu0 (simulated) process"

# What the report's chart draws, read from the chart component itself (the canvas has no text to select).
CHART_JS = """chart => {
    const box = document.querySelector(chart);
    const live = box?.mgenvChart;
    if (!live) return null;
    const texts = selector => [...box.querySelectorAll(selector)].map(e => e.textContent);
    return {
        isChart: box.classList.contains('mgenv-chart'),
        canvas: box.querySelector('.uplot canvas')?.width ?? 0,
        series: live.store.series.map(s => s.key),
        samples: live.store.length,
        overlays: live.overlays.map(o => [o.kind, o.short, o.bytes]),
        markers: live.markers.map(m => [m.cell, m.ok]),
        yTicks: (live._plot?.axes[1]._values ?? []).map(String),
        gutter: texts('.mgenv-chart-overlay-label'),
        markerLabels: texts('.mgenv-chart-marker-label'),
        legend: texts('.mgenv-chart-legend-item .mgenv-chart-legend-name'),
        caption: texts('.mgenv-chart-legend-caption'),
    };
}"""


def settle_chart(page) -> None:
    """Wait until the report's chart fits its box again (after a resize) and has redrawn (after a theme change)."""
    page.wait_for_function("""chart => {
        const box = document.querySelector(chart);
        const plot = box?.querySelector('.uplot');
        return !!plot && Math.abs(plot.offsetWidth - box.querySelector('.mgenv-chart-plot').clientWidth) <= 1;
    }""", arg=CHART, timeout=30_000)
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def layout_problems(page) -> list[str]:
    page.locator(REPORT).scroll_into_view_if_needed()
    settle_chart(page)
    labels = f"{CHART} .mgenv-chart-overlay-label, {CHART} .mgenv-chart-marker-label"
    return (unusable_inputs(page, REPORT) + clipped_text(page, REPORT)
            + sticking_out(page, ".mgenv-oom-remedy *", REPORT)
            # The chart inside the report; its labels inside the chart, apart from each other and from the data.
            + sticking_out(page, ".mgenv-oom-chart, .mgenv-chart-legend, .uplot", REPORT)
            + sticking_out(page, ".mgenv-chart-overlay-label, .mgenv-chart-marker-label", CHART)
            + overlapping(page, f"{labels}, {CHART} .u-over"))


def shoot(page, name: str) -> None:
    """The page as a user sees it: at the remedies, then at the timeline's chart (the report is taller than the
    window)."""
    screenshot(page, name)
    page.locator(f"{REPORT} .mgenv-oom-timeline").scroll_into_view_if_needed()
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    screenshot(page, name.replace(".png", "-timeline.png"))


def test_a_click_on_the_first_remedy_sets_it_in_the_kernel_the_sidebar_and_the_profile(shared_lab):
    with shared_lab(env={"MGENV_SIMULATE_GPU": str(OOM_SCENARIO)}) as lab:
        name = write_notebook(lab, "oom.ipynb", [
            "%load_ext mgenv_jupyter\nmarker = 'old kernel'",
            # The stand-in class is made a cell before: a cell naming a framework not imported yet pauses the
            # recorder (oom/_hook.py), and the failing cell is to be recorded as a user's would be.
            OOM_STAND_IN,
            raise_oom(after_s=3.5),
            "%envdiff",
            f"import os\nprint('fresh:', 'marker' not in globals(), '|', os.environ.get('{NAME}'))",
        ])
        problems: dict[str, list[str]] = {}
        with chromium_page() as page:
            open_and_run(page, lab, name, 3, until=APPLY)  # the third cell fails; its report shows its buttons
            failing = page.inner_text(".jp-Cell:nth-child(3) .jp-OutputArea")
            report = page.inner_text(REPORT)
            buttons = page.locator(f"{REPORT} .mgenv-oom-apply").all_inner_texts()
            # The rendered report is the only display: the text/html fallback is not shown beside it.
            displays = page.locator(".jp-Cell:nth-child(3) .jp-OutputArea-output").count()
            problems["1400-light"] = layout_problems(page)
            chart = page.evaluate(CHART_JS, CHART)
            shoot(page, "oom-report-1400-light.png")

            page.locator(APPLY).click()
            page.wait_for_selector(f"{OUTCOME}:is([data-state='restart'], [data-state='applied'], "
                                   "[data-state='error'])", timeout=60_000)
            outcome = page.inner_text(OUTCOME)
            assert page.get_attribute(OUTCOME, "data-state") == "applied", outcome
            applied_label = page.inner_text(APPLY)
            problems["1400-light-applied"] = layout_problems(page)
            shoot(page, "oom-report-applied-1400-light.png")
            charts = {}

            def look(name: str) -> list[str]:
                found = layout_problems(page)
                charts[name] = page.evaluate(CHART_JS, CHART)
                shoot(page, f"oom-report-applied-{name}.png")
                return found

            problems.update(other_looks(page, look))
            narrow = charts["700-dark"]

            run_cell(page, 3)
            envdiff = cell_output(page, 3, NAME)
            open_sidebar(page)
            page.wait_for_selector(f".mgenv-sb-row[data-name='{NAME}'].mgenv-sb-set", timeout=30_000)
            page.wait_for_selector(f".mgenv-sb-profile :text('{NAME}={VALUE}')", timeout=30_000)
            page.locator(".mgenv-sb-history > summary").click()
            page.wait_for_selector(f".mgenv-sb-history-list :text('{NAME}')", timeout=30_000)
            history = page.inner_text(".mgenv-sb-history-list")
            page.locator(".mgenv-sb-oom .mgenv-oom-headline").click()  # the card unfolds from its headline
            panel_report = page.inner_text(".mgenv-sb-oom")
            panel_button = page.inner_text(".mgenv-sb-oom .mgenv-oom-apply")  # the kernel holds its values
            page.locator(".mgenv-sb-oom").scroll_into_view_if_needed()
            problems["sidebar"] = (unusable_inputs(page, ".mgenv-sb-oom") + clipped_text(page, ".mgenv-sb-oom")
                                   + sticking_out(page, ".mgenv-sb-oom *", ".mgenv-sb"))
            screenshot(page, "oom-report-sidebar-section.png")
            page.locator(f".mgenv-sb-row[data-name='{NAME}']").scroll_into_view_if_needed()
            screenshot(page, "oom-report-sidebar.png")
            page.keyboard.press("Control+s")
            saved = wait_for_saved_profile(lab.root / name)

    assert "Traceback" in failing and "OutOfMemoryError" in failing  # the normal traceback, then the report
    assert failing.index("Traceback") < failing.index("Out of memory on gpu0")
    assert displays == 2, displays  # the error and the report, nothing else
    assert report.startswith("Out of memory on gpu0 (torch.OutOfMemoryError): 2 GiB asked for"), report[:200]
    assert "Verdict: fragmentation" in report
    assert f"Timeline of {SERIES}: cell [3] up to the failure" in report and "cell [3] went from" in report
    assert "▁" not in report and "█" not in report  # the chart, not the text fallback's sparkline
    # The timeline is the chart component, drawn: the failing cell's series (the samples before and in the cell, the
    # last taken at the failure), the cell's marker (failed), the device total and cell [2]'s peak as labelled lines.
    assert chart is not None and chart["isChart"] and chart["canvas"] > 0, chart
    assert chart["series"] == [SERIES] and chart["samples"] >= 6, chart
    said = re.search(r"samples while the cell ran: (\d+) \(about ([\d.]+) s apart\), and one at the failure", report)
    # The recorder's 1 Hz over the cell's 3.5 s: the spacing said is the cell's own samples' (presentation/oom/
    # _text.py), not the whole timeline's, which the readings at earlier cells' edges crowd.
    assert said and int(said[1]) >= 2 and 0.5 <= float(said[2]) <= 1.5, report
    assert chart["markers"] == [[3, False]] and chart["markerLabels"] == ["[3]"], chart
    kinds = {kind: (short, size) for kind, short, size in chart["overlays"]}
    assert kinds["total"] == ("total", 40 * 1024**3), chart  # the scenario's "40GB", 1024-based
    assert kinds["oom_request"][0] == "+ asked", chart
    # Cell [2]'s peak is wherever the scenario's climb (2 GiB every 50 ms from 2 GiB) stood while it ran: its start on
    # an idle machine, a step or more later on a loaded one. The label shows the peak the kernel recorded, whatever.
    # Cell [1], which loaded the extension, has its peak too; where both read the same they share one line, "[1, 2]".
    (short, peak), = [(short, size) for kind, short, size in chart["overlays"]
                      if kind == "cell_peak" and short in ("[2] peak", "[1, 2] peak")]
    assert peak % 2**31 == 0 and 2 * 1024**3 <= peak <= 38 * 1024**3, chart
    assert "total40 GiB" in chart["gutter"] and f"{short}{peak // 1024**3} GiB" in chart["gutter"], chart
    # the one device named once over the rows (its series' row says what it counts)
    assert any(line.startswith(("cell [2] peak", "cells [1], [2] peak")) for line in chart["legend"]), chart
    assert "process" in chart["legend"], chart
    assert chart["caption"] == ["gpu0 (simulated)"], chart
    assert chart["yTicks"] and all(tick == "0" or tick.endswith(" GiB") for tick in chart["yTicks"]), chart
    assert narrow["gutter"] == chart["gutter"] and narrow["canvas"] < chart["canvas"], narrow  # all labels at 700 px
    assert f"%envset {NAME}={VALUE}" in report
    assert buttons and buttons[0] == "Apply", buttons
    # What the session says of it, as %envdiff does: PyTorch is not loaded here, so its first use will read the value.
    assert f"%envset {NAME}={VALUE}\nonce set: takes effect at first use; " in report, report
    assert outcome == "Set in this kernel and kept in the notebook profile: takes effect at first use.", outcome
    assert applied_label == "Applied"
    assert f"{NAME}: (unset) → {VALUE} [oom_report]" in history, history
    envdiff_line = next(line for line in envdiff.splitlines() if line.startswith(NAME))
    assert VALUE in envdiff_line and "oom_report" in envdiff_line, envdiff
    assert saved["metadata"]["mgenv_jupyter"]["profile"] == {NAME: VALUE}
    # The panel showed the report too (sent after its hello, the cell having failed before it connected).
    assert panel_report.startswith("Out of memory on gpu0"), panel_report
    assert "Last out of memory in this kernel" in panel_report, panel_report
    assert "Verdict: fragmentation" in panel_report and f"%envset {NAME}={VALUE}" in panel_report
    assert panel_button == "Applied"
    assert problems == {key: [] for key in problems}, problems


def test_the_report_and_its_remedy_in_notebook_7(shared_lab):
    """Notebook 7 renders the same report, and a click sets the remedy there too, with the sidebar never opened."""
    pytest.importorskip("notebook", minversion="7", reason="Notebook 7 is not installed in this environment")
    with shared_lab(env={"MGENV_SIMULATE_GPU": str(OOM_SCENARIO)}, app="notebook") as lab:
        name = write_notebook(lab, "oom7.ipynb", [
            "%load_ext mgenv_jupyter", f"{OOM_STAND_IN}\n{raise_oom()}", f"%envget {NAME}"])
        report = ".jp-Cell:nth-child(2) .mgenv-oom"
        with chromium_page(width=1000) as page:
            open_and_run(page, lab, name, 2, until=f"{report} .mgenv-oom-apply")
            page.locator(f"{report} .mgenv-oom-apply").first.click()
            page.wait_for_selector(f"{report} .mgenv-oom-outcome[data-state='applied']", timeout=60_000)
            problems = unusable_inputs(page, report) + clipped_text(page, report)
            screenshot(page, "oom-report-notebook7.png")
            run_cell(page, 2)
            got = cell_output(page, 2, VALUE)
    assert VALUE in got
    assert problems == []


OTHER_PROCESS = ROOT / "tests" / "data" / "oom" / "other_process.json"
OTHER_PROCESS_MESSAGE = (
    "CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 40.00 GiB of which 512.00 MiB is "
    "free. Including non-PyTorch memory, this process has 9.00 GiB memory in use. Of the allocated memory 8.80 GiB is "
    "allocated by PyTorch, and 100.00 MiB is reserved by PyTorch but unallocated.")


def test_a_remedy_that_needs_a_restart_offers_restart_and_apply_and_the_new_kernel_holds_it(shared_lab):
    """Another process holds most of gpu0; PyTorch (a stand-in, tests/framework_stand_ins.py: no GPU here) is loaded
    with CUDA initialised, as after a real CUDA out-of-memory error, so the devices are fixed: the first remedy (move
    to the free gpu1) needs a restart. The report says so, the click sets it and offers Restart and apply, and the new
    kernel starts with it."""
    with shared_lab(env={"MGENV_SIMULATE_GPU": str(OTHER_PROCESS)}) as lab:
        name = write_notebook(lab, "oom-restart.ipynb", [
            f"import sys\nsys.path.insert(0, {str(ROOT / 'tests')!r})\n"
            "from framework_stand_ins import TorchGpu, torch_modules\n"
            "sys.modules.update(torch_modules(TorchGpu(cuda_initialised=True)))\n"
            "%load_ext mgenv_jupyter\nmarker = 'old kernel'",
            OOM_STAND_IN,
            raise_oom(OTHER_PROCESS_MESSAGE),
            "import os\nprint('fresh:', 'marker' not in globals(), '|', os.environ.get('CUDA_VISIBLE_DEVICES'))",
        ])
        with chromium_page() as page:
            open_and_run(page, lab, name, 3, until=APPLY)
            report = page.inner_text(REPORT)
            page.locator(APPLY).click()
            page.wait_for_selector(f"{OUTCOME}:is([data-state='restart'], [data-state='applied'], "
                                   "[data-state='error'])", timeout=60_000)
            state, outcome = page.get_attribute(OUTCOME, "data-state"), page.inner_text(OUTCOME)
            screenshot(page, "oom-report-restart.png")
            page.locator(f"{OUTCOME} .mgenv-oom-restart").click()
            page.locator(RESTART_QUESTION).get_by_role("button", name="Restart and apply").click()
            open_sidebar(page)
            page.locator(".mgenv-sb-history > summary").click()
            page.wait_for_selector(".mgenv-sb-history-list :text('[profile]')", timeout=90_000)
            run_cell(page, 3)
            fresh = cell_output(page, 3, "fresh:", timeout=90_000)
            after_restart = page.locator(".mgenv-sb-oom").is_hidden()  # the new kernel has no report
        saved = json.loads((lab.root / name).read_text())

    assert "Verdict: another process" in report, report
    assert ("%envset CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=1\nneeds a restart (Framework Env sidebar: "
            "Restart and apply); ") in report, report
    assert state == "restart", outcome
    assert outcome.startswith("Set and kept in the notebook profile; it takes effect after a restart."), outcome
    assert saved["metadata"]["mgenv_jupyter"]["profile"] == {"CUDA_DEVICE_ORDER": "PCI_BUS_ID",
                                                             "CUDA_VISIBLE_DEVICES": "1"}
    assert fresh.strip() == "fresh: True | 1", fresh
    assert after_restart
