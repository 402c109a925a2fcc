"""A real JupyterHub for the hub service's tests: configurable-http-proxy from npm (build/chp, `./dev setup`),
DummyAuthenticator (password PASSWORD) with SimpleLocalProcessSpawner (hub_spawner.py: USER's server in a pid
namespace of its own, as a container spawner's), two users (ADMIN, an admin of the hub, and USER), each with a
running single-user server on one simulated GPU (MGENV_SIMULATE_GPU: one scenario; MGENV_SIMULATE_GPU_MACHINE: one
machine file, so both servers and their kernels share one simulated machine, as two users' servers on one GPU machine
do), and the service `mgenv-gpus` (`python -m mgenv_jupyter.hub`) with the role README.md gives it. A test drives it
through `HubRun`: the hub's API with a driver service's token, tokens of the users, sessions (real ipykernels) in
their servers."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHP = ROOT / "build" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"
# JupyterHub 5.0 (the oldest the [hub] extra allows) over .venv's packages: ./dev setup installs it there.
HUB_OLDEST = ROOT / "build" / "hub-oldest"
ADMIN, USER = "ada", "bob"
PASSWORD = "mgenv-hub-test"
# Whose server runs in a pid namespace of its own (hub_spawner.py): `unshare` needs root.
CONTAINED = {USER} if os.geteuid() == 0 and shutil.which("unshare") else set()
DRIVER_TOKEN = "mgenv-hub-driver-token-0123456789"
SERVICE = "mgenv-gpus"
# A single-user server's GPU view as the server extension writes it (protocol/_gpus.py): one kernel holding 20 GiB.
GOOD_VIEW = {"v": 1, "state": "ok", "detail": None, "simulated": True, "simulation": "hub", "namespace": "same",
             "kernels": [{"id": "k1", "name": "python3", "notebooks": ["train.ipynb"], "execution_state": "idle",
                          "last_activity": None, "idle_seconds": 75.0, "idle_since": "cell", "running_cell": False,
                          "running_seconds": None, "pid_known": True, "cull_at": None}],
             "devices": [{"index": 0, "label": "gpu0 (simulated)", "name": "NVIDIA A100", "total": 80 << 30,
                          "used": 21 << 30, "shares": [{"kernel_id": "k1", "used": 20 << 30, "figure": "nvml"}],
                          "others": [], "unlisted": 1 << 30, "problem": None}],
             "read_at": 0.0, "culling": None,
             "host": {"hostname": "gpu-node-1", "id": "3a1e0c52-9d1e-4b6a-8f25-6e0d2b9c41a7"}}

CONFIG = """
import sys
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.command = [{chp!r}]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allowed_users = {{{user!r}}}
c.Authenticator.admin_users = {{{admin!r}}}
sys.path.insert(0, {tests!r})
from hub_spawner import PidNamespaceSpawner
c.JupyterHub.spawner_class = PidNamespaceSpawner
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
c.PidNamespaceSpawner.contained = {contained!r}
c.PidNamespaceSpawner.host_proc = {host_proc!r}
c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]
c.Spawner.args = ["--ServerApp.jpserver_extensions={{'mgenv_jupyter.server': True}}", "--allow-root"]
c.Spawner.environment = {{"MGENV_SIMULATE_GPU": {scenario!r}, "MGENV_SIMULATE_GPU_MACHINE": {machine!r},
                          "PYTHONPATH": {pythonpath!r}}}
