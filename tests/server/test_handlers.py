"""The server's GPU view for real: a real `jupyter server` with the extension, three real ipykernels (one session
each) on the simulated GPU (MGENV_SIMULATE_GPU in the server's environment), driven through the REST API."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mgenv_jupyter.protocol._gpus import GPUS_PATH, MAX_OWNER_PIDS, OWNERS_PATH, GpuOwnersReply, GpuServerView

from lab_server import TOKEN, Lab, running_lab
from wire_check import check

pytestmark = pytest.mark.slow

GiB = 1024**3
NOTEBOOKS = ("small.ipynb", "big.ipynb", "sub/medium.ipynb")
# Enabled the way the installed jupyter-config file enables it (an editable install may predate that file).
EXTENSION_CONFIG = {"ServerApp": {"jpserver_extensions": {"mgenv_jupyter.server": True}}}


def call(lab: Lab, method: str, path: str, body: dict | None = None, token: bool = True) -> Any:
    url = f"{lab.url}/{path}" + (f"?token={TOKEN}" if token else "")
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
    return json.loads(text) if text else None


def gpus(lab: Lab) -> GpuServerView:
    view = call(lab, "GET", GPUS_PATH)
    check(view, GpuServerView)
    return view


@pytest.fixture(scope="module")
def stranger() -> Iterator[subprocess.Popen[bytes]]:
    """A real process outside every kernel, listed on the simulated GPU with 3 GiB."""
    proc = subprocess.Popen(["sleep", "600"])
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
            call(lab, "POST", "api/sessions", {"path": path, "type": "notebook", "name": Path(path).name,
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
    sessions = {s["path"]: s["kernel"]["id"] for s in call(server, "GET", "api/sessions")}
    (device,) = view["devices"]
    assert device["label"] == "gpu0 (simulated)" and device["total"] == 40 * GiB
    # Largest first, each the notebook's kernel as the session manager pairs them.
    assert [(s["kernel_id"], s["used"]) for s in device["shares"]] == [
        (sessions["big.ipynb"], 20 * GiB), (sessions["sub/medium.ipynb"], 6 * GiB), (sessions["small.ipynb"], GiB)]
    assert device["used"] == (20 + 6 + 1 + 3) * GiB + 400 * 1024**2 and device["unlisted"] == 400 * 1024**2


def test_a_process_outside_every_kernel_is_other_with_pid_user_and_name_only(server, stranger):
    view, _ = wait_for(server, lambda v: v["devices"] and v["devices"][0]["others"], timeout=30)
    (other,) = view["devices"][0]["others"]
    assert other == {"pid": stranger.pid, "user": other["user"], "name": "sleep", "used": 3 * GiB}
    assert other["user"]
    # Shares name kernels only: the server's kernel API is the one way to act on memory, and a stranger has no kernel.
    assert all(set(share) == {"kernel_id", "used", "figure"} for share in view["devices"][0]["shares"])


def test_a_request_without_a_token_gets_403_and_no_data(server):
    with pytest.raises(urllib.error.HTTPError) as refused:
        call(server, "GET", GPUS_PATH, token=False)
    assert refused.value.code == 403
    body = refused.value.read().decode()
    assert "gpu0" not in body and "ipynb" not in body and "devices" not in body
    with pytest.raises(urllib.error.HTTPError) as wrong:
        urllib.request.urlopen(f"{server.url}/{GPUS_PATH}?token=not-the-token", timeout=10)
    assert wrong.value.code == 403


def test_a_kernel_shut_down_through_the_server_disappears_within_two_seconds(server):
    view, _ = wait_for(server, lambda v: len(shares_by_notebook(v)) == 3, timeout=60)
    small = next(k["id"] for k in view["kernels"] if k["notebooks"] == ["small.ipynb"])
    call(server, "DELETE", f"api/kernels/{small}")
    after, took = wait_for(server, lambda v: small not in {k["id"] for k in v["kernels"]}
                           and small not in {s["kernel_id"] for s in v["devices"][0]["shares"]}, timeout=5)
    assert took < 2.0, f"took {took:.2f} s"
    assert set(shares_by_notebook(after)) == {"big.ipynb", "sub/medium.ipynb"}
    assert after["devices"][0]["used"] == (20 + 6 + 3) * GiB + 400 * 1024**2  # its memory is no longer counted


def kernel_pids(kernel_ids: set[str]) -> dict[str, int]:
    import psutil

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


@pytest.mark.parametrize("query", ["", "pid=abc", "pid=0", "pid=4294967296", "pid=-3",
                                   "&".join(["pid=1"] * (MAX_OWNER_PIDS + 1))])
def test_owners_refuses_what_is_not_a_list_of_pids(server, query):
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{server.url}/{OWNERS_PATH}?{query}&token={TOKEN}", timeout=10)
    assert refused.value.code == 400


def test_owners_without_a_token_gets_403(server, stranger):
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{server.url}/{OWNERS_PATH}?pid={stranger.pid}", timeout=10)
    assert refused.value.code == 403 and b"owners" not in refused.value.read()
