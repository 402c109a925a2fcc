"""One practitioner's session, as they see it in real JupyterLab and Chromium (issue 29, points 3-6): real kernels,
the real server extension, the simulated GPU.

- One device, one figure: three notebooks on the simulated GPU the server's MGENV_SIMULATE_GPU gives; for each, the
  Framework Env panel's "Live GPU memory" (the kernel's own reading) shows what "GPUs on this server" shows of it.
- Idle means the user's idleness: a notebook whose chart streams, left alone, reads "idle N s since its last cell".
- A report agrees with what it reports on: README's "Try it" recipe for a fragmentation error with the panel open;
  the error, the panel's chart and the report say 38 GiB. A host-memory error draws host memory.
- Reports do not go stale: after %memfree the report under the cell and the panel's card say what was given back,
  and neither offers it again; the card can be dismissed, and at 800 px tall it leaves the variables in view. After a
  restart, a report that still offered to free says there is nothing of its kernel's to free any more.

Screenshots (test-artifacts/views-*.png) of the GPU view and of the report after a free: the panel at 250 px and the
page at 1000 and 1280 px, light and dark, English and Chinese.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from layout_checks import clipped_text, overlapping, set_theme, sticking_out

from lab_server import (
    CACHE_STAND_IN,
    CHART_SERIES_JS,
    KERNEL_READY_JS,
    OOM_MESSAGE,
    OOM_SCENARIO,
    TOKEN,
    Lab,
    chromium_page,
    execute_command,
    run_cell,
    running_lab,
    screenshot,
    set_left_area_width,
    write_notebook,
)

GiB = 1024**3
CONFIG = {"ServerApp": {"jpserver_extensions": {"mgenv_jupyter.server": True}},
          "JupyterNotebookApp": {"expose_app_in_browser": True}}
# One simulated A100 for the server and its kernels; each kernel holds a fixed 2 GiB (a later one a little more), so
# that whoever reads it, whenever, reads the same bytes.
SHARED = {"name": "shared-a100", "devices": [{"name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "others": "400MB",
                                              "reserved": "512MB", "kernel": "2GB"}]}
NOTEBOOKS = ("alpha.ipynb", "beta.ipynb", "gamma.ipynb")
GPU_SECTION = ".mgenv-gpu"
ROWS = f"{GPU_SECTION} .mgenv-gpu-device .mgenv-gpu-row"
PANEL_CHART = ".mgenv-sb-memory .mgenv-chart"
SERIES = "gpu0 (simulated) process"
LEFT = "#jp-left-stack"
CHINESE = {"locale": "zh_CN"}
IDLE_WAIT = 20  # seconds a notebook showing its chart is left alone



def api(lab: Lab, method: str, path: str, body: dict | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{lab.url}/{path}?token={TOKEN}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
    return json.loads(text) if text else None


def open_document(page: Any, path: str) -> None:
    """Open a notebook in the running JupyterLab (a new tab, no reload) and wait until its kernel is idle."""
    execute_command(page, "docmanager:open", {"path": path})
    page.wait_for_function(f"() => window.jupyterapp.shell.currentWidget?.context?.path === {path!r}",
                           timeout=60_000)
    deadline = time.time() + 120
    while not page.evaluate(KERNEL_READY_JS):
        assert time.time() < deadline, f"{path}'s kernel did not become idle"
        page.wait_for_timeout(250)


def kernel_id(page: Any) -> str:
    return str(page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id"))


def show_panel(page: Any, gpu_section: bool = False) -> None:
    """The Framework Env panel, followed to the notebook on screen; its GPU section unfolded when asked."""
    page.evaluate("() => window.jupyterapp.shell.activateById('mgenv-jupyter-sidebar')")
    page.wait_for_selector(".mgenv-sb-config[data-connection='ready']", state="attached", timeout=60_000)
    title = page.locator(".mgenv-sb .jp-AccordionPanel-title:has-text('GPUs on this server'), "
                         ".mgenv-sb .jp-AccordionPanel-title:has-text('本服务器的 GPU')")
    if gpu_section and title.get_attribute("aria-expanded") == "false":
        title.click()
        page.wait_for_selector(ROWS, timeout=60_000)


def panel_follows(page: Any, kernel: str) -> None:
    """Wait until the panel's chart has readings of `kernel`'s simulated GPU (a few batches after it switched)."""
    page.wait_for_function(
        """([chart, series, kernel]) => {
            const context = window.jupyterapp.shell.currentWidget?.sessionContext;
            const live = document.querySelector(chart)?.mgenvChart;
            if (context?.session?.kernel?.id !== kernel || !live) return false;
            return live.store.series.some(s => s.key === series) && live.store.column(series).length >= 3;
        }""", arg=[PANEL_CHART, SERIES, kernel], timeout=60_000)


def only_the_gpu_section(page: Any, only: bool) -> None:
    """Fold the variables and the live chart (the GPU section gets the panel's height), or unfold them again."""
    for title in ("Variables", "变量", "Live GPU memory", "实时 GPU 显存"):
        section = page.locator(f".mgenv-sb .jp-AccordionPanel-title:has-text('{title}')")
        if section.count() and (section.get_attribute("aria-expanded") == "true") == only:
            section.click()


def shoot_left(page: Any, name: str) -> None:
    page.wait_for_timeout(300)
    page.locator(LEFT).screenshot(path=str(screenshot(page, name)))


def panel_problems(page: Any, root: str) -> list[str]:
    return [*clipped_text(page, root), *sticking_out(page, f"{root} *", ".mgenv-sb"),
            *overlapping(page, f"{ROWS} > *:not(.mgenv-gpu-meta)")]


def set_locale(lab: Lab, page: Any, locale: dict[str, str]) -> None:
    """JupyterLab's language through its settings API, then the page loaded again in it."""
    api(lab, "PUT", "lab/api/settings/@jupyterlab/translation-extension:plugin", {"raw": json.dumps(locale)})
    page.reload()
    page.wait_for_selector(".jp-SideBar.jp-mod-left .lm-TabBar-tab", timeout=60_000)


# ---- one device, one figure; idle is the user's (points 3 and 4) ----------------------------------------------------

@pytest.fixture(scope="module")
def shared_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    workdir = tmp_path_factory.mktemp("views-shared")
    scenario = workdir / "shared.json"
    scenario.write_text(json.dumps(SHARED))
    (workdir / "config").mkdir()
    (workdir / "config" / "jupyter_server_config.json").write_text(json.dumps(CONFIG))
    with running_lab(workdir, env={"MGENV_SIMULATE_GPU": str(scenario)}) as lab:
        for name in NOTEBOOKS:
            write_notebook(lab, name, ["%load_ext mgenv_jupyter", "%memchart"])
        yield lab


def test_a_notebook_showing_its_chart_left_alone_is_idle_since_its_last_cell_and_both_views_agree(shared_lab):
    with chromium_page(1280, 900) as page:
        page.goto(shared_lab.page_url("lab"))
        page.wait_for_selector(".jp-SideBar.jp-mod-left .lm-TabBar-tab[title='Framework Env']", timeout=60_000)
        kernels: dict[str, str] = {}
        for name in NOTEBOOKS:
            open_document(page, name)
            run_cell(page, 0)
            run_cell(page, 1)
            page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell:nth-child(2) .mgenv-chart canvas",
                                   timeout=60_000)
            kernels[name] = kernel_id(page)
        show_panel(page, gpu_section=True)
        set_left_area_width(page, 250)
        # The last notebook's chart streams on screen, and the panel's too; no cell runs for IDLE_WAIT seconds.
        left_at = time.time()
        page.wait_for_timeout(IDLE_WAIT * 1000)
        gamma = f"{ROWS}[data-key='k:{kernels['gamma.ipynb']}'] .mgenv-gpu-state"
        state = page.inner_text(gamma)
        view = api(shared_lab, "GET", "mgenv-jupyter/gpus")
        seen = {k["id"]: k for k in view["kernels"]}
        idle = re.search(r"idle (\d+) s since its last cell", state)
        assert idle and int(idle[1]) >= IDLE_WAIT - 3, state  # it read "idle for 0 s" while the chart streamed
        assert seen[kernels["gamma.ipynb"]]["idle_seconds"] >= IDLE_WAIT - 3
        assert time.time() - left_at < IDLE_WAIT + 15
        assert "end of the last cell a user ran" in (page.get_attribute(gamma, "title") or "")
        shoot_left(page, "views-gpus-idle-250-light.png")

        # Each notebook in turn: the panel follows its kernel; its own reading is what the server's view shows.
        figures = {}
        for name in NOTEBOOKS:
            execute_command(page, "docmanager:open", {"path": name})
            panel_follows(page, kernels[name])
            own = page.evaluate(CHART_SERIES_JS, [PANEL_CHART, SERIES])
            view = api(shared_lab, "GET", "mgenv-jupyter/gpus")
            (device,) = view["devices"]
            server = next(s["used"] for s in device["shares"] if s["kernel_id"] == kernels[name])
            row = page.inner_text(f"{ROWS}[data-key='k:{kernels[name]}'] .mgenv-gpu-size")
            figures[name] = (own["last"], server, row)
        assert all(own == server for own, server, _ in figures.values()), figures
        assert sorted(own for own, _, _ in figures.values()) == [2 * GiB, int(2.5 * GiB), 3 * GiB], figures
        assert sorted(row for _, _, row in figures.values()) == ["2 GiB", "2.5 GiB", "3 GiB"], figures

        problems = {}
        only_the_gpu_section(page, True)
        for width, height in ((1280, 900), (1000, 800)):
            page.set_viewport_size({"width": width, "height": height})
            for theme in ("light", "dark"):
                set_theme(page, dark=theme == "dark")
                set_left_area_width(page, 250)
                shoot_left(page, f"views-gpus-250-{theme}.png")
                problems[f"250-{theme}"] = panel_problems(page, GPU_SECTION)
                set_left_area_width(page, 480)
                screenshot(page, f"views-gpus-page-{width}-{theme}.png")
        set_theme(page, dark=False)
        only_the_gpu_section(page, False)

        # The same in Chinese.
        set_locale(shared_lab, page, CHINESE)
        show_panel(page, gpu_section=True)
        only_the_gpu_section(page, True)
        page.wait_for_function(f"() => /上个单元结束后已空闲|已空闲/.test(document.querySelector("
                               f"\"{ROWS}[data-key='k:{kernels['gamma.ipynb']}'] .mgenv-gpu-state\")?.textContent"
                               " ?? '')", timeout=60_000)
        zh_state = page.inner_text(gamma)
        for width in (1280, 1000):
            page.set_viewport_size({"width": width, "height": 900})
            for theme in ("light", "dark"):
                set_theme(page, dark=theme == "dark")
                set_left_area_width(page, 250)
                shoot_left(page, f"views-gpus-zh-250-{theme}.png")
                problems[f"zh-250-{theme}"] = panel_problems(page, GPU_SECTION)
                set_left_area_width(page, 480)
                screenshot(page, f"views-gpus-zh-page-{width}-{theme}.png")
        set_locale(shared_lab, page, {"locale": "en"})
    assert re.fullmatch(r"上个单元结束后已空闲 \d+ (秒|分钟) · python3", zh_state), zh_state
    assert problems == {key: [] for key in problems}, problems


