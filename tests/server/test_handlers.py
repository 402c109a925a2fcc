"""The server's GPU view for real: a real `jupyter server` with the extension, three real ipykernels (one session
each) on the simulated GPU (MGENV_SIMULATE_GPU in the server's environment), driven through the REST API."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import psutil
import pytest
from server_kernels import api, kernel_client, kernel_id_of, run

from mgenv_jupyter.protocol._gpus import GPUS_PATH, MAX_OWNER_PIDS, OWNERS_PATH, GpuOwnersReply, GpuServerView
from mgenv_jupyter.server._host import this_host

from lab_server import TOKEN, Lab, running_lab
from wire_check import check

pytestmark = pytest.mark.slow

GiB = 1024**3
NOTEBOOKS = ("small.ipynb", "big.ipynb", "sub/medium.ipynb")
# Enabled the way the installed jupyter-config file enables it (an editable install may predate that file).
EXTENSION_CONFIG = {"ServerApp": {"jpserver_extensions": {"mgenv_jupyter.server": True}}}


def gpus(lab: Lab) -> GpuServerView:
    view = api(lab, "GET", GPUS_PATH)
    check(view, GpuServerView)
    return view


@pytest.fixture(scope="module")
def stranger() -> Iterator[subprocess.Popen[bytes]]:
    """A real process outside every kernel, listed on the simulated GPU with 3 GiB: another user's (nobody's) where
    the tests may start one (as root), else this user's."""
    proc = subprocess.Popen(["sleep", "600"], user=65534 if os.geteuid() == 0 else None)
    yield proc
    proc.kill()
    proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory, stranger) -> Iterator[Lab]:
    workdir = tmp_path_factory.mktemp("gpu-server")
    scenario = workdir / "server-gpu.json"
    scenario.write_text(json.dumps({"name": "three-notebooks", "devices": [{
        "name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "others": "400MB",
        "kernel": "1GB", "notebooks": {"big.ipynb": "20GB", "sub/medium.ipynb": "6GB"},
        "other_processes": [{"pid": stranger.pid, "bytes": "3GB"}]}]}))
    (workdir / "config").mkdir()
    (workdir / "config" / "jupyter_server_config.json").write_text(json.dumps(EXTENSION_CONFIG))
    with running_lab(workdir, env={"MGENV_SIMULATE_GPU": str(scenario)}, app="server") as lab:
        (lab.root / "sub").mkdir()
        for path in NOTEBOOKS:
            (lab.root / path).write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                                     "nbformat_minor": 5}))
            api(lab, "POST", "api/sessions", {"path": path, "type": "notebook", "name": Path(path).name,
                                               "kernel": {"name": "python3"}})
        yield lab


def wait_for(lab: Lab, predicate: Any, timeout: float) -> tuple[GpuServerView, float]:
    start = time.monotonic()
    while True:
        view = gpus(lab)
        if predicate(view):
            return view, time.monotonic() - start
        assert time.monotonic() - start < timeout, json.dumps(view, indent=1)
        time.sleep(0.1)


def shares_by_notebook(view: GpuServerView) -> dict[str, int | None]:
    notebook = {k["id"]: k["notebooks"][0] for k in view["kernels"] if k["notebooks"]}
    (device,) = view["devices"]
    return {notebook[s["kernel_id"]]: s["used"] for s in device["shares"]}


def test_each_kernels_share_is_attributed_to_its_notebook(server, stranger):
    view, _ = wait_for(server, lambda v: len(shares_by_notebook(v)) == 3, timeout=60)
    assert view["simulated"] and view["simulation"] == "three-notebooks" and view["namespace"] == "same"
    assert sorted(n for k in view["kernels"] for n in k["notebooks"]) == sorted(NOTEBOOKS)
    assert {k["name"] for k in view["kernels"]} == {"python3"}
    sessions = {s["path"]: s["kernel"]["id"] for s in api(server, "GET", "api/sessions")}
    (device,) = view["devices"]
    assert device["label"] == "gpu0 (simulated)" and device["total"] == 40 * GiB
    # Largest first, each the notebook's kernel as the session manager pairs them.
    assert [(s["kernel_id"], s["used"]) for s in device["shares"]] == [
        (sessions["big.ipynb"], 20 * GiB), (sessions["sub/medium.ipynb"], 6 * GiB), (sessions["small.ipynb"], GiB)]
    assert device["used"] == (20 + 6 + 1 + 3) * GiB + 400 * 1024**2 and device["unlisted"] == 400 * 1024**2
    # The machine it runs on, for a hub's page: its host name and an id derived from the machine id, never that id.
    assert view["host"] == this_host() and view["host"]["hostname"] == socket.gethostname()


