"""The memory chart as a user sees it, inline in a notebook (700 and 1400 px wide) and in the sidebar's memory panel
(280 and 480 px), in the light and the dark theme, and at the narrow sizes in the dark high-contrast one: a simulated
A100 with the DTR threshold and Paddle's first-chunk cap drawn, and cells run in quick succession so that their
markers crowd together. In each case the legend stays inside its panel, no label covers another or the data,
nothing is cut off without a tooltip, every button can be used, and a screenshot lands in test-artifacts/
(chart-<where>-<width>-<theme>.png). A cluster's chart has a notebook and kernel of its own in the same lab:
three nodes stream into the kernel's sampler through `cluster.RemoteSource` (fed in the kernel's process, as Ray's
streams feed it) and one of them is lost; the legend lists the series under each node with its state, the lost node
marked lost with the reason as its tooltip (chart-cluster-*.png). Every other case shares one notebook and kernel."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from layout_checks import clipped_text, give_the_chart_room, overlapping, set_theme, sticking_out, unusable_inputs

from lab_pool import LabPool
from lab_server import (
    chromium_page,
    execute_command,
    open_sidebar,
    run_all_cells,
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
def lab(lab_pool: LabPool) -> Iterator[Any]:
    """A lab of the session's pool, held by this module: its notebooks stay open from one case to the next."""
    with lab_pool.lab(env={"MGENV_SIMULATE_GPU": "a100-40gb"}) as started:
        yield started


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One browser page for the module (Playwright's sync API runs one at a time in a process)."""
    with chromium_page(width=1400, height=900) as opened:
        yield opened


@pytest.fixture(scope="module")
def lab_page(lab: Any, browser: Any) -> Any:
    """One notebook whose chart has every overlay and a crowd of cell markers, shared by every case but the
    cluster's (which come last: their notebook replaces this one in the page)."""
    page = browser
    name = write_notebook(lab, "layout.ipynb", CELLS)
    run_all_cells(page, lab, name)
    chart = f"document.querySelector('{INLINE} .mgenv-chart')?.mgenvChart"
    page.wait_for_function(f"() => {chart}?.overlays.length >= 3 && {chart}.markers.length >= 5", timeout=120_000)
    open_sidebar(page)
    page.wait_for_function("() => document.querySelector('.mgenv-sb-chart').mgenvChart.overlays.length >= 3",
                           timeout=60_000)
    return page


NOTEBOOK_WIDTH = "() => window.jupyterapp.shell.currentWidget.node.getBoundingClientRect().width"


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
    # Then two frames, for the coalesced redraw (set_theme has waited for the theme's splash to go).
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def layout_problems(page: Any, root: str, legend_inside: bool = True) -> list[str]:
    """`legend_inside=False`: the legend may run below `root`'s visible part (a section that scrolls)."""
    chart = f"{root} .mgenv-chart"
    labels = f"{chart} .mgenv-chart-overlay-label, {chart} .mgenv-chart-marker-label"
    return [
        *(sticking_out(page, ".mgenv-chart-legend", root) if legend_inside else []),
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
    give_the_chart_room(page)
    apply_theme(page, theme)
    page.locator(SIDEBAR).scroll_into_view_if_needed()
    settle(page, SIDEBAR)
    page.locator(SIDEBAR).screenshot(path=str(screenshot(page, f"chart-sidebar-{width}-{theme}.png")))
    assert layout_problems(page, SIDEBAR) == []
    assert label_counts(page, SIDEBAR)["overlays"] == 3
    # The time axis counts from the kernel's start, in seconds or minutes: never a date, cut off or not.
    # A loaded machine may have drawn only a few seconds yet: wait (up to 30 s) until two ticks fit, then check them.
    page.wait_for_function("() => document.querySelector('.mgenv-sb-chart').mgenvChart.timeTicks.length >= 2",
                           timeout=30_000)
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


# Three nodes' memory, as their NodeMemory actors would stream it (cluster.node_memory), fed into the kernel's sampler
# through cluster.RemoteSource from this process: node_a one A100, node_b two V100s, node_c one A100 whose stream
# breaks after about five seconds, as a killed node's does.
CLUSTER_NODES = """\
import itertools, math, time
from mgenv_jupyter.cluster import RemoteSource
from mgenv_jupyter.cluster._remote_source import first_line, start_reader
from mgenv_jupyter.base._source_state import STATE_OK
from mgenv_jupyter.memory._sample import Sample
from mgenv_jupyter.memory._shared import kernel_sampler

GiB = 1024**3

def node_stream(gpus, total, simulation, share, lost_after=None):
    state = {"name": "nvml (simulated)", "state": STATE_OK, "idle": False, "simulated": True, "simulation": simulation}
    for i in itertools.count(1):
        if lost_after is not None and i > lost_after:
            raise ConnectionError("ActorDiedError: the actor died unexpectedly before finishing this task")
        now = time.time()
        wave = [math.sin(now / 2 + g) for g in range(gpus)]
        samples = [Sample(now, "nvml (simulated)", f"gpu{g}", used=int(total * share + 2 * w * GiB),
                          total=total, process=int(total * (share - 0.1) + 2 * w * GiB), simulated=True)
                   for g, w in enumerate(wave)]
        yield {"samples": samples, "states": [state], "cpu_seconds": 0.0, "sampled": i}
        time.sleep(0.1)  # a node sends a batch every 0.1 s (10 Hz), as the real ones do

streams = {"node_a": node_stream(1, 40 * GiB, "a100-40gb", 0.5), "node_b": node_stream(2, 16 * GiB, "2xv100", 0.6),
           "node_c": node_stream(1, 40 * GiB, "a100-40gb", 0.8, lost_after=50)}
nodes = [RemoteSource(label) for label in streams]
for node in nodes:
    start_reader(node, streams[node.label], first_line)
kernel_sampler().sources.extend(nodes)
"""
# verify()'s report of such a cluster, as the kernel builds it from the workers' answers (cluster.verify._compare).
VERIFY_REPORT = """\
from mgenv_jupyter.cluster._verify import ClusterReport, _compare, _digest, new_key

KEY = new_key()

def seen(node, name, expected, value, at_start=True, imported=(), secret=False):
    view = {"value": None if secret else value, "hmac": _digest(KEY, value) if secret else None, "at_start": at_start,
            "imported": list(imported)}
    return _compare(node, name, expected, view, KEY)

DTR, FLAG = "MEGENGINE_DTR_EVICTION_THRESHOLD", "FLAGS_fraction_of_gpu_memory_to_use"
report = ClusterReport([], [
    seen("node_a", DTR, "5368709120", "5368709120"), seen("node_a", FLAG, "0.5", "0.5"),
    seen("node_a", "WANDB_API_KEY", "k-123", "k-123", secret=True),
    seen("node_b", DTR, "5368709120", "5", at_start=False, imported=["megengine"]), seen("node_b", FLAG, "0.5", None),
    seen("node_b", "WANDB_API_KEY", "k-123", "k-999", secret=True),
    seen("node_b", "MGENV_LONG", "x" * 100, "x" * 100)],
    {"node_c": "ActorDiedError: the actor died unexpectedly before finishing this task"})
report
"""
CLUSTER_CELLS = ["%load_ext mgenv_jupyter", CLUSTER_NODES,
                 "from mgenv_jupyter import MemoryChart\nchart = MemoryChart(title='Cluster memory')\nchart",
                 VERIFY_REPORT]
VERIFY = ".jp-OutputArea-output:has(.mgenv-verify)"
CLUSTER = ".jp-OutputArea-output:has(.mgenv-chart-legend-group)"
CURRENT_KERNEL_IDLE = """path => {
    const current = window.jupyterapp.shell.currentWidget;
    const kernel = current?.sessionContext?.session?.kernel;
    return current?.context?.path === path && !!kernel && kernel.connectionStatus === 'connected'
        && kernel.status === 'idle';
}"""
CLUSTER_SIDEBAR = ".mgenv-sb-memory:has(.mgenv-chart-legend-group)"
GROUPS_JS = """root => [...document.querySelectorAll(`${root} .mgenv-chart-legend-group`)].map(g => [
    g.querySelector('.mgenv-chart-legend-group-name').textContent,
    g.querySelector('.mgenv-chart-legend-group-state').textContent,
    g.classList.contains('mgenv-chart-legend-group-lost'), g.title])"""


@pytest.fixture(scope="module")
def cluster_page(lab: Any, browser: Any) -> Any:
    """A notebook of its own whose kernel's sampler reads three nodes, node_c lost once the chart has its series."""
    page = browser
    page.set_viewport_size({"width": 1400, "height": 900})
    name = write_notebook(lab, "cluster.ipynb", CLUSTER_CELLS)
    if not page.evaluate("() => !!window.jupyterapp"):  # the other cases did not run: a page of its own
        run_all_cells(page, lab, name)
    else:
        # Opened beside the other notebook, without reloading the page (a reload restores both, and "Run All Cells"
        # could go to either), then run once it is current and its kernel idle.
        page.evaluate("path => { window.jupyterapp.commands.execute('docmanager:open', {path}); }", name)
        page.wait_for_function(CURRENT_KERNEL_IDLE, arg=name, timeout=120_000)
        execute_command(page, "notebook:run-all-cells")
    try:
        page.wait_for_function(f"() => document.querySelectorAll('{CLUSTER} .mgenv-chart-legend-group').length === 4"
                               f" && document.querySelector('{CLUSTER} .mgenv-chart-legend-group-lost')",
                               timeout=120_000)
    except Exception:
        screenshot(page, "chart-cluster-failed.png")
        raise
    return page


LEGEND_OVERFLOW_JS = """root => {
    const legend = document.querySelector(`${root} .mgenv-chart-legend`);
    return legend.scrollWidth > legend.clientWidth + 1 ? [`the legend is ${legend.scrollWidth} px wide in a `
        + `${legend.clientWidth} px box`] : [];
}"""


SIDEWAYS_JS = """root => {
    const section = document.querySelector(root);
    const box = section.getBoundingClientRect();
    return [...section.querySelectorAll('.mgenv-chart-legend, .mgenv-chart-legend > *')]
        .filter(e => { const r = e.getBoundingClientRect(); return r.left < box.left - 1 || r.right > box.right + 1; })
        .map(e => `"${e.textContent.slice(0, 40)}" sticks out sideways`);
}"""


IN_VIEW_JS = """selector => {
    const box = document.querySelector(selector).getBoundingClientRect();
    const section = document.querySelector(selector).closest('.mgenv-sb-memory').getBoundingClientRect();
    return box.top >= section.top - 1 && box.bottom <= section.bottom + 1;
}"""


def cluster_problems(page: Any, root: str, section_scrolls: bool = False) -> list[str]:
    """`section_scrolls`: the sidebar's section scrolls when the chart is taller than it (its minimum plot and the
    legend), so a row below its visible part is not out of place; nothing may stick out sideways, though."""
    legend = f"{root} .mgenv-chart-legend"
    return [
        *layout_problems(page, root, legend_inside=not section_scrolls),
        *(page.evaluate(SIDEWAYS_JS, root) + page.evaluate(LEGEND_OVERFLOW_JS, root) if section_scrolls
          else sticking_out(page, ".mgenv-chart-legend-group, .mgenv-chart-legend-item", legend)),
        # A node's heading clear of its rows, its state clear of its name.
        *overlapping(page, f"{legend} .mgenv-chart-legend-group, {legend} .mgenv-chart-legend-item"),
        *overlapping(page, f"{legend} .mgenv-chart-legend-group-name, {legend} .mgenv-chart-legend-group-state"),
    ]


def check_node_groups(page: Any, root: str) -> None:
    groups = page.evaluate(GROUPS_JS, root)
    assert [g[0] for g in groups] == ["this kernel", "node_a", "node_b", "node_c"]
    assert [g[2] for g in groups] == [False, False, False, True]
    _, state, _, title = groups[3]
    assert state == "lost" and title == ("node_c: lost: ConnectionError: ActorDiedError: the actor died unexpectedly "
                                         "before finishing this task")
    # Each node's rows under its heading, named without the node: "gpu1 process" under node_b (the legend says once,
    # over its rows, that they are simulated).
    rows = page.evaluate("""root => [...document.querySelectorAll(`${root} .mgenv-chart-legend > *`)]
        .filter(e => !e.classList.contains('mgenv-chart-legend-head'))
        .map(e => e.classList.contains('mgenv-chart-legend-group')
            ? '# ' + e.querySelector('.mgenv-chart-legend-group-name').textContent
            : e.querySelector('.mgenv-chart-legend-name').textContent)""", root)
    node_b = rows[rows.index("# node_b") + 1:rows.index("# node_c")]
    assert node_b == [*(f"gpu{g} {q}" for g in (0, 1) for q in ("used", "process")),
                      "gpu0 (simulated) total (16 GiB)", "gpu1 (simulated) total (16 GiB)"]
    caption = page.evaluate(f"() => document.querySelector('{root} .mgenv-chart-legend-caption').textContent")
    assert caption == "(simulated)"
    assert not any(row.startswith("node_") for row in rows)  # every node's lines, totals included, under its node
    status = page.evaluate(f"() => document.querySelector('{root} .mgenv-chart-status').textContent")
    assert "3 nodes: 2 ok, node_c lost" in status


@pytest.mark.parametrize(("width", "theme"), [(700, "light"), (700, "dark"), (1400, "light"), (1400, "dark")])
def test_cluster_chart_layout(cluster_page, width, theme):
    page = cluster_page
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    set_notebook_width(page, width)
    page.locator(f"{CLUSTER} .mgenv-chart").scroll_into_view_if_needed()
    apply_theme(page, theme)
    settle(page, CLUSTER)
    page.locator(CLUSTER).screenshot(path=str(screenshot(page, f"chart-cluster-inline-{width}-{theme}.png")))
    assert cluster_problems(page, CLUSTER) == []
    check_node_groups(page, CLUSTER)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_cluster_chart_in_the_sidebar(cluster_page, theme):
    page = cluster_page
    page.set_viewport_size({"width": 1400, "height": 900})
    if not page.locator(".mgenv-sb-config").is_visible():
        open_sidebar(page)
    page.wait_for_selector(CLUSTER_SIDEBAR, state="visible", timeout=60_000)
    set_left_area_width(page, 280)
    give_the_chart_room(page, variables=0.1)  # three nodes' legend: the chart dragged to nearly the whole height
    apply_theme(page, theme)
    page.locator(CLUSTER_SIDEBAR).scroll_into_view_if_needed()
    settle(page, CLUSTER_SIDEBAR)
    page.locator(CLUSTER_SIDEBAR).screenshot(path=str(screenshot(page, f"chart-cluster-sidebar-280-{theme}.png")))
    assert cluster_problems(page, CLUSTER_SIDEBAR, section_scrolls=True) == []
    check_node_groups(page, CLUSTER_SIDEBAR)
    # The plot keeps its minimum height; the section scrolls down to the lost node.
    assert page.evaluate(f"() => document.querySelector('{CLUSTER_SIDEBAR} .mgenv-chart-plot').clientHeight") >= 120
    lost = page.locator(f"{CLUSTER_SIDEBAR} .mgenv-chart-legend-group-lost")
    lost.scroll_into_view_if_needed()
    page.locator(CLUSTER_SIDEBAR).screenshot(path=str(screenshot(page, f"chart-cluster-sidebar-280-{theme}-lost.png")))
    assert page.evaluate(IN_VIEW_JS, f"{CLUSTER_SIDEBAR} .mgenv-chart-legend-group-lost")
    page.locator(CLUSTER_SIDEBAR).evaluate("section => section.scrollTo(0, 0)")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_verify_report_in_the_notebook(cluster_page, theme):
    """verify()'s table at 700 px: inside its output, nothing cut without a tooltip, the secret masked."""
    page = cluster_page
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    set_notebook_width(page, 700)
    page.locator(VERIFY).scroll_into_view_if_needed()
    apply_theme(page, theme)
    page.locator(VERIFY).screenshot(path=str(screenshot(page, f"cluster-verify-700-{theme}.png")))
    assert sticking_out(page, ".mgenv-verify table", VERIFY) == [] and clipped_text(page, VERIFY) == []
    text = page.locator(VERIFY).inner_text()
    assert "k-123" not in text and "k-999" not in text and "********" in text
    assert "✗ no: the session has 5368709120" in text and "no answer: ActorDiedError" in text
