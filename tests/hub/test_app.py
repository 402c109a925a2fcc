"""The service in a real JupyterHub, the newest (6.x) and the oldest declared (5.0) (tests/hub_server.py): configurable-
http-proxy, DummyAuthenticator, SimpleLocalProcessSpawner, two users whose servers share one simulated GPU machine
(MGENV_SIMULATE_GPU_MACHINE), the user's in a pid namespace of its own as a container spawner's
(tests/hub_spawner.py; as root) and attributed by its kernels' own reports. Checked over HTTP with the users' own
tokens: the admin's page lists both users' notebooks with their bytes and idle times, on one node and one GPU whose
used figure is their bytes and the rest, as each user's kernel sees the device too; the other user's only theirs, and
asking for the admin's servers or a shutdown gets 403 from the service; a shutdown through the service's API ends the
kernel in its user's server; and the page in real Chromium, signed in through the hub's login form: light and dark,
1280 and 800 px wide (test-artifacts/hub-*.png), Shut down asks first (Cancel keeps the kernel) and then works.

One hub per JupyterHub version for the module (about 40 s each with both servers), so the page's browser test lives
here too; the module is marked slow by hand (it is in no tier directory), and setup_venvs: ./dev installs the proxy
and the oldest hub beside the tests."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jupyterhub")
from hub_server import ADMIN, CONTAINED, PASSWORD, ROOT, SERVICE, USER, HubRun, running_hub  # noqa: E402
from layout_checks import clipped_text, overlapping  # noqa: E402

from lab_server import chromium_page, screenshot  # noqa: E402

# configurable-http-proxy is installed by ./dev's setup_venvs, beside the first tests: wait for it (setup_beside.py).
pytestmark = [pytest.mark.slow, pytest.mark.setup_venvs]

NOTEBOOKS = {ADMIN: ("ada-train.ipynb", 20), USER: ("bob-eval.ipynb", 6)}  # GiB each one's kernel holds
# Every notebook a test opens, with its share of the simulated GPU (GiB).
SHARES = {**dict(NOTEBOOKS.values()), "bob-scratch.ipynb": 1, "bob-leftover.ipynb": 2}


def scenario_file(folder: Path) -> Path:
    path = folder / "gpus.json"
    path.write_text(json.dumps({"name": "hub", "devices": [{
        "name": "NVIDIA A100-SXM4-80GB", "total": "80GB", "others": "512MB", "kernel": "1GB",
        "notebooks": {name: f"{gib}GB" for name, gib in SHARES.items()}, "other_processes": []}]}))
    return path


def open_notebook(run: HubRun, user: str, notebook: str) -> str:
    """A notebook's kernel in `user`'s server. In a pid namespace of its own (CONTAINED), NVML's pids are the host's
    and the server attributes a kernel by what it reports of its framework's allocator: there the kernel loads the
    extension over PyTorch's stand-in (tests/framework_stand_ins.py; no GPU here), whose allocator reserved the
    notebook's share of the simulated GPU, as a real PyTorch would have what the driver lists for it."""
    if user not in CONTAINED:
        return run.open_notebook(user, notebook)
    held = SHARES[notebook] << 30
    return run.open_notebook(user, notebook, (
        f"import sys\nsys.path.insert(0, {str(ROOT / 'tests')!r})\n"
        "from framework_stand_ins import TorchGpu, torch_modules\n"
        f"sys.modules.update(torch_modules(TorchGpu(devices=[({held}, {held}, {held})], cuda_initialised=True)))\n"
        "import torch\nget_ipython().run_line_magic('load_ext', 'mgenv_jupyter')"))


def settled(run: HubRun) -> str:
    """The admin's page once every notebook's bytes are known (a contained kernel's first report takes a second)."""
    token = run.token_of(ADMIN)
    deadline = time.monotonic() + 60
    while True:
        _, page = page_of(run, token)
        if "data-bytes=''" not in page or time.monotonic() > deadline:
            return str(page)
        time.sleep(0.5)


@pytest.fixture(scope="module", params=["newest", "oldest"])
def hub(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
        ) -> Iterator[tuple[HubRun, dict[str, str]]]:
    """The newest JupyterHub (.venv's, 6.x), then the oldest declared (5.0): each started once."""
    folder = tmp_path_factory.mktemp("hub")
    with running_hub(folder, scenario_file(folder), oldest=request.param == "oldest") as run:
        kernels = {}
        for user, (notebook, _) in NOTEBOOKS.items():
            run.start_server(user)
            kernels[user] = open_notebook(run, user, notebook)
        settled(run)
        yield run, kernels