c.Spawner.http_timeout = 120
c.Spawner.start_timeout = 120
c.JupyterHub.db_url = "sqlite://"
c.JupyterHub.cookie_secret = bytes(32)
c.JupyterHub.services = [
    # The service as README.md turns it on.
    {{"name": {service!r}, "url": "http://127.0.0.1:{service_port}", "oauth_no_confirm": True,
      "command": [sys.executable, "-m", "mgenv_jupyter.hub", "--proxy-url", "http://127.0.0.1:{port}"]}},
    # The tests' driver: starts servers and sessions, makes the users' tokens.
    {{"name": "driver", "api_token": {driver!r}}},
]
c.JupyterHub.load_roles = [
    {{"name": "mgenv-gpus", "services": [{service!r}],
      "scopes": ["list:users", "read:users", "read:servers", "access:servers"]}},
    {{"name": "user", "scopes": ["self", "access:services!service={service}"]}},
    {{"name": "driver", "services": ["driver"],
      "scopes": ["admin:users", "admin:servers", "access:servers", "tokens", "list:users"]}},
]
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class HubRun:
    url: str  # the proxy's, no "/" at the end

    def call(self, method: str, path: str, body: Any = None, token: str = DRIVER_TOKEN,
             expect: tuple[int, ...] = (200, 201, 202, 204)) -> tuple[int, Any]:
        """`method <url>/<path>` with `token`; (status, JSON or text) — the status asserted among `expect`."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.url}/{path}", data=data, method=method,
                                         headers={"Authorization": f"token {token}"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read()
        assert status in expect, (method, path, status, text[:500])
        try:
            return status, json.loads(text) if text else None
        except ValueError:
            return status, text.decode()

    def token_of(self, user: str) -> str:
        _, reply = self.call("POST", f"hub/api/users/{user}/tokens",
                             {"scopes": [f"access:services!service={SERVICE}", "self"], "note": "test"})
        return str(reply["token"])

    def start_server(self, user: str) -> None:
        self.call("POST", f"hub/api/users/{user}/server")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            _, model = self.call("GET", f"hub/api/users/{user}")
            if model["servers"].get("", {}).get("ready"):
                return
            time.sleep(0.5)
        raise AssertionError(f"{user}'s server did not start in 120 s")

    def open_notebook(self, user: str, path: str, code: str = "x = 1") -> str:
        """A session (a real ipykernel) for notebook `path` in `user`'s server, with one cell run (`code`); its
        kernel's id."""
        _, session = self.call("POST", f"user/{user}/api/sessions",
                               {"path": path, "type": "notebook", "name": path, "kernel": {"name": "python3"}})
        kernel = str(session["kernel"]["id"])
        self.run_cell(user, kernel, code)
        return kernel

    def run_cell(self, user: str, kernel: str, code: str) -> str:
        """Run `code` in `user`'s kernel as a notebook does; what it printed."""
        return asyncio.run(self._run_cell(user, kernel, code))

    async def _run_cell(self, user: str, kernel: str, code: str) -> str:
        """Run one cell in the kernel over its websocket, as a notebook does, until the kernel is idle after it; its
        printed output (an error's traceback raises)."""
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        url = f"{self.url.replace('http', 'ws', 1)}/user/{user}/api/kernels/{kernel}/channels"
        socket = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {DRIVER_TOKEN}"},
                                                     connect_timeout=60))
        msg_id = uuid.uuid4().hex
        socket.write_message(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "test", "session": msg_id,
                       "date": "", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}))
        printed = []
        while True:
            text = await asyncio.wait_for(socket.read_message(), 60)
            assert text is not None, f"{user}'s kernel {kernel} closed its channels"
            message = json.loads(text)
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            if message["msg_type"] == "stream":
                printed.append(message["content"]["text"])
            elif message["msg_type"] == "error":
                raise AssertionError("\n".join(message["content"]["traceback"]))
            elif message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
                socket.close()
                return "".join(printed)


@contextmanager
def running_hub(folder: Path, scenario: Path, oldest: bool = False) -> Iterator[HubRun]:
    """A hub of .venv's JupyterHub (the newest), or with `oldest` of HUB_OLDEST's, for the hub, its service and the
    single-user servers alike."""
    if not CHP.exists():
        raise RuntimeError(f"{CHP} is missing: ./dev setup installs configurable-http-proxy there")
    if oldest and not (HUB_OLDEST / "jupyterhub").exists():
        raise RuntimeError(f"{HUB_OLDEST} is missing: ./dev setup installs JupyterHub 5.0 there")
    homes = folder / "homes"
    for user in (ADMIN, USER):
        (homes / user).mkdir(parents=True)
    # This checkout first; a PYTHONPATH given to the tests stays behind it (another JupyterHub, e.g. the oldest).
    pythonpath = os.pathsep.join(filter(None, [str(ROOT), str(HUB_OLDEST) if oldest else "",
                                               os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": pythonpath, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    port = _free_port()
    config = folder / "jupyterhub_config.py"
    config.write_text(CONFIG.format(
        port=port, hub_port=_free_port(), proxy_api_port=_free_port(), service_port=_free_port(), chp=str(CHP),
        password=PASSWORD, user=USER, admin=ADMIN, homes=str(homes), scenario=str(scenario),
        machine=str(folder / "gpu-machine.json"), tests=str(ROOT / "tests"), contained=CONTAINED,
        host_proc=str(folder / "host-proc"),
        pythonpath=pythonpath, service=SERVICE, driver=DRIVER_TOKEN))
    env.pop("JUPYTERHUB_API_TOKEN", None)
    log = (folder / "hub.log").open("wb")
    hub = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=folder, env=env,
                           stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    run = HubRun(f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                run.call("GET", "hub/api/", expect=(200,))
                break
            except (OSError, AssertionError) as error:
                if hub.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the hub did not start:\n" + (folder / "hub.log").read_text()[-4000:]) from error
                time.sleep(0.3)
        yield run
    finally:
        hub.terminate()  # the hub stops its proxy, its service and the servers it spawned
        try:
            hub.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, 9)
            hub.wait()
        log.close()
        (ROOT / "test-artifacts").mkdir(exist_ok=True)
        shutil.copy(folder / "hub.log", ROOT / "test-artifacts" / "hub.log")