# ---- a report agrees, and does not go stale (points 5 and 6) --------------------------------------------------------

RECIPE = [
    "%load_ext mgenv_jupyter",
    f"%env MGENV_SIMULATE_GPU={OOM_SCENARIO}",
    # As a user writes the recipe: the stand-in defined in the failing cell (it names torch, not imported yet).
    "OutOfMemoryError = type('OutOfMemoryError', (RuntimeError,), {'__module__': 'torch'})\n"
    f"{CACHE_STAND_IN}\nimport time\ntime.sleep(2.5)\nraise OutOfMemoryError({OOM_MESSAGE!r})",
    "%memfree",
    # demo.ipynb's host-memory error: a call holds a 256 MiB array, then fails.
    "import numpy as np\n\ndef step():\n    activations = np.ones(256 * 1024**2, dtype=np.uint8)\n    time.sleep(2.2)\n"
    "    raise MemoryError('stand-in: the next allocation did not fit')\n\nstep()",
]
REPORT = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell:nth-child(3) .mgenv-oom"
HOST_REPORT = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell:nth-child(5) .mgenv-oom"
CARD = ".mgenv-sb-oom"


@pytest.fixture(scope="module")
def recipe_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    workdir = tmp_path_factory.mktemp("views-recipe")
    (workdir / "config").mkdir()
    (workdir / "config" / "jupyter_server_config.json").write_text(json.dumps(CONFIG))
    with running_lab(workdir) as lab:  # no MGENV_SIMULATE_GPU for the server: the notebook sets it
        write_notebook(lab, "recipe.ipynb", RECIPE)
        yield lab


