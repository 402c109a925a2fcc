"""A real JupyterLab for browser tests: fixed token, 127.0.0.1, fresh config/runtime/workspace/data dirs, started under
`timeout`, polled on /api/status, stopped by its PID. Chromium is Debian's, driven by Playwright.

The lab exposes its application object as `window.jupyterapp` (JupyterLab's `expose_app_in_browser`), so tests can run
commands through its command registry instead of clicking through menus (and run them while a dialog is open).

Starting a JupyterLab costs seconds, and a Chromium a few more: tests share both where they do not interfere.

- `shared_lab` (a fixture, tests/conftest.py): `with shared_lab(env=..., app=...) as lab:` gives a test a JupyterLab
  server that looks freshly started, from a pool kept for the whole session (tests/lab_pool.py): one server per kind
  (its environment, its server config, its user settings, its `jupyter` command), started by the first test that asks
  for that kind and handed to the next. Before each test the pool shuts down every kernel and session through the REST
  API, deletes the saved workspaces (a page opens on JupyterLab's default layout), puts the user settings back (a theme
  or a language a test chose is gone), empties the notebooks folder and forgets what the kernels remembered in the data
  dir (approved profiles, kernel specs a test added under `lab.data / "kernels"`). After the test its kernels are shut
  down. `app="notebook"` serves the same server's Notebook 7 pages. A module that keeps one notebook open for all its
  tests holds a lab for the module (`with lab_pool.lab(...) as lab:` in a module fixture).
- `chromium` (a module fixture, tests/conftest.py; every module of tests/browser uses it through that tier's conftest):
  one Chromium for the module; inside it every `with chromium_page(width, height) as page:` is a new browser context
  (its own cookies, storage and cache) with one page, closed when the block ends. Outside it, chromium_page starts a
  Chromium of its own. A Chromium is not shared by modules: Playwright's sync API marks its event loop as the thread's
  running one while it lives, and other tiers run asyncio code (nbclient) in the same thread.

A new browser test module needs nothing more than
    def test_x(shared_lab):
        with shared_lab(env={"MGENV_SIMULATE_GPU": "a100-40gb"}) as lab, chromium_page() as page:
            name = write_notebook(lab, "x.ipynb", [...])
            open_notebook(page, lab, name)
A test that must start from a server nobody used before (what it checks lives in the server process) uses
`running_lab(tmp_path)` as before.

Wait on what happens, never for a while: Playwright's wait_for_selector / wait_for_function, tests/comm_traffic.py's
CommTraffic (the kernel's answer to a request of the sidebar's, read off the kernel websockets), tests/waiting.py's
wait_until outside the page. A fixed wait stays only where it is the scenario (a window over which nothing may arrive,
a cell that runs while a simulated GPU fills), with a comment that says so."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
TOKEN = "mgenv-test-token"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# The out-of-memory scenario of the report's browser tests: the simulated GPU of fragmentation.json climbs to 38 GiB of
# its 40, and a cell raises a stand-in with PyTorch's class name and wording (there is no GPU here): what the kernel's
# hook recognises is the class and the message. The wording says 16.3 GiB reserved but unallocated, 2 GiB asked for.
# Beside it, a stand-in of a framework's device cache (CuPy's pools, whose free_all_blocks a free calls): the simulated
# GPU gives the kernel's cache back only when a free asked a framework's allocator for it, never on malloc_trim alone.
OOM_SCENARIO = ROOT / "tests" / "data" / "oom" / "fragmentation.json"
OOM_MESSAGE = ("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 40.00 GiB of which 1.10 "
               "GiB is free. Including non-PyTorch memory, this process has 38.00 GiB memory in use. Of the allocated "
               "memory 21.00 GiB is allocated by PyTorch, and 16.30 GiB is reserved by PyTorch but unallocated.")
CACHE_STAND_IN = ("import sys, types\n"  # a statement, not an expression: no Out[n] keeps it
                  "sys.modules['cupy'] = sys.modules.get('cupy') or (lambda pool: types.SimpleNamespace("
                  "get_default_memory_pool=lambda: pool, get_default_pinned_memory_pool=lambda: pool))("
                  "types.SimpleNamespace(free_all_blocks=lambda: None))")
OOM_STAND_IN = ("OutOfMemoryError = type('OutOfMemoryError', (RuntimeError,), {'__module__': 'torch'})\n"
                + CACHE_STAND_IN)


def raise_oom(message: str = OOM_MESSAGE, after_s: float = 0) -> str:
    """A cell that raises the stand-in (defined by OOM_STAND_IN) with `message`, `after_s` seconds after it starts
    (so that the memory recorder samples it)."""
    wait = f"import time\ntime.sleep({after_s})\n" if after_s else ""
    return f"{wait}raise OutOfMemoryError({message!r})"


@dataclass
class Lab:
    url: str
    root: Path
    log: Path
    data: Path  # JUPYTER_DATA_DIR of the server and its kernels: what they remember (approved profiles) starts empty
    app: str = "lab"  # "notebook": Notebook 7, which opens a notebook at notebooks/<name>

    def page_url(self, path: str) -> str:
        return f"{self.url}/{path}?token={TOKEN}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# JupyterLab settings for test labs: no news pop-up over screenshots, and no "Select Kernel" dialog (which can open
# after a notebook already reads idle, and then catches the next click or command).
SETTINGS: dict[str, dict[str, Any]] = {
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker": {"autoStartDefaultKernel": True},
}


# The user settings of a JupyterLab set to 中文 (its language pack's locale): `shared_lab(settings=CHINESE_LAB)`.
CHINESE_LAB: dict[str, dict[str, Any]] = {"@jupyterlab/translation-extension/plugin": {"locale": "zh_CN"}}


def write_settings(folder: Path, settings: dict[str, dict], keep: bool = False) -> None:
    """Each plugin's user settings as JupyterLab keeps them (`<plugin id>.jupyterlab-settings`); with `keep`, a file a
    test wrote there before the lab started stays as it is."""
    for plugin, values in settings.items():
        path = folder / f"{plugin}.jupyterlab-settings"
        if keep and path.exists():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


@contextmanager
def running_lab(
    workdir: Path, env: dict[str, str] | None = None, limit_s: int = 900, app: str = "lab",
    jupyter: Path | None = None, args: tuple[str, ...] = (),
) -> Iterator[Lab]:
    """JupyterLab (or, with app="notebook", Notebook 7, which takes the same options) serving workdir/notebooks;
    `jupyter`: the `jupyter` command of another environment (default: this Python's), whose kernel it starts; `args`:
    more command-line options for it (`--GpuCuller.idle_after=60`)."""
    port = _free_port()
    dirs = {name: workdir / name for name in ("config", "runtime", "workspaces", "settings", "notebooks", "data")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    write_settings(dirs["settings"], SETTINGS, keep=True)
    # Notebook 7 (served by the same server under /notebooks) exposes its app too, unless a test brings its config.
    server_config = dirs["config"] / "jupyter_server_config.json"
    if not server_config.exists():
        server_config.write_text(json.dumps({"JupyterNotebookApp": {"expose_app_in_browser": True}}))
    log = workdir / "lab.log"
    jupyter = jupyter or Path(sys.executable).with_name("jupyter")
    # Kernels inherit the server's environment, so the data dir keeps what they write out of the user's home too.
    child_env = {**os.environ, "JUPYTER_DATA_DIR": str(dirs["data"]), **(env or {}),
                 "JUPYTER_CONFIG_DIR": str(dirs["config"]), "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
                 "JUPYTERLAB_WORKSPACES_DIR": str(dirs["workspaces"])}
    with open(log, "w") as out:
        proc = subprocess.Popen(
            ["timeout", str(limit_s), str(jupyter), app, "--allow-root", "--no-browser", "--ip=127.0.0.1",
             f"--port={port}", f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={dirs['notebooks']}",
             "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
             f"--LabApp.workspaces_dir={dirs['workspaces']}", f"--LabApp.user_settings_dir={dirs['settings']}",
             "--LabApp.expose_app_in_browser=True", *args],
            stdout=out, stderr=subprocess.STDOUT, env=child_env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2) as response:
                    json.load(response)
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"JupyterLab did not start:\n{log.read_text()[-3000:]}") from None
                time.sleep(0.2)  # polls until the server answers (it has no other way to say it is up)
        yield Lab(url, dirs["notebooks"], log, Path(child_env["JUPYTER_DATA_DIR"]), app)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)


# The Chromium of the test module now running (the `chromium` fixture), if any: chromium_page opens contexts in it.
_shared_browsers: list[Any] = []


@contextmanager
def shared_chromium() -> Iterator[Any]:
    """One Chromium for every chromium_page() opened until this block ends (a test module's: see the docstring)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:  # Playwright gives the browser a new, empty profile directory of its own
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        _shared_browsers.append(browser)
        try:
            yield browser
        finally:
            _shared_browsers.remove(browser)
            browser.close()


@contextmanager
def chromium_page(width: int = 1400, height: int = 900) -> Iterator[Any]:
    """A page in a new browser context (nothing kept from another page: cookies, storage, cache), in the shared
    Chromium where one is open, else in a Chromium started for this block."""
    if _shared_browsers:
        context = _shared_browsers[-1].new_context(viewport={"width": width, "height": height})
        try:
            yield context.new_page()
        finally:
            context.close()
        return
    with shared_chromium(), chromium_page(width, height) as page:
        yield page


PYTHON3 = {"name": "python3", "display_name": "Python 3", "language": "python"}


def write_user_settings(lab: Lab, plugin: str, values: dict[str, Any]) -> None:
    """A user's settings for one plugin (`mgenv-jupyter:sidebar`), as JupyterLab's Settings editor saves them: a page
    opened afterwards has them. A shared lab puts its settings back before its next test."""
    write_settings(lab.root.parent / "settings", {plugin.replace(":", "/"): values})


def add_kernel_spec(lab: Lab, name: str, spec: dict[str, Any]) -> None:
    """A kernel spec (kernel.json's content) in the server's data dir, where JupyterLab lists it from the next page
    load on; a shared lab forgets it before its next test."""
    folder = lab.data / "kernels" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.json").write_text(json.dumps(spec))


def write_notebook(lab: Lab, name: str, cells: list[str], kernelspec: dict | None = None,
                   metadata: dict | None = None) -> str:
    """A notebook of code cells in the lab's root; `metadata` is merged into the notebook's metadata."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nb.metadata["kernelspec"] = kernelspec or PYTHON3
    nb.metadata.update(metadata or {})
    nbformat.write(nb, lab.root / name)
    return name


def _rest(lab: Lab, method: str, path: str) -> Any:
    request = urllib.request.Request(f"{lab.url}{path}?token={TOKEN}", method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    return json.loads(body) if body else None


def shut_down_kernels(lab: Lab) -> None:
    """Shut down every session's kernel through the server's REST API (a notebook opened next gets a new kernel), and
    any kernel started without a session."""
    for session in _rest(lab, "GET", "/api/sessions"):
        _rest(lab, "DELETE", f"/api/sessions/{session['id']}")
    for kernel in _rest(lab, "GET", "/api/kernels"):
        try:
            _rest(lab, "DELETE", f"/api/kernels/{kernel['id']}")
        except urllib.error.HTTPError as error:  # gone meanwhile: its session's deletion was still ending it
            if error.code != 404:
                raise


def execute_command(page: object, command: str, args: dict | None = None) -> object:
    """Run a JupyterLab command through its command registry (works while a modal dialog is open)."""
    return page.evaluate(  # type: ignore[attr-defined]
        "([command, args]) => window.jupyterapp.commands.execute(command, args)", [command, args or {}])


ACTIVE_CELL = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell.jp-mod-active"
# The question the sidebar asks before a notebook profile the kernel has no approval for is applied.
PROFILE_QUESTION = ".jp-Dialog:has(.mgenv-profile-review)"


def run_active_cell(page: object, timeout_s: float = 60) -> str:
    """Run the active cell of the notebook on screen with the "Run Selected Cell" command and return its output once
    this run (a new execution count) has printed it."""
    prompt = f"document.querySelector('{ACTIVE_CELL} .jp-InputPrompt')?.textContent ?? ''"
    before = page.evaluate(f"() => {prompt}")  # type: ignore[attr-defined]
    execute_command(page, "notebook:run-cell")
    page.wait_for_function(  # type: ignore[attr-defined]
        f"""before => {{
            const prompt = {prompt};
            const output = document.querySelector('{ACTIVE_CELL} .jp-OutputArea-output')?.textContent ?? '';
            return /\\[\\d+\\]/.test(prompt) && prompt !== before && output.trim() !== '';
        }}""", arg=before, timeout=timeout_s * 1000)
    return page.inner_text(f"{ACTIVE_CELL} .jp-OutputArea-output").strip()  # type: ignore[attr-defined]


def open_notebook(page: object, lab: Lab, name: str, timeout_s: float = 120) -> None:
    """Open a notebook (in JupyterLab, or in Notebook 7 for a lab started with app="notebook") and wait until its
    kernel is connected and idle.

    JupyterLab may ask which kernel to use when it opens a notebook before it has listed the kernel specs; the
    preselected one is accepted. The notebook's own session is asked: the status bar reads "No Kernel | Idle" while
    the session is still being set up, and JupyterLab may start a kernel and replace it at once (a busy machine
    widens that window), so only a kernel that is connected and idle counts."""
    page.goto(lab.page_url(f"notebooks/{name}" if lab.app == "notebook" else f"lab/tree/{name}"))  # type: ignore
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)  # type: ignore[attr-defined]
    deadline = time.time() + timeout_s
    while True:
        try:  # until the kernel is ready, or JupyterLab asks which kernel to use
            page.wait_for_function(f"() => ({KERNEL_READY_JS})() || ({_KERNEL_DIALOG_JS})()",  # type: ignore
                                   timeout=max(deadline - time.time(), 0.001) * 1000)
        except Exception as error:  # Playwright's TimeoutError
            raise TimeoutError(f"the notebook's kernel did not become idle in {timeout_s:.0f} s") from error
        if page.evaluate(KERNEL_READY_JS):  # type: ignore[attr-defined]
            break
        _answer_kernel_dialog(page)
        page.wait_for_function(f"() => !({_KERNEL_DIALOG_JS})()", timeout=30_000)  # type: ignore[attr-defined]


KERNEL_READY_JS = """() => {
    const context = window.jupyterapp.shell.currentWidget?.sessionContext;
    const kernel = context?.session?.kernel;
    return !!kernel && !context.hasNoKernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle';
}"""
# A chart's series as it holds it (chart: a selector of the element holding the chart; series: its key): how many
# readings, the last, the highest, and every series' key.
CHART_SERIES_JS = """([chart, series]) => {
    const live = document.querySelector(chart)?.mgenvChart;
    if (!live) return null;
    const values = live.store.series.some(s => s.key === series) ? live.store.column(series) : [];
    const known = values.filter(v => v !== null && v !== undefined);
    return {samples: known.length, last: known.length ? known[known.length - 1] : null,
            highest: known.length ? Math.max(...known) : null, keys: live.store.series.map(s => s.key)};
}"""


def open_and_run(page: object, lab: Lab, name: str, cells: int, until: str, timeout_s: float = 60) -> None:
    """Open a notebook, run its first `cells` cells one after the other, and wait until `until` shows (the report
    under a cell that failed)."""
    open_notebook(page, lab, name)
    for index in range(cells):
        run_cell(page, index)
    page.wait_for_selector(until, timeout=timeout_s * 1000)  # type: ignore[attr-defined]


def cell_output(page: object, index: int, text: str, timeout: int = 60_000) -> str:
    """Wait until the `index`-th cell's output holds `text`, then return that output."""
    selector = f".jp-Cell:nth-child({index + 1}) .jp-OutputArea"
    page.wait_for_function(  # type: ignore[attr-defined]
        "([selector, text]) => document.querySelector(selector)?.textContent.includes(text)",
        arg=[selector, text], timeout=timeout)
    return page.inner_text(selector)  # type: ignore[attr-defined]


def run_all_cells(page: object, lab: Lab, notebook: str) -> None:
    """Open a notebook in JupyterLab, wait until its kernel is idle and run all its cells with the "Run All Cells"
    command (the command registry, not the menu: a toast or dialog cannot intercept it)."""
    open_notebook(page, lab, notebook)
    run_all_cells_until(page, lab, "() => [...document.querySelectorAll('.jp-InputPrompt')]"
                                   ".some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))", timeout_s=30)


# What the notebook on screen shows, for a failure's message: its path, its kernel, and each cell's prompt and output.
NOTEBOOK_STATE_JS = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const kernel = panel?.sessionContext?.session?.kernel;
    return {path: panel?.context?.path ?? null,
            kernel: kernel ? [kernel.id, kernel.connectionStatus, kernel.status] : null,
            cells: (panel?.content?.widgets ?? []).map(cell => [
                cell.node.querySelector('.jp-InputPrompt')?.textContent ?? '',
                (cell.node.querySelector('.jp-OutputArea')?.textContent ?? '').slice(0, 400)])};
}"""


def notebook_state(page: object, lab: Lab | None = None) -> str:
    """The notebook on screen as a failure's message says it: its kernel (id, connection, status), each cell's prompt
    and the start of its output, and the end of the server's log."""
    state = page.evaluate(NOTEBOOK_STATE_JS)  # type: ignore[attr-defined]
    lines = [f"notebook {state['path']}, kernel {state['kernel']}"]
    lines += [f"  cell {index} {prompt!r}: {output!r}" for index, (prompt, output) in enumerate(state["cells"])]
    if lab is not None:
        lines += ["the server's log ends:", lab.log.read_text(errors="replace")[-3000:]]
    return "\n".join(lines)


def run_all_cells_until(page: object, lab: Lab, done_js: str, timeout_s: float = 120) -> None:
    """Run every cell of the notebook on screen (whose kernel is idle) with "Run All Cells" and wait until `done_js`
    holds. JupyterLab may replace a notebook's kernel just after the first one became idle (open_notebook's docstring),
    and a run sent to the first is lost with it: the cells are run once more on the kernel that replaced it, as a user
    who saw the kernel change would. Anything else that keeps `done_js` from holding fails with what the notebook
    shows."""
    kernel_id = "() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel?.id ?? null"
    ran_on = page.evaluate(kernel_id)  # type: ignore[attr-defined]
    execute_command(page, "notebook:run-all-cells")
    deadline = time.time() + timeout_s
    while True:
        try:
            page.wait_for_function(done_js, timeout=min(5.0, max(deadline - time.time(), 0.001)) * 1000)  # type: ignore
            return
        except Exception:  # Playwright's TimeoutError: not yet
            pass
        now_on = page.evaluate(kernel_id)  # type: ignore[attr-defined]
        if now_on not in (None, ran_on) and page.evaluate(KERNEL_READY_JS):  # type: ignore[attr-defined]
            print(f"the notebook's kernel {ran_on} was replaced by {now_on}: its cells are run again")
            ran_on = now_on
            execute_command(page, "notebook:run-all-cells")
        elif time.time() > deadline:
            raise AssertionError(f"after {timeout_s:.0f} s of Run All Cells, this does not hold: {done_js}\n"
                                 + notebook_state(page, lab))


def run_cell(page: object, index: int) -> None:
    """Make the `index`-th cell of the notebook on screen the active one and run it with the "Run Selected Cell"
    command (it does not wait for the output: see run_active_cell)."""
    page.evaluate(  # type: ignore[attr-defined]
        "index => { window.jupyterapp.shell.currentWidget.content.activeCellIndex = index; }", index)
    execute_command(page, "notebook:run-cell")


def open_sidebar(page: object) -> None:
    """Click the left-area tab titled "Framework Env" and wait until the panel has the kernel's catalog."""
    page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab[title='Framework Env']").click()  # type: ignore
    page.wait_for_selector(".mgenv-sb-config[data-connection='ready'] .mgenv-sb-row",  # type: ignore[attr-defined]
                           timeout=60_000)


# The panel's "Restart and apply" toolbar button and the question JupyterLab asks before it restarts the kernel.
RESTART_BUTTON = ".mgenv-sb .jp-SidePanel-toolbar jp-button[data-command='mgenv-jupyter:restart-and-apply']"
RESTART_QUESTION = ".jp-Dialog:has(.mgenv-restart-review)"


def restart_and_apply(page: object) -> str:
    """Click "Restart and apply" in the panel's toolbar and confirm JupyterLab's question; returns the button's label
    as it was clicked ("Restart and apply (2)": two variables only a restart brings into effect)."""
    button = page.locator(RESTART_BUTTON)  # type: ignore[attr-defined]
    label = button.get_attribute("aria-label")
    button.click()
    page.locator(RESTART_QUESTION).get_by_role("button", name="Restart and apply").click()  # type: ignore
    return label


_LEFT_AREA_JS = """() => {
    const stack = document.querySelector('#jp-left-stack').getBoundingClientRect();
    const handle = document.querySelector('#jp-main-split-panel > .lm-SplitPanel-handle:not(.lm-mod-hidden)')
        .getBoundingClientRect();
    return [stack.left, stack.width, handle.left + handle.width / 2, handle.top + handle.height / 2];
}"""


def open_details(page: object, selector: str) -> None:
    """Open a <details> (the panel's history, say) whether or not it is open already: a click on its summary toggles,
    and a panel drawn again (after a restart) may keep it open, so a click closed it."""
    page.locator(f"{selector} > summary").scroll_into_view_if_needed()  # type: ignore[attr-defined]
    page.evaluate("selector => { document.querySelector(selector).open = true; }", selector)  # type: ignore[attr-defined]


def set_left_area_width(page: object, width: int, attempts: int = 4) -> None:
    """Make the open left area's panel `width` CSS pixels wide by dragging the split handle beside it, as a user does
    (JupyterLab has no command for it); checked afterwards, since the panel may refuse widths below its minimum."""
    for _ in range(attempts):
        left, current, x, y = page.evaluate(_LEFT_AREA_JS)  # type: ignore[attr-defined]
        if abs(current - width) <= 1:
            return
        page.mouse.move(x, y)  # type: ignore[attr-defined]
        page.mouse.down()  # type: ignore[attr-defined]
        page.mouse.move(x + (width - current), y, steps=4)  # type: ignore[attr-defined]
        page.mouse.up()  # type: ignore[attr-defined]
        page.wait_for_function(  # type: ignore[attr-defined]
            "before => Math.abs(document.querySelector('#jp-left-stack').getBoundingClientRect().width - before) > 0.5",
            arg=current, timeout=10_000)
    final = page.evaluate(_LEFT_AREA_JS)[1]  # type: ignore[attr-defined]
    raise AssertionError(f"the left area is {final:.0f} px wide, not {width} px")


def main_thread_busy(page: object, seconds: float) -> float:
    """The share of wall time the page's main thread spent running tasks (Chromium's TaskDuration metric)."""
    cdp = page.context.new_cdp_session(page)  # type: ignore[attr-defined]
    cdp.send("Performance.enable")

    def task_duration() -> float:
        metrics = cdp.send("Performance.getMetrics")["metrics"]
        return next(m["value"] for m in metrics if m["name"] == "TaskDuration")

    start_task, start = task_duration(), time.perf_counter()
    time.sleep(seconds)  # the window measured: what the page does meanwhile is the figure
    busy = (task_duration() - start_task) / (time.perf_counter() - start)
    cdp.detach()
    return busy


# JupyterLab's "Select Kernel" dialog is open (open_notebook answers it with the preselected kernel).
_KERNEL_DIALOG_JS = ("() => [...document.querySelectorAll('.jp-Dialog')]"
                     ".some(dialog => dialog.textContent.includes('Select Kernel'))")


def _answer_kernel_dialog(page: object) -> None:
    if page.locator(".jp-Dialog :text('Select Kernel')").count():  # type: ignore[attr-defined]
        page.locator(".jp-Dialog button:has-text('Select')").click()  # type: ignore[attr-defined]


def wait_for_saved_profile(path: Path) -> dict:
    """The notebook file once it is saved with a profile in its metadata (after Ctrl+S or a restart's save)."""
    deadline = time.time() + 30
    while True:
        try:
            saved = json.loads(path.read_text())
        except json.JSONDecodeError:  # caught while the server writes the file
            saved = {"metadata": {}}
        if saved["metadata"].get("mgenv_jupyter"):
            return saved
        assert time.time() < deadline, f"{path.name} was not saved with its profile"
        time.sleep(0.25)


def screenshot(page: object, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=False)  # type: ignore[attr-defined]
    return path
