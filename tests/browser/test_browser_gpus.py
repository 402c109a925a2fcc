"""Every notebook's GPU memory in real JupyterLab and Notebook 7, in real Chromium: the "GPUs on this server" section
of the Framework Env panel, fed by the server extension with three real ipykernels on the simulated GPU
(MGENV_SIMULATE_GPU in the server's environment) and a real process outside every kernel.

Checked: the rows sorted by memory and the stacked bar in the same order; a notebook's name opens it; polling at
least once a second while shown and none while hidden; Shut down asks first, naming the notebook and its memory,
and after it the kernel is gone and its memory no longer counted; at 280 and 480 px, light and dark
(test-artifacts/gpus-*.png); Notebook 7 lists the kernels."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from layout_checks import clipped_text, overlapping, set_theme, sticking_out

from lab_server import (
    ARTIFACTS,
    OOM_STAND_IN,
    TOKEN,
    Lab,
    chromium_page,
    open_and_run,
    raise_oom,
    run_cell,
    running_lab,
    screenshot,
    set_left_area_width,
    write_notebook,
)

GiB = 1024**3
SECTION = ".mgenv-gpu"
ROWS = f"{SECTION} .mgenv-gpu-device .mgenv-gpu-row"
NOTEBOOKS = {"big.ipynb": 20, "medium.ipynb": 6, "small.ipynb": 1}  # GiB each kernel holds
OTHER_GIB = 3
CONFIG = {"ServerApp": {"jpserver_extensions": {"mgenv_jupyter.server": True}},
          "JupyterNotebookApp": {"expose_app_in_browser": True}}


def api(lab: Lab, method: str, path: str, body: dict | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{lab.url}/{path}?token={TOKEN}", data=data, method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
    return json.loads(text) if text else None


@pytest.fixture(scope="module")
def stranger() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(["sleep", "900"])
    yield proc
    proc.kill()
    proc.wait()


@pytest.fixture(scope="module")
def three_notebooks(tmp_path_factory: pytest.TempPathFactory, stranger: subprocess.Popen[bytes]) -> Any:
    """The simulated GPU where each of NOTEBOOKS' kernels holds its share and the stranger 3 GiB."""
    scenario = tmp_path_factory.mktemp("gpus") / "gpus.json"
    scenario.write_text(json.dumps({"name": "three-notebooks", "devices": [{
        "name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "others": "512MB", "kernel": "1GB",
        "notebooks": {name: f"{gib}GB" for name, gib in NOTEBOOKS.items()},
        "other_processes": [{"pid": stranger.pid, "bytes": f"{OTHER_GIB}GB"}]}]}))
    return scenario


def start(shared_lab: Any, scenario: Any, app: str = "lab") -> Any:
    return shared_lab(env={"MGENV_SIMULATE_GPU": str(scenario)}, server_config=CONFIG, app=app)


def start_kernels(lab: Lab) -> dict[str, str]:
    """One session (a real ipykernel) per notebook, as open notebooks have; notebook → kernel id."""
    kernels = {}
    for name in NOTEBOOKS:
        (lab.root / name).write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
        session = api(lab, "POST", "api/sessions", {"path": name, "type": "notebook", "name": name,
                                                    "kernel": {"name": "python3"}})
        kernels[name] = session["kernel"]["id"]
    return kernels


def row_texts(page: Any) -> list[dict[str, str]]:
    return page.evaluate(f"""() => [...document.querySelectorAll('{ROWS}')].map(row => ({{
        key: row.dataset.key, name: (row.querySelector('.mgenv-gpu-open, .mgenv-gpu-name')?.textContent ?? ''),
        size: row.querySelector('.mgenv-gpu-size').textContent,
        buttons: row.querySelectorAll('button.mgenv-gpu-action').length,
        meta: row.querySelector('.mgenv-gpu-meta')?.textContent ?? ''}}))""")


def bar_segments(page: Any) -> list[dict[str, Any]]:
    segments = f"{SECTION} .mgenv-gpu-bar .mgenv-gpu-seg"
    return page.evaluate(f"""() => [...document.querySelectorAll('{segments}')].map(s => ({{
        key: s.dataset.key, width: s.getBoundingClientRect().width, title: s.title}}))""")