def report_chart(page: Any, report: str) -> Any:
    """What a report's timeline chart draws of its one series."""
    key = page.evaluate("chart => document.querySelector(chart)?.mgenvChart?.store.series[0]?.key ?? null",
                        f"{report} .mgenv-oom-chart")
    return page.evaluate(CHART_SERIES_JS, [f"{report} .mgenv-oom-chart", key])


def test_the_recipe_with_the_panel_open_agrees_and_the_report_after_a_free_offers_nothing_again(recipe_lab):
    with chromium_page(1280, 900) as page:
        page.goto(recipe_lab.page_url("lab"))
        page.wait_for_selector(".jp-SideBar.jp-mod-left .lm-TabBar-tab[title='Framework Env']", timeout=60_000)
        open_document(page, "recipe.ipynb")
        run_cell(page, 0)
        show_panel(page)  # the panel already open, its live chart streaming, before the variable is set
        page.wait_for_selector(f"{PANEL_CHART} canvas", timeout=60_000)
        run_cell(page, 1)
        run_cell(page, 2)
        page.wait_for_selector(f"{REPORT} .mgenv-oom-free-button", timeout=90_000)
        report = page.inner_text(REPORT)
        page.wait_for_timeout(800)  # the panel's next batch
        panel = page.evaluate(CHART_SERIES_JS, [PANEL_CHART, SERIES])
        timeline = report_chart(page, REPORT)
        page.locator(REPORT).scroll_into_view_if_needed()
        screenshot(page, "views-recipe-report-1280-light.png")

        # Point 5: the error says 38 GiB in use; the panel's chart and the report say so too.
        assert "this kernel 38 GiB (NVML)" in report and "free 1.11 GiB" in report, report
        assert panel["last"] == 38 * GiB, panel
        assert timeline["highest"] == 38 * GiB and timeline["samples"] >= 3, timeline
        said = re.search(r"samples while the cell ran: (\d+)", report)
        assert said and int(said[1]) >= 3, report
        assert "no sample while the cell ran" not in report

        # Point 6: %memfree in the next cell; the report above and the card say what was given back, offer nothing.
        run_cell(page, 3)
        page.wait_for_selector(f"{REPORT} .mgenv-oom-freed", timeout=60_000)
        page.wait_for_selector(f"{CARD} .mgenv-sb-oom-freed", timeout=30_000)
        after = page.inner_text(f"{REPORT} .mgenv-oom-freed")
        card = page.inner_text(CARD)
        offers = page.locator(f"{REPORT} .mgenv-oom-free-button").count()
        page.wait_for_function(f"() => document.querySelector('{PANEL_CHART}').mgenvChart.marks.length > 0",
                               timeout=30_000)  # with the panel's next batch
        marks = page.evaluate(f"() => document.querySelector('{PANEL_CHART}').mgenvChart.marks.map(m => m.label)")
        problems = {}
        for width in (1280, 1000):
            page.set_viewport_size({"width": width, "height": 900})
            for theme in ("light", "dark"):
                set_theme(page, dark=theme == "dark")
                set_left_area_width(page, 250)
                page.locator(REPORT).scroll_into_view_if_needed()
                page.locator(f"{REPORT} .mgenv-oom-freed").scroll_into_view_if_needed()
                screenshot(page, f"views-report-after-free-{width}-{theme}.png")
                shoot_left(page, f"views-card-after-free-250-{theme}.png")
                problems[f"{width}-{theme}"] = [*clipped_text(page, REPORT), *sticking_out(page, f"{REPORT} *", REPORT),
                                                *clipped_text(page, CARD)]
        set_theme(page, dark=False)

        # The card at 800 px tall: bounded, the variables in view under it; then dismissed until the next report.
        page.set_viewport_size({"width": 1280, "height": 800})
        page.wait_for_timeout(300)
        shoot_left(page, "views-card-800-tall-250-light.png")
        fits = page.evaluate("""card => {
            const box = document.querySelector(card).getBoundingClientRect();
            const section = document.querySelector('.mgenv-sb-config').getBoundingClientRect();
            const row = [...document.querySelectorAll('.mgenv-sb-row')].find(r => r.offsetParent !== null);
            const top = row ? row.getBoundingClientRect().top : Infinity;
            const search = document.querySelector('.mgenv-sb-search').getBoundingClientRect();
            return {card: box.height, section: section.height, rowTop: top, sectionBottom: section.bottom,
                    searchBottom: search.bottom};
        }""", CARD)
        page.locator(f"{CARD} .mgenv-sb-oom-dismiss").click()
        dismissed = page.locator(CARD).is_hidden()
        shoot_left(page, "views-card-dismissed-250-light.png")

        # Point 5, a host-memory error: its timeline is the host's, not the simulated GPU's.
        page.set_viewport_size({"width": 1280, "height": 900})
        run_cell(page, 4)
        page.wait_for_selector(f"{HOST_REPORT} .mgenv-oom-chart", timeout=90_000)
        host = page.inner_text(HOST_REPORT)
        host_chart = report_chart(page, HOST_REPORT)
        card_back = page.locator(CARD).is_visible()
        page.locator(HOST_REPORT).scroll_into_view_if_needed()
        screenshot(page, "views-host-report-1280-light.png")
        host_offered = page.locator(f"{HOST_REPORT} .mgenv-oom-free-button").count()

        # The kernel restarted (as the Kernel menu does): the host report's offer would be refused by the new kernel,
        # which says it has no report; the report says so instead of offering. Cell 2's report keeps what it gave back.
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.restartKernel()")
        page.wait_for_selector(f"{HOST_REPORT} .mgenv-oom-free-stale", timeout=60_000)
        stale = page.inner_text(f"{HOST_REPORT} .mgenv-oom-free-stale")
        stale_offers = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .mgenv-oom-free-button").count()
        still_freed = page.locator(f"{REPORT} .mgenv-oom-freed").count()
        for width in (1280, 700):
            page.set_viewport_size({"width": width, "height": 900})
            for theme in ("light", "dark"):
                set_theme(page, dark=theme == "dark")
                page.locator(f"{HOST_REPORT} .mgenv-oom-free-stale").scroll_into_view_if_needed()
                screenshot(page, f"views-report-stale-{width}-{theme}.png")
                problems[f"stale-{width}-{theme}"] = [*clipped_text(page, HOST_REPORT),
                                                      *sticking_out(page, f"{HOST_REPORT} *", HOST_REPORT)]
        set_theme(page, dark=False)

    assert "Given back at " in after and "38 GiB → 2 GiB" in after, after
    assert offers == 0
    assert "Given back at " in card and "38 GiB → 2 GiB" in card, card
    assert marks == ["freed 36 GiB"], marks
    assert problems == {key: [] for key in problems}, problems
    assert fits["card"] <= 0.35 * 800, fits
    assert fits["rowTop"] < fits["sectionBottom"] - 20, fits  # a variable's row in view without scrolling
    assert dismissed and card_back  # dismissed until the next report, which brings it back
    assert host.startswith("Out of memory on the host") and "Timeline of host process" in host, host[:400]
    assert host_chart["keys"] == ["host process"] and host_chart["highest"] >= 256 * 1024**2, host_chart
    assert host_offered == 1 and stale_offers == 0 and still_freed == 1
    assert stale.startswith("Nothing to free from this report: its kernel has restarted"), stale