def test_a_process_outside_every_kernel_is_other_with_pid_user_and_name_only(server, stranger):
    view, _ = wait_for(server, lambda v: v["devices"] and v["devices"][0]["others"], timeout=30)
    (other,) = view["devices"][0]["others"]
    assert other == {"pid": stranger.pid, "user": psutil.Process(stranger.pid).username(), "name": "sleep",
                     "used": 3 * GiB}
    # Shares name kernels only: the server's kernel API is the one way to act on memory, and a stranger has no kernel.
    assert all(set(share) == {"kernel_id", "used", "figure"} for share in view["devices"][0]["shares"])


def test_a_request_without_a_token_gets_403_and_no_data(server):
    with pytest.raises(urllib.error.HTTPError) as refused:
        api(server, "GET", GPUS_PATH, token=False)
    assert refused.value.code == 403
    body = refused.value.read().decode()
    assert "gpu0" not in body and "ipynb" not in body and "devices" not in body
    with pytest.raises(urllib.error.HTTPError) as wrong:
        urllib.request.urlopen(f"{server.url}/{GPUS_PATH}?token=not-the-token", timeout=10)
    assert wrong.value.code == 403
    wrong.value.close()


def test_a_kernel_shut_down_through_the_server_disappears_within_two_seconds(server):
    view, _ = wait_for(server, lambda v: len(shares_by_notebook(v)) == 3, timeout=60)
    small = next(k["id"] for k in view["kernels"] if k["notebooks"] == ["small.ipynb"])
    api(server, "DELETE", f"api/kernels/{small}")
    after, took = wait_for(server, lambda v: small not in {k["id"] for k in v["kernels"]}
                           and small not in {s["kernel_id"] for s in v["devices"][0]["shares"]}, timeout=5)
    assert took < 2.0, f"took {took:.2f} s"
    assert set(shares_by_notebook(after)) == {"big.ipynb", "sub/medium.ipynb"}
    assert after["devices"][0]["used"] == (20 + 6 + 3) * GiB + 400 * 1024**2  # its memory is no longer counted


def kernel_pids(kernel_ids: set[str]) -> dict[str, int]:
    found = {}
    for process in psutil.process_iter(["cmdline"]):
        for kernel_id in kernel_ids:
            if any(f"kernel-{kernel_id}.json" in part for part in process.info["cmdline"] or ()):
                found[kernel_id] = process.pid
    return found


def test_owners_names_the_kernel_of_each_process_and_nothing_for_a_stranger(server, stranger):
    view, _ = wait_for(server, lambda v: len(v["kernels"]) >= 2, timeout=60)
    notebooks = {k["id"]: k["notebooks"] for k in view["kernels"]}
    pids = kernel_pids(set(notebooks))
    query = "&".join(f"pid={pid}" for pid in [*pids.values(), stranger.pid])
    request = urllib.request.Request(f"{server.url}/{OWNERS_PATH}?{query}&token={TOKEN}")
    with urllib.request.urlopen(request, timeout=30) as response:
        reply = json.load(response)
    check(reply, GpuOwnersReply)
    owners = {o["pid"]: o["kernel"] for o in reply["owners"]}
    for kernel_id, pid in pids.items():
        assert owners[pid] is not None and owners[pid]["id"] == kernel_id
        assert owners[pid]["notebooks"] == notebooks[kernel_id]
    assert owners[stranger.pid] is None