class GpuRequests:
    """The page's requests for the GPU view, watched from the page's first load: how many were sent, which are still
    on their way."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.sent = 0
        self.landed = 0
        self.in_flight: set[Any] = set()
        page.on("request", self._sent)
        page.on("requestfinished", self._landed)
        page.on("requestfailed", self._landed)

    def _sent(self, request: Any) -> None:
        if "/mgenv-jupyter/gpus" in request.url:
            self.sent += 1
            self.in_flight.add(request)

    def _landed(self, request: Any) -> None:
        if request in self.in_flight:
            self.in_flight.discard(request)
            self.landed += 1

    def during(self, seconds: float) -> int:
        """How many are sent over the next `seconds`: the window a rate (or its absence) is counted over."""
        before = self.sent
        self.page.wait_for_timeout(seconds * 1000)  # Playwright delivers events while it waits, not during time.sleep
        return self.sent - before

    def wait_until_landed(self, timeout_s: float = 10) -> None:
        """Until every request already sent has its answer (or failed)."""
        self._wait(lambda: not self.in_flight, timeout_s, "requests still on their way")

    def wait_for_round_trip(self, timeout_s: float = 10) -> None:
        """Until a request sent from now on has landed: the view has asked the server again since."""
        after = self.sent
        self._wait(lambda: self.sent > after and not self.in_flight, timeout_s, "no new request answered")

    def _wait(self, done: Any, timeout_s: float, what: str) -> None:
        deadline = time.monotonic() + timeout_s
        while not done():
            assert time.monotonic() < deadline, what
            self.page.wait_for_timeout(50)  # Playwright delivers the request events while it waits


def settle(page: Any) -> None:
    """Two frames: what a theme change or a resize restyled is laid out and painted."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def open_section(page: Any, requests: GpuRequests) -> None:
    """Open the panel; the GPU section starts folded, with nothing asked of the server: unfold it."""
    page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab[title='Framework Env']").click()
    gpu_title = page.locator(".mgenv-sb .jp-AccordionPanel-title:has-text('GPUs on this server')")
    gpu_title.wait_for(timeout=60_000)
    assert gpu_title.get_attribute("aria-expanded") == "false"
    assert requests.during(1.5) == 0
    gpu_title.click()
    page.wait_for_function(f"() => document.querySelectorAll('{ROWS}').length >= 5", timeout=60_000)


def layout_problems(page: Any) -> list[str]:
    return [*clipped_text(page, SECTION), *overlapping(page, f"{ROWS} > *:not(.mgenv-gpu-meta)"),
            *overlapping(page, f"{ROWS} .mgenv-gpu-meta > *"),
            *sticking_out(page, f"{SECTION} .mgenv-gpu-bar, {SECTION} .mgenv-gpu-row button", SECTION)]