def test_the_report_after_a_free_in_chinese(recipe_lab):
    """The same recipe and %memfree with JupyterLab in Chinese (a new kernel: the kernel speaks the panel's
    language), screenshots of the report and the card after the free."""
    with chromium_page(1280, 900) as page:
        page.goto(recipe_lab.page_url("lab"))
        page.wait_for_selector(".jp-SideBar.jp-mod-left .lm-TabBar-tab", timeout=60_000)
        set_locale(recipe_lab, page, CHINESE)
        open_document(page, "recipe.ipynb")
        # A fresh process (a new timeline on the simulated GPU), restarted as the Kernel menu does.
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.restartKernel()")
        deadline = time.time() + 60
        while not page.evaluate(KERNEL_READY_JS):
            assert time.time() < deadline
            page.wait_for_timeout(250)
        execute_command(page, "notebook:clear-all-cell-outputs")
        run_cell(page, 0)
        show_panel(page)
        for index in (1, 2):
            run_cell(page, index)
        page.wait_for_selector(f"{REPORT} .mgenv-oom-free-button", timeout=90_000)
        run_cell(page, 3)
        try:
            page.wait_for_selector(f"{REPORT} .mgenv-oom-freed", timeout=60_000)
            page.wait_for_selector(f"{CARD} .mgenv-sb-oom-freed", timeout=30_000)
        except Exception:
            screenshot(page, "views-zh-no-freed.png")
            raise AssertionError(page.inner_text(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")[-3000:]
                                 + "\n---\n" + page.inner_text(".mgenv-sb")[:1500]) from None
        after = page.inner_text(f"{REPORT} .mgenv-oom-freed")
        card = page.inner_text(CARD)
        for width in (1280, 1000):
            page.set_viewport_size({"width": width, "height": 900})
            for theme in ("light", "dark"):
                set_theme(page, dark=theme == "dark")
                set_left_area_width(page, 250)
                page.locator(f"{REPORT} .mgenv-oom-freed").scroll_into_view_if_needed()
                screenshot(page, f"views-report-after-free-zh-{width}-{theme}.png")
                shoot_left(page, f"views-card-after-free-zh-250-{theme}.png")
        set_theme(page, dark=False)
        set_locale(recipe_lab, page, {"locale": "en"})
    assert after.startswith("已于 ") and "38 GiB → 2 GiB" in after, after
    assert "已于 " in card, card