def holders(page: str) -> dict[str, tuple[str, str, str]]:
    """{kernel id: (user, notebook, bytes)} of the page's GPU tables, and each row's idle cell must be a time."""
    found = {}
    for kernel, user, notebook, held, idle in re.findall(
            r"<tr class='holder' data-kernel='([^']*)' data-bytes='\d*' data-figure='\w+'><td>([^<]*)</td><td>.*?</td>"
            r"<td>([^<]*)</td><td class='n'[^>]*>([^<]*)</td><td class='n'>([^<]*)</td>", page):
        assert re.fullmatch(r"\d+ (s|min|h|d)", idle), idle  # idle since the kernel started
        found[kernel] = (user, notebook, held)
    return found


def page_of(run: HubRun, token: str, query: str = "", expect: tuple[int, ...] = (200,)) -> tuple[int, Any]:
    return run.call("GET", f"services/{SERVICE}/{query}", token=token, expect=expect)


def test_the_admin_sees_both_users_notebooks_with_bytes_and_idle_times(hub: tuple[HubRun, dict[str, str]]) -> None:
    run, kernels = hub
    token = run.token_of(ADMIN)
    _, page = page_of(run, token)
    seen = holders(page)
    for user, (notebook, gib) in NOTEBOOKS.items():
        assert seen[kernels[user]] == (user, notebook, f"{gib} GiB"), (user, seen)
    assert page.count("class='shutdown") == 2 and "NVIDIA A100-SXM4-80GB" in page


# What the scenario's device holds beside the notebooks: its other processes.
OTHERS = 512 << 20
# In a kernel: what the simulated NVML lists on gpu0, as the framework's or nvidia-smi's view of the device would.
NVML_CELL = """
import json, os, pynvml
from mgenv_jupyter.memory.simulated._host_pids import my_pid
from mgenv_jupyter.memory.simulated._simulation import from_environment
from_environment()
pynvml.nvmlInit()
handle = pynvml.nvmlDeviceGetHandleByIndex(0)
listed = {p.pid: p.usedGpuMemory for p in pynvml.nvmlDeviceGetComputeRunningProcesses(handle)}
print(json.dumps([os.getpid(), my_pid(), pynvml.nvmlDeviceGetMemoryInfo(handle).used, sorted(listed.items())]))
"""


def test_both_users_notebooks_are_on_one_gpu_of_one_node_and_add_up(hub: tuple[HubRun, dict[str, str]]) -> None:
    """Both servers run on this host (one node; the user's in a pid namespace of its own, as a container spawner's)
    and share one simulated machine: the page shows one gpu0 with both users' notebooks, its used figure their bytes
    and the scenario's other processes. Each kernel's own NVML lists the other user's kernel on the same device with
    the same figures, by host pid: the contained kernel's own pid is not among them, as in a real container, so its
    server attributes it by what the kernel reports, and the page shows the same bytes."""
    run, kernels = hub
    page = settled(run)
    assert page.count("<h2 class='node'") == 1 and f"Node {socket.gethostname()}" in page, page
    assert page.count("<h3>") == 1, page  # one device: both servers read the same gpu0
    used = int(re.findall(r"data-used='(\d+)'", page)[0])
    rows = re.findall(r"<tr class='holder' data-kernel='([^']*)' data-bytes='(\d+)' data-figure='(\w+)'", page)
    held = {kernel: int(n) for kernel, n, _ in rows}
    figures = {kernel: figure for kernel, _, figure in rows}
    rest = [int(n) for n in re.findall(r"<tr class='rest' data-bytes='(\d+)'", page)]
    assert {kernels[ADMIN], kernels[USER]} <= set(held) and rest == [OTHERS], page
    assert sum(held.values()) + OTHERS == used
    for user, (_, gib) in NOTEBOOKS.items():
        assert held[kernels[user]] == gib << 30
        assert figures[kernels[user]] == ("kernel_report" if user in CONTAINED else "nvml"), (user, figures)
    seen = {}
    for user in (ADMIN, USER):
        seen[user] = json.loads(run.run_cell(user, kernels[user], NVML_CELL))
    ada_pid, ada_host_pid, ada_used, ada_listed = seen[ADMIN]
    bob_pid, bob_host_pid, bob_used, bob_listed = seen[USER]
    ada_listed, bob_listed = dict(ada_listed), dict(bob_listed)
    assert ada_used == bob_used == used and ada_listed == bob_listed
    assert ada_pid == ada_host_pid and (bob_pid != bob_host_pid) == (USER in CONTAINED)
    assert ada_listed[ada_host_pid] == NOTEBOOKS[ADMIN][1] << 30
    assert ada_listed[bob_host_pid] == NOTEBOOKS[USER][1] << 30
    if USER in CONTAINED:
        assert bob_pid not in bob_listed  # its own pid is not NVML's: a container's view