def test_every_notebooks_gpu_memory_in_jupyterlab(shared_lab, three_notebooks, stranger):
    with start(shared_lab, three_notebooks) as lab, chromium_page(1400, 1000) as page:
        kernels = start_kernels(lab)
        requests = GpuRequests(page)
        page.goto(lab.page_url("lab"))
        page.wait_for_selector(".jp-SideBar.jp-mod-left .lm-TabBar-tab[title='Framework Env']", timeout=60_000)
        open_section(page, requests)
        # Give the GPU section the panel's height: no notebook is open, so the variables and the chart say only that.
        for title in ("Variables", "Live GPU memory"):
            page.locator(f".mgenv-sb .jp-AccordionPanel-title:has-text('{title}')").click()

        rows = row_texts(page)
        assert [r["key"] for r in rows] == [f"k:{kernels['big.ipynb']}", f"k:{kernels['medium.ipynb']}",
                                            f"o:{stranger.pid}", f"k:{kernels['small.ipynb']}", "unlisted"]
        assert [r["name"] for r in rows] == ["big.ipynb", "medium.ipynb", "other process", "small.ipynb",
                                             "not listed (driver, other containers)"]
        assert [r["size"] for r in rows] == ["20 GiB", "6 GiB", "3 GiB", "1 GiB", "512 MiB"]
        assert [r["buttons"] for r in rows] == [2, 2, 0, 2, 0]  # never an action for a process of no kernel
        assert rows[2]["meta"].startswith(f"pid {stranger.pid} · sleep · ")
        assert "python3" in rows[0]["meta"]
        status = page.inner_text(f"{SECTION} .mgenv-gpu-status")
        assert status == "simulated GPU (three-notebooks)"

        # The stacked bar: the same order, widths in proportion (40 GiB across the bar), the free memory last.
        segments = bar_segments(page)
        assert [s["key"] for s in segments] == [r["key"] for r in rows] + ["free"]
        per_gib = segments[0]["width"] / 20
        for segment, gib in zip(segments, [20, 6, 3, 1, 0.5, 40 - 30.5], strict=True):
            assert abs(segment["width"] - gib * per_gib) < 2, segments
        assert segments[0]["title"] == "big.ipynb: 20 GiB"

        # At least once a second while shown; nothing while the panel is closed.
        assert requests.during(3.2) >= 3
        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        requests.wait_until_landed()  # what was asked before the panel closed may still be answered
        assert requests.during(3.0) == 0
        page.evaluate("() => window.jupyterapp.shell.expandLeft()")
        assert requests.during(2.2) >= 2

        for width in (280, 480):
            set_left_area_width(page, width)
            for theme in ("light", "dark"):
                set_theme(page, dark=theme == "dark")
                settle(page)
                page.locator("#jp-left-stack").screenshot(path=str(screenshot(page, f"gpus-lab-{width}-{theme}.png")))
                if width == 480:  # the README's picture: the panel down to the section's last line
                    box = page.locator("#jp-left-stack").bounding_box()
                    bottom = page.locator(f"{SECTION} .mgenv-gpu-note").bounding_box()
                    ARTIFACTS.mkdir(exist_ok=True)
                    page.screenshot(path=str(ARTIFACTS / f"gpus-readme-{theme}.png"), clip={
                        "x": box["x"], "y": box["y"], "width": box["width"],
                        "height": bottom["y"] + bottom["height"] + 10 - box["y"]})
                assert layout_problems(page) == [], (width, theme)
        set_theme(page, dark=False)

        # Interrupt asks too, then goes through the server's kernel API (its log says so); the kernel stays.
        medium = f"{ROWS}[data-key='k:{kernels['medium.ipynb']}']"
        page.locator(f"{medium} .mgenv-gpu-interrupt").click()
        asked = page.locator(".jp-Dialog")
        asked.wait_for(timeout=10_000)
        assert "Interrupt the kernel of medium.ipynb?" in asked.inner_text()
        assert "holds 6 GiB on gpu0 (simulated)" in asked.inner_text()
        asked.get_by_role("button", name="Interrupt").click()
        deadline = time.time() + 10
        while f"Kernel interrupted: {kernels['medium.ipynb']}" not in lab.log.read_text():
            assert time.time() < deadline, "the server was not asked to interrupt the kernel"
            time.sleep(0.2)
        assert kernels["medium.ipynb"] in {k["id"] for k in api(lab, "GET", "api/kernels")}
        # An interrupt changes nothing in the list, so the section's status line says what it did (issue 29 point 11).
        interrupted = ("Interrupted the kernel of medium.ipynb: the cell it was running stops; its variables and "
                       "memory stay.")
        page.wait_for_function(f"() => document.querySelector('{SECTION} .mgenv-gpu-outcome').textContent === "
                               f"{interrupted!r}", timeout=5_000)
        assert page.get_attribute(f"{SECTION} .mgenv-gpu-outcome", "role") == "status"

        # Shut down asks first, naming the notebook and what it holds; Cancel changes nothing.
        small = f"{ROWS}[data-key='k:{kernels['small.ipynb']}']"
        page.locator(f"{small} .mgenv-gpu-shutdown").click()
        dialog = page.locator(".jp-Dialog")
        dialog.wait_for(timeout=10_000)
        question = dialog.inner_text()
        assert "Shut down the kernel of small.ipynb?" in question
        assert "The kernel of small.ipynb holds 1 GiB on gpu0 (simulated)." in question
        screenshot(page, "gpus-lab-shutdown-question.png")
        dialog.get_by_role("button", name="Cancel").click()
        dialog.wait_for(state="detached", timeout=10_000)
        # A shutdown would be asked for at the click, before the view's next request goes out and is answered.
        requests.wait_for_round_trip()
        assert page.locator(small).count() == 1
        assert kernels["small.ipynb"] in {k["id"] for k in api(lab, "GET", "api/kernels")}
        page.locator(f"{small} .mgenv-gpu-shutdown").click()
        page.locator(".jp-Dialog").get_by_role("button", name="Shut down").click()
        page.wait_for_selector(small, state="detached", timeout=5_000)
        assert kernels["small.ipynb"] not in {k["id"] for k in api(lab, "GET", "api/kernels")}
        assert page.inner_text(f"{SECTION} .mgenv-gpu-outcome") == "Shut down the kernel of small.ipynb."
        page.wait_for_function(f"() => document.querySelector('{SECTION} .mgenv-gpu-device-usage').textContent"
                               f".startsWith('29.5 GiB of 40 GiB')", timeout=5_000)
        assert [r["size"] for r in row_texts(page)] == ["20 GiB", "6 GiB", "3 GiB", "512 MiB"]
        screenshot(page, "gpus-lab-after-shutdown.png")

        # A notebook's name opens it.
        page.locator(f"{ROWS}[data-key='k:{kernels['big.ipynb']}'] .mgenv-gpu-open").click()
        page.wait_for_function("() => window.jupyterapp.shell.currentWidget?.context?.path === 'big.ipynb'",
                               timeout=30_000)


