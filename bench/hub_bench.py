"""The hub's GPU page (issue 39): the cost of one refresh with 50 single-user servers, against JupyterHub's own
admin listing, side by side in one run.

- The page: the service's survey (each server asked for its GPU view at once, bounded, read field by field) and the
  HTML, against 50 simulated single-user servers: loopback HTTP servers in a child process, each answering a canned
  GPU view of 4 kernels on 2 GPUs as the server extension writes it (protocol/_gpus.py). Wall time and the service's
  CPU per refresh (the servers' own work is theirs, not the service's).
- JupyterHub's own: a real hub (configurable-http-proxy from build/chp, DummyAuthenticator) with 50 users, its admin
  page's data (`GET /hub/api/users?include_stopped_servers`, what /hub/admin's JavaScript asks for) read through the
  proxy with an admin token: wall time per request (its CPU is the hub's process).

Run: `python -m bench.hub_bench` (prints the section of bench/RESULTS.md).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVERS = 50
ROUNDS = 15

_SERVE = r"""
import http.server, json, socketserver, sys, threading
body = sys.stdin.buffer.read()
ports = []
class Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args): pass
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
for _ in range(int(sys.argv[1])):
    server = Server(("127.0.0.1", 0), Answer)
    ports.append(server.server_address[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()
print(json.dumps(ports), flush=True)
threading.Event().wait()
"""


def canned_view() -> bytes:
    kernels = [{"id": f"k{i}", "name": "python3", "notebooks": [f"project/notebook-{i}.ipynb"],
                "execution_state": "idle", "last_activity": None, "idle_seconds": 60.0 * i, "idle_since": "cell",
                "running_cell": False, "running_seconds": None, "pid_known": True, "cull_at": None} for i in range(4)]
    devices = [{"index": d, "label": f"gpu{d}", "name": "NVIDIA A100-SXM4-80GB", "total": 80 << 30,
                "used": 30 << 30, "shares": [{"kernel_id": f"k{i}", "used": (i + 1) << 30, "figure": "nvml"}
                                             for i in range(4)], "others": [], "unlisted": 1 << 30, "problem": None}
               for d in range(2)]
    return json.dumps({"v": 1, "state": "ok", "detail": None, "simulated": False, "simulation": None,
                       "namespace": "same", "kernels": kernels, "devices": devices, "read_at": 0.0,
                       "culling": None}).encode()


def page_refresh() -> tuple[float, float]:
    """Median wall and CPU seconds of one refresh of the page over SERVERS loopback servers."""
    from mgenv_jupyter.hub._page import render
    from mgenv_jupyter.hub._survey import Hub, Server, survey

    child = subprocess.Popen([sys.executable, "-c", _SERVE, str(SERVERS)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
    try:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(canned_view())
        child.stdin.close()
        ports = json.loads(child.stdout.readline())

        async def concurrent() -> str:
            hubs = [Hub("http://127.0.0.1:1/", f"http://127.0.0.1:{port}", "t") for port in ports]
            found = await asyncio.gather(*(survey(hub, [Server(f"user{i}", "", "/user/x/")])
                                           for i, hub in enumerate(hubs)))
            page = render([row for rows in found for row in rows], "admin", True, "x")
            assert page.count("class='holder'") == SERVERS * 8, "a server's view was not read"
            return page

        walls, cpus = [], []
        loop = asyncio.new_event_loop()
        loop.run_until_complete(concurrent())  # warm: connections, imports
        for _ in range(ROUNDS):
            wall, cpu = time.perf_counter(), time.process_time()
            loop.run_until_complete(concurrent())
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        loop.close()
        return statistics.median(walls), statistics.median(cpus)
    finally:
        child.kill()
        child.wait()


def hub_listing() -> float:
    """Median wall seconds of JupyterHub's admin listing of SERVERS users, through its proxy."""
    sys.path.insert(0, str(ROOT / "tests"))
    from hub_server import running_hub

    with tempfile.TemporaryDirectory() as folder:
        scenario = Path(folder) / "none.json"
        scenario.write_text("{}")
        with running_hub(Path(folder), scenario) as run:
            run.call("POST", "hub/api/users", {"usernames": [f"user{i}" for i in range(SERVERS)]})
            url = f"{run.url}/hub/api/users?include_stopped_servers=1&limit={SERVERS + 10}"
            request = urllib.request.Request(url, headers={"Authorization": f"token {run_token()}"})
            times = []
            for round_ in range(ROUNDS + 1):
                start = time.perf_counter()
                with urllib.request.urlopen(request, timeout=30) as response:
                    listed = json.loads(response.read())
                if round_:
                    times.append(time.perf_counter() - start)
            assert len(listed) >= SERVERS
            return statistics.median(times)


def run_token() -> str:
    from hub_server import DRIVER_TOKEN
    return DRIVER_TOKEN


def report() -> str:
    wall, cpu = page_refresh()
    hub = hub_listing()
    load = os.getloadavg()[0]
    return (f"## The hub's GPU page (issue 39)\n\n"
            f"One refresh of the page with {SERVERS} single-user servers (simulated: loopback servers answering a "
            f"canned view of 4 kernels on 2 GPUs), against JupyterHub's own admin listing of {SERVERS} users "
            f"(`GET /hub/api/users`, what /hub/admin asks for, through the proxy), medians of {ROUNDS}; load "
            f"average {load:.1f} on the cores. The page also lists the ready servers through the hub's API once per "
            f"refresh (the listing below, or less: `?state=ready`), so a whole refresh is about the two rows "
            f"added.\n\n"
            "| what | wall | service CPU | side by side |\n|---|---|---|---|\n"
            f"| the hub's GPU page, {SERVERS} servers asked at once | {wall * 1000:.1f} ms | {cpu * 1000:.1f} ms | "
            f"×{wall / hub:.1f} JupyterHub's listing |\n"
            f"| JupyterHub's admin listing, {SERVERS} users | {hub * 1000:.1f} ms | (the hub's) | ×1 |\n")


if __name__ == "__main__":
    print(report())