def test_a_user_sees_only_their_own_and_is_refused_another_users(hub: tuple[HubRun, dict[str, str]]) -> None:
    run, kernels = hub
    token = run.token_of(USER)
    _, page = page_of(run, token)
    assert set(holders(page)) == {kernels[USER]} and "class='shutdown" not in page
    status, _ = page_of(run, token, f"?user={ADMIN}", expect=(403,))
    assert status == 403
    run.call("POST", f"services/{SERVICE}/api/shutdown", {"user": ADMIN, "server": "", "kernel": kernels[ADMIN]},
             token=token, expect=(403,))
    _, listed = run.call("GET", f"user/{ADMIN}/api/kernels")
    assert kernels[ADMIN] in {k["id"] for k in listed}


def test_the_admin_shuts_a_users_kernel_down_through_the_service(hub: tuple[HubRun, dict[str, str]]) -> None:
    run, kernels = hub
    extra = open_notebook(run, USER, "bob-scratch.ipynb")
    run.call("POST", f"services/{SERVICE}/api/shutdown", {"user": USER, "server": "", "kernel": extra},
             token=run.token_of(ADMIN), expect=(204,))
    _, listed = run.call("GET", f"user/{USER}/api/kernels")
    assert extra not in {k["id"] for k in listed} and kernels[USER] in {k["id"] for k in listed}


@pytest.mark.browser
def test_the_page_in_chromium_asks_before_a_shutdown_light_and_dark(hub: tuple[HubRun, dict[str, str]]) -> None:
    run, kernels = hub
    victim = open_notebook(run, USER, "bob-leftover.ipynb")
    with chromium_page(1280, 800) as page:
        page.goto(f"{run.url}/hub/login?next=/services/{SERVICE}/")
        page.fill("input[name=username]", ADMIN)
        page.fill("input[name=password]", PASSWORD)
        page.click("input[type=submit], button[type=submit]")
        page.wait_for_url(f"**/services/{SERVICE}/")  # through the service's OAuth with the hub
        row = page.locator(f"tr.holder[data-kernel='{victim}']")
        row.wait_for(timeout=60_000)
        for kernel in (*kernels.values(), victim):
            assert page.locator(f"tr.holder[data-kernel='{kernel}']").count() == 1
        assert page.locator("tr.server").count() == 2
        for width, dark in ((1280, False), (1280, True), (800, False), (800, True)):
            page.set_viewport_size({"width": width, "height": 800})
            page.emulate_media(color_scheme="dark" if dark else "light")
            assert clipped_text(page, "table") == [] and overlapping(page, "tr.holder td") == []
            screenshot(page, f"hub-{width}-{'dark' if dark else 'light'}.png")  # the oldest hub's come last
        row.locator("button.shutdown").click()
        dialog = page.locator("dialog#confirm")
        dialog.wait_for(state="visible")
        assert "bob-leftover.ipynb" in dialog.inner_text() and f"user {USER}" in dialog.inner_text()
        screenshot(page, "hub-confirm-dark.png")
        page.click("#confirm-no")
        assert dialog.is_hidden() and victim in {k["id"] for k in run.call("GET", f"user/{USER}/api/kernels")[1]}
        messages: list[str] = []
        page.on("console", lambda message: messages.append(message.text))
        page.on("pageerror", lambda error: messages.append(str(error)))
        page.on("request", lambda request: messages.append(f"{request.method} {request.url}"))
        page.on("requestfailed", lambda request: messages.append(f"failed {request.url} {request.failure}"))
        row.locator("button.shutdown").click()
        page.click("#confirm-yes")
        try:
            page.wait_for_function("() => document.getElementById('status').textContent !== ''")
        except Exception as error:
            raise AssertionError([messages, page.evaluate("document.getElementById('confirm').open"),
                                  page.content()[-3000:]]) from error
        assert "was shut down" in page.inner_text("#status"), page.inner_text("#status")
        assert victim not in {k["id"] for k in run.call("GET", f"user/{USER}/api/kernels")[1]}
        page.wait_for_load_state()
        page.reload()  # (the page reloads itself too, half a second after the shutdown)
        assert row.count() == 0, page.content()