def test_notebook_7_opens_the_view_and_lists_the_kernels(shared_lab, three_notebooks):
    pytest.importorskip("notebook", minversion="7", reason="Notebook 7 is not installed in this environment")
    with start(shared_lab, three_notebooks, app="notebook") as lab, chromium_page(1200, 1000) as page:
        kernels = start_kernels(lab)
        page.goto(lab.page_url("notebooks/big.ipynb"))
        page.wait_for_selector(".jp-Notebook", timeout=60_000)
        page.click("li.lm-MenuBar-item:has-text('View')")
        page.locator(".lm-Menu-itemLabel:text-is('Framework Env')").click()
        page.locator(".mgenv-sb .jp-AccordionPanel-title:has-text('GPUs on this server')").click()
        page.wait_for_function(f"() => document.querySelectorAll('{ROWS}').length >= 5", timeout=60_000)
        for title in ("Variables", "Live GPU memory"):
            page.locator(f".mgenv-sb .jp-AccordionPanel-title:has-text('{title}')").click()
        names = [r["name"] for r in row_texts(page) if r["key"].startswith("k:")]
        assert names == ["big.ipynb", "medium.ipynb", "small.ipynb"]
        assert {r["key"][2:] for r in row_texts(page) if r["key"].startswith("k:")} == set(kernels.values())
        settle(page)
        screenshot(page, "gpus-notebook7.png")
        assert re.fullmatch(r"\d+(\.\d+)? GiB of 40 GiB used", page.inner_text(f"{SECTION} .mgenv-gpu-device-usage"))


# This scenario's kernel holds 9 GiB, so PyTorch's message here says so (lab_server's OOM_MESSAGE fits fragmentation).
HOLDER_MESSAGE = (
    "CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 40.00 GiB of which 512.00 MiB is "
    "free. Including non-PyTorch memory, this process has 9.00 GiB memory in use. Of the allocated memory 8.80 GiB is "
    "allocated by PyTorch, and 100.00 MiB is reserved by PyTorch but unallocated.")


def oom_scenario(holders: list[tuple[int, str]], notebooks: dict[str, str] | None = None) -> str:
    """A GPU whose kernels climb to 9 GiB, a notebook's kernel holding its share (the server and its kernels share
    this one simulated device), and other processes by pid."""
    return json.dumps({"name": "oom-server", "step_seconds": 0.05, "devices": [{
        "name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "reserved": "512MB",
        "kernel": {"start": "1GB", "step": "1GB", "max": "9GB"}, "notebooks": notebooks or {},
        "other_processes": [{"pid": pid, "bytes": size} for pid, size in holders]}]})