def answer_to(url: str, headers: dict[str, str]) -> tuple[int, str | None, bytes]:
    """(status, Access-Control-Allow-Origin, body) of a GET, whatever the status."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as response:
            return response.status, response.headers.get("Access-Control-Allow-Origin"), response.read()
    except urllib.error.HTTPError as refused:
        with refused:
            return refused.code, refused.headers.get("Access-Control-Allow-Origin"), refused.read()


# Each pid that is not one: '²', '①' and '⁵' pass str.isdigit() and then int() refuses them; others pass int() alone.
NOT_PIDS = ["abc", "0", "4294967296", "-3", "+7", " 7", "7_0", "0x10", "1.0", "²", "①", "⁵", "٣", "１２", "9" * 400]


@pytest.mark.parametrize("pid", NOT_PIDS)
def test_owners_refuses_a_pid_that_is_not_ascii_digits_in_range_with_a_400_that_says_so(server, pid):
    """Issue 28, finding 11: `pid=²` (also ① and ⁵) answered 500."""
    query = urllib.parse.urlencode({"pid": pid})
    status, _, body = answer_to(f"{server.url}/{OWNERS_PATH}?{query}&token={TOKEN}", {})
    assert status == 400
    message = json.loads(body)["message"]
    assert repr(pid)[:20] in message or "characters)" in message, message
    assert "a whole number from 1 to 4294967295, written in the ASCII digits 0-9" in message, message


@pytest.mark.parametrize("query", ["", "pid=", "other=1", "&".join(["pid=1"] * (MAX_OWNER_PIDS + 1))])
def test_owners_refuses_what_is_not_a_list_of_pids(server, query):
    status, _, body = answer_to(f"{server.url}/{OWNERS_PATH}?{query}&token={TOKEN}", {})
    assert status == 400 and json.loads(body)["message"]


@pytest.mark.parametrize("path", [GPUS_PATH, OWNERS_PATH])
@pytest.mark.parametrize("credentials", ["none", "wrong token in the URL", "wrong token in the header"])
def test_without_the_token_both_endpoints_answer_403_and_no_data(server, stranger, path, credentials):
    url = f"{server.url}/{path}?pid={stranger.pid}"
    headers = {}
    if credentials == "wrong token in the URL":
        url += "&token=not-the-token"
    elif credentials == "wrong token in the header":
        headers["Authorization"] = "token not-the-token"
    status, _, body = answer_to(url, headers)
    assert status == 403
    for data in ("owners", "devices", "kernels", "ipynb", "gpu0", str(stranger.pid)):
        assert data.encode() not in body, (data, body)


@pytest.mark.parametrize("credentials", ["token in the URL", "token in the header", "none"])
def test_a_foreign_origin_is_treated_as_the_servers_kernel_api_treats_it(server, stranger, credentials):
    """A page on another site asks with its Origin: each endpoint answers as `/api/kernels` does (the same status,
    the same CORS header, and no data where the kernel API gives none)."""
    headers = {"Origin": "https://evil.example"}
    query = f"token={TOKEN}" if credentials == "token in the URL" else ""
    if credentials == "token in the header":
        headers["Authorization"] = f"token {TOKEN}"
    kernels = answer_to(f"{server.url}/api/kernels?{query}", headers)
    for path in (GPUS_PATH, f"{OWNERS_PATH}?pid={stranger.pid}"):
        ours = answer_to(f"{server.url}/{path}{'&' if '?' in path else '?'}{query}", headers)
        assert ours[:2] == kernels[:2], (path, ours[:2], kernels[:2])
        if kernels[0] != 200:
            assert b"owners" not in ours[2] and b"devices" not in ours[2]


def test_300_concurrent_requests_are_all_answered(server, stranger):
    """300 requests at once, half for the view and half for the owners of a process: every one is answered, each
    with a whole reply of the wire's shape."""
    count = 300
    start = threading.Barrier(count)

    def one(i: int) -> Any:
        path = GPUS_PATH if i % 2 else f"{OWNERS_PATH}?pid={stranger.pid}"
        url = f"{server.url}/{path}{'&' if '?' in path else '?'}token={TOKEN}"
        start.wait(timeout=60)
        with urllib.request.urlopen(url, timeout=120) as response:
            return response.status, json.load(response)

    with ThreadPoolExecutor(max_workers=count) as pool:
        answers = list(pool.map(one, range(count)))
    assert [status for status, _ in answers] == [200] * count
    for i, (_, reply) in enumerate(answers):
        check(reply, GpuServerView if i % 2 else GpuOwnersReply)


# ---- issue 29: a kernel's idleness is the user's, and one simulated device gives one figure -------------------------

def kernel_of(view: GpuServerView, notebook: str) -> Any:
    return next(k for k in view["kernels"] if k["notebooks"] == [notebook])


