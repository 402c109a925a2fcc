"""The service in a real JupyterHub (tests/hub_server.py): configurable-http-proxy, DummyAuthenticator,
SimpleLocalProcessSpawner, two users whose servers share the simulated GPU. Checked over HTTP with the users' own
tokens: the admin's page lists both users' notebooks with their bytes and idle times; the other user's only theirs,
and asking for the admin's servers or a shutdown gets 403 from the service; a shutdown through the service's API ends
the kernel in its user's server. (The page in Chromium, with the confirmation: tests/browser/test_browser_hub.py.)"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jupyterhub")
from hub_server import ADMIN, SERVICE, USER, HubRun, running_hub  # noqa: E402

NOTEBOOKS = {ADMIN: ("ada-train.ipynb", 20), USER: ("bob-eval.ipynb", 6)}  # GiB each one's kernel holds


def scenario_file(folder: Path) -> Path:
    path = folder / "gpus.json"
    path.write_text(json.dumps({"name": "hub", "devices": [{
        "name": "NVIDIA A100-SXM4-80GB", "total": "80GB", "others": "512MB", "kernel": "1GB",
        "notebooks": {name: f"{gib}GB" for name, gib in NOTEBOOKS.values()}, "other_processes": []}]}))
    return path


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HubRun, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("hub")
    with running_hub(folder, scenario_file(folder)) as run:
        kernels = {}
        for user, (notebook, _) in NOTEBOOKS.items():
            run.start_server(user)
            kernels[user] = run.open_notebook(user, notebook)
        yield run, kernels


def holders(page: str) -> dict[str, tuple[str, str, str]]:
    """{kernel id: (user, notebook, bytes)} of the page's GPU tables, and each row's idle cell must be a time."""
    found = {}
    for kernel, user, notebook, held, idle in re.findall(
            r"<tr class='holder' data-kernel='([^']*)'><td>([^<]*)</td><td>.*?</td><td>([^<]*)</td>"
            r"<td class='n'>([^<]*)</td><td class='n'>([^<]*)</td>", page):
        assert re.fullmatch(r"\d+ s|\d+ min|\d+ h \d+ min|running a cell|unknown", idle), idle
        found[kernel] = (user, notebook, held)
    return found


def page_of(run: HubRun, token: str, query: str = "", expect: tuple[int, ...] = (200,)) -> tuple[int, Any]:
    return run.call("GET", f"services/{SERVICE}/{query}", token=token, expect=expect)


def test_the_admin_sees_both_users_notebooks_with_bytes_and_idle_times(hub: tuple[HubRun, dict[str, str]]) -> None:
    run, kernels = hub
    _, page = page_of(run, run.token_of(ADMIN))
    seen = holders(page)
    for user, (notebook, gib) in NOTEBOOKS.items():
        assert seen[kernels[user]] == (user, notebook, f"{gib}.0 GiB"), (user, seen)
    assert page.count("class='shutdown") == 2 and "NVIDIA A100-SXM4-80GB" in page


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
    extra = run.open_notebook(USER, "bob-scratch.ipynb")
    run.call("POST", f"services/{SERVICE}/api/shutdown", {"user": USER, "server": "", "kernel": extra},
             token=run.token_of(ADMIN), expect=(204,))
    _, listed = run.call("GET", f"user/{USER}/api/kernels")
    assert extra not in {k["id"] for k in listed} and kernels[USER] in {k["id"] for k in listed}