def test_the_oom_report_names_the_holding_notebook_and_shuts_it_down_after_asking(tmp_path):
    """In kernel A an out-of-memory error while kernel B (another notebook of the same server) holds most of the
    simulated GPU: the report names B's notebook, and its Shut down asks first and then B is gone."""
    gpu = tmp_path / "oom-gpu.json"
    gpu.write_text(oom_scenario([], {"b.ipynb": "30GB"}))  # kernel B's share, beside kernel A, as on a shared GPU
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "jupyter_server_config.json").write_text(json.dumps(CONFIG))
    with running_lab(tmp_path, env={"MGENV_SIMULATE_GPU": str(gpu)}) as lab, chromium_page(1400, 1000) as page:
        (lab.root / "b.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                                      "nbformat_minor": 5}))
        holder = api(lab, "POST", "api/sessions", {"path": "b.ipynb", "type": "notebook", "name": "b.ipynb",
                                                   "kernel": {"name": "python3"}})["kernel"]["id"]
        name = write_notebook(lab, "a.ipynb", [
            "%load_ext mgenv_jupyter", OOM_STAND_IN, raise_oom(HOLDER_MESSAGE)])
        open_and_run(page, lab, name, 3, until=".jp-Notebook .mgenv-oom .mgenv-oom-holder", timeout_s=90)
        offer = page.locator(".jp-Notebook .mgenv-oom .mgenv-oom-holder")
        report = page.inner_text(".jp-Notebook .mgenv-oom")
        assert "is the kernel of notebook b.ipynb on this server" in report, report
        assert offer.inner_text().startswith("Shut down…"), offer.inner_text()
        assert "Shut down the kernel of b.ipynb on this server: it holds 30 GiB of this GPU" in offer.inner_text()
        page.locator(".jp-Notebook .mgenv-oom").scroll_into_view_if_needed()
        screenshot(page, "gpus-oom-report.png")
        offer.locator(".mgenv-oom-holder-shutdown").click()
        dialog = page.locator(".jp-Dialog")
        dialog.wait_for(timeout=10_000)
        question = dialog.inner_text()
        assert "Shut down the kernel of b.ipynb?" in question, question
        # The memory the server reports for B now (its kernel memory and the 30 GiB listed for its pid).
        assert re.search(r"The kernel of b\.ipynb holds 3\d(\.\d+)? GiB on gpu0 \(simulated\)", question), question
        screenshot(page, "gpus-oom-question.png")
        dialog.get_by_role("button", name="Shut down").click()
        page.wait_for_selector(".jp-Notebook .mgenv-oom-holder .mgenv-oom-outcome[data-state='done']", timeout=30_000)
        assert holder not in {k["id"] for k in api(lab, "GET", "api/kernels")}
        assert "The kernel of b.ipynb is shut down" in offer.inner_text()
        screenshot(page, "gpus-oom-after.png")


def test_inside_a_container_the_section_says_so_and_marks_each_kernels_own_report(tmp_path):
    """The simulated "container" GPU: NVML's pids exist nowhere here. A kernel with a framework allocator (PyTorch's
    stand-in) reports what it holds, shown as its own report; the other kernel's figure is unknown, never 0."""
    from jupyter_client import BlockingKernelClient

    from lab_server import ROOT

    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "jupyter_server_config.json").write_text(json.dumps(CONFIG))
    with running_lab(tmp_path, env={"MGENV_SIMULATE_GPU": "container"}) as lab, chromium_page(1400, 1000) as page:
        ids = {}
        for name in ("torch.ipynb", "quiet.ipynb"):
            (lab.root / name).write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                                     "nbformat_minor": 5}))
            ids[name] = api(lab, "POST", "api/sessions", {"path": name, "type": "notebook", "name": name,
                                                          "kernel": {"name": "python3"}})["kernel"]["id"]
        kc = BlockingKernelClient()
        kc.load_connection_file(str(lab.root.parent / "runtime" / f"kernel-{ids['torch.ipynb']}.json"))
        kc.start_channels(hb=False)
        kc.wait_for_ready(timeout=60)
        for code in (f"import sys\nsys.path.insert(0, {str(ROOT / 'tests')!r})\n"
                     "from framework_stand_ins import TorchGpu, torch_modules\n"
                     f"sys.modules.update(torch_modules(TorchGpu(devices=[({2 * GiB}, {3 * GiB}, {3 * GiB})], "
                     "cuda_initialised=True)))\nimport torch", "%load_ext mgenv_jupyter", "x = 1", "y = 2"):
            kc.execute_interactive(code, timeout=120)
        kc.stop_channels()
        page.goto(lab.page_url("lab"))
        page.wait_for_selector(".jp-SideBar.jp-mod-left .lm-TabBar-tab[title='Framework Env']", timeout=60_000)
        page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab[title='Framework Env']").click()
        page.locator(".mgenv-sb .jp-AccordionPanel-title:has-text('GPUs on this server')").click()
        for title in ("Variables", "Live GPU memory"):
            page.locator(f".mgenv-sb .jp-AccordionPanel-title:has-text('{title}')").click()
        torch_row = f"{ROWS}[data-key='k:{ids['torch.ipynb']}']"
        page.wait_for_function(f"() => document.querySelector(\"{torch_row} .mgenv-gpu-size\")?.textContent"
                               " === '3 GiB (own report)'", timeout=60_000)
        quiet = page.inner_text(f"{ROWS}[data-key='k:{ids['quiet.ipynb']}'] .mgenv-gpu-size")
        status = page.inner_text(f"{SECTION} .mgenv-gpu-status")
        set_left_area_width(page, 280)
        for theme in ("light", "dark"):
            set_theme(page, dark=theme == "dark")
            settle(page)
            page.locator("#jp-left-stack").screenshot(path=str(screenshot(page, f"gpus-container-280-{theme}.png")))
            assert layout_problems(page) == [], theme
    assert quiet == "unknown"
    assert "its own pid namespace" in status and "marked “own report”" in status, status