def test_a_kernel_whose_chart_streams_is_idle_since_its_last_cell_not_since_its_last_message(server):
    """Issue 29, point 3: a live chart sends its batches as comm messages a few times a second, so the server's own
    `last_activity` never gets old. The view's idleness is the time since the last cell a user ran: it grows while
    the chart streams (and the sidebar's silent requests come), stops while a cell runs, and says which it is."""
    client = kernel_client(server, kernel_id_of(server, "sub/medium.ipynb"))
    try:
        run(client, "%load_ext mgenv_jupyter\nchart = %memchart")  # its batches flow from now on, no cell runs
        time.sleep(3)
        client.execute("pass", silent=True)  # a front end's own request (the sidebar's %load_ext is one)
        time.sleep(3)
        view = api(server, "GET", GPUS_PATH)
        medium = kernel_of(view, "sub/medium.ipynb")
        server_saw = datetime.fromisoformat(medium["last_activity"])
        assert (datetime.now(timezone.utc) - server_saw).total_seconds() < 2  # the chart's messages, for the server
        assert medium["idle_seconds"] >= 5.5, medium  # it was 0 while the chart streamed
        check(view, GpuServerView)
        assert medium["idle_since"] == "cell" and not medium["running_cell"] and medium["running_seconds"] is None
        client.execute("import time\ntime.sleep(3)")
        busy, _ = wait_for(server, lambda v: kernel_of(v, "sub/medium.ipynb")["running_cell"], timeout=10)
        assert kernel_of(busy, "sub/medium.ipynb")["idle_seconds"] is None
        done, _ = wait_for(server, lambda v: not kernel_of(v, "sub/medium.ipynb")["running_cell"], timeout=15)
        assert kernel_of(done, "sub/medium.ipynb")["idle_seconds"] < 2
    finally:
        client.stop_channels()


def test_each_kernel_sees_on_its_simulated_gpu_what_the_server_sees_of_it(server):
    """Issue 29, point 4: MGENV_SIMULATE_GPU is the server's and every kernel inherits it: one simulated device for
    all of them. A kernel's own sampler reads for its process what the server's view says its notebook holds."""
    deadline = time.monotonic() + 60
    while not {"big.ipynb", "sub/medium.ipynb"} <= set(shares := shares_by_notebook(api(server, "GET", GPUS_PATH))):
        assert time.monotonic() < deadline, shares
        time.sleep(0.2)
    for notebook in ("big.ipynb", "sub/medium.ipynb"):
        client = kernel_client(server, kernel_id_of(server, notebook))
        try:
            own = run(client, "%load_ext mgenv_jupyter\nfrom mgenv_jupyter.memory import kernel_sampler\n"
                              "print(kernel_sampler().sample_once()['gpu0 (simulated) process'])")
        finally:
            client.stop_channels()
        assert int(own.split()[-1]) == shares[notebook], (notebook, own, shares)
    assert shares["big.ipynb"] == 20 * GiB and shares["sub/medium.ipynb"] == 6 * GiB


def test_the_demos_training_scenario_runs_on_the_servers_simulated_gpu(server):
    """Issue 29, point 4: with MGENV_SIMULATE_GPU set for the server, demo.ipynb's chart cell still runs its
    `training` scenario (it climbed before only where no GPU answered), on the one device every notebook shares: the
    kernel's chart climbs, and the server's view shows the same scenario and the same figure. Runs last: it turns
    this server's simulated GPU into the training one."""
    import nbformat

    demo = nbformat.read(Path(__file__).resolve().parents[2] / "demo.ipynb", as_version=4)
    cell = next(c.source for c in demo.cells if "MGENV_SIMULATE_GPU'] = 'training'" in c.source)
    client = kernel_client(server, kernel_id_of(server, "big.ipynb"))
    try:
        run(client, "%load_ext mgenv_jupyter\n" + cell)
        figures = run(client, "import time\nfrom mgenv_jupyter.memory import kernel_sampler\nseen = []\n"
                              "for _ in range(2):\n    time.sleep(2.5)\n"
                              "    seen.append(kernel_sampler().sample_once().get('gpu0 (simulated) process'))\n"
                              "print(*seen)")
    finally:
        client.stop_channels()
    first, second = (int(x) for x in figures.split()[-2:])
    assert second >= first + 2 * 256 * 1024**2, figures  # a step of 256 MiB a second
    deadline = time.monotonic() + 10
    while (view := api(server, "GET", GPUS_PATH))["simulation"] != "training":  # the server's view follows
        assert time.monotonic() < deadline, view["simulation"]
        time.sleep(0.2)
    check(view, GpuServerView)
    assert view["devices"][0]["name"] == "NVIDIA A100-SXM4-40GB" and view["simulated"]