# Names that are HTML: a program another user started under such a name, a notebook saved under one. Neither has a
# slash, so both are a valid file name; each would run its handler if it became markup.
HTML_PROCESS = "<img src=x onerror=alert('process')>"
HTML_NOTEBOOK = "<img src=x onerror=alert('notebook')>.ipynb"


def markup_inside(page: Any, selector: str) -> int:
    """How many elements a name could have made inside `selector` (an <img>, as both names would be)."""
    return int(page.evaluate(f"() => [...document.querySelectorAll({json.dumps(selector)})]"
                             ".reduce((n, e) => n + e.querySelectorAll('img').length, 0)"))


def cancelled_dialog(page: Any) -> str:
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=10_000)
    text = dialog.inner_text()
    assert markup_inside(page, ".jp-Dialog") == 0, text
    dialog.get_by_role("button", name="Cancel").click()
    dialog.wait_for(state="detached", timeout=10_000)
    return text


def test_html_in_a_process_or_notebook_name_is_text_in_the_report_the_view_and_the_dialogs(tmp_path):
    """Issue 28, a case that held: a process named like an <img> tag with an onerror handler holds GPU memory, and so
    does the kernel of a notebook named like one. The out-of-memory reports that name each (in the notebook and in
    the panel), the GPU view's rows and the Shut down questions all show the names as text: no element is made of
    them, and no handler runs (test-artifacts/html-names-*.png)."""
    program = tmp_path / "bin" / HTML_PROCESS
    program.parent.mkdir()
    shutil.copy("/bin/sleep", program)
    stranger = subprocess.Popen([str(program), "900"])
    gpu = tmp_path / "oom-gpu.json"
    gpu.write_text(oom_scenario([(stranger.pid, "3GB")], {HTML_NOTEBOOK: "30GB"}))
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "jupyter_server_config.json").write_text(json.dumps(CONFIG))
    try:
        with running_lab(tmp_path, env={"MGENV_SIMULATE_GPU": str(gpu)}) as lab, chromium_page(1400, 1000) as page:
            handlers_run: list[str] = []
            page.on("dialog", lambda d: (handlers_run.append(d.message), d.dismiss()))
            (lab.root / HTML_NOTEBOOK).write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                                              "nbformat_minor": 5}))
            holder = api(lab, "POST", "api/sessions", {"path": HTML_NOTEBOOK, "type": "notebook",
                                                       "name": HTML_NOTEBOOK, "kernel": {"name": "python3"}})
            holder_id = holder["kernel"]["id"]
            # The second report: the same GPU with only the stranger's program beside the kernel.
            alone = tmp_path / "oom-gpu-stranger.json"
            alone.write_text(oom_scenario([(stranger.pid, "30GB")]))
            name = write_notebook(lab, "a.ipynb", [
                "%load_ext mgenv_jupyter", OOM_STAND_IN, raise_oom(HOLDER_MESSAGE),
                f"import os\nos.environ['MGENV_SIMULATE_GPU'] = {str(alone)!r}\n"
                "from mgenv_jupyter.memory.simulated._simulation import from_environment\nfrom_environment()\n"
                "import time\ntime.sleep(1.5)\n"
                + raise_oom(HOLDER_MESSAGE)])

            # The report that names the notebook, and its Shut down question.
            open_and_run(page, lab, name, 3, until=".jp-Notebook .mgenv-oom .mgenv-oom-holder", timeout_s=90)
            report = page.inner_text(".jp-Notebook .mgenv-oom")
            assert f"is the kernel of notebook {HTML_NOTEBOOK} on this server" in report, report
            page.locator(".jp-Notebook .mgenv-oom").scroll_into_view_if_needed()
            screenshot(page, "html-names-report-notebook.png")
            page.locator(".jp-Notebook .mgenv-oom-holder .mgenv-oom-holder-shutdown").click()
            assert f"Shut down the kernel of {HTML_NOTEBOOK}?" in cancelled_dialog(page)

            # The report that names the program.
            run_cell(page, 3)
            page.wait_for_function("() => document.querySelectorAll('.jp-Notebook .mgenv-oom').length >= 2",
                                   timeout=90_000)
            second = page.locator(".jp-Notebook .mgenv-oom").nth(1).inner_text()
            assert f"the largest, pid {stranger.pid} (" in second and HTML_PROCESS in second, second
            page.locator(".jp-Notebook .mgenv-oom").nth(1).scroll_into_view_if_needed()
            screenshot(page, "html-names-report-process.png")
            assert markup_inside(page, ".jp-Notebook .mgenv-oom") == 0

            # The GPU view: the notebook's row and the program's row, and the notebook's Shut down question.
            page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab[title='Framework Env']").click()
            page.locator(".mgenv-sb .jp-AccordionPanel-title:has-text('GPUs on this server')").click()
            notebook_row = f"{ROWS}[data-key='k:{holder_id}']"
            page.wait_for_selector(f"{ROWS}[data-key='o:{stranger.pid}']", timeout=60_000)
            page.wait_for_selector(notebook_row, timeout=60_000)
            assert page.inner_text(f"{notebook_row} .mgenv-gpu-open") == HTML_NOTEBOOK
            assert HTML_PROCESS in page.inner_text(f"{ROWS}[data-key='o:{stranger.pid}'] .mgenv-gpu-meta")
            page.locator("#jp-left-stack").screenshot(path=str(screenshot(page, "html-names-gpu-view.png")))
            # The whole panel: the GPU view and the last report, which the panel shows too (its card unfolded).
            page.locator(".mgenv-sb-oom .mgenv-oom-headline").click()
            assert page.inner_text(".mgenv-sb").count(HTML_PROCESS) >= 2
            assert markup_inside(page, ".mgenv-sb") == 0
            page.locator(f"{notebook_row} .mgenv-gpu-shutdown").click()
            assert f"Shut down the kernel of {HTML_NOTEBOOK}?" in cancelled_dialog(page)
            assert holder_id in {k["id"] for k in api(lab, "GET", "api/kernels")}
            assert handlers_run == []
    finally:
        stranger.kill()
        stranger.wait()
