"""A real Ray cluster on this machine: a head and more nodes started with `ray start` from .venvs/ray, each small
(one CPU, a 100 MB object store, no dashboard) and with its own custom resource, so node_a, node_b and node_c are its
labels. Token authentication with a token file of its own; every process it starts is found by its own temporary
directory and ended by its process id when the cluster stops. Used by the Ray tier (tests/ray_cluster) and
bench/cluster_bench.py.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from setup_beside import VENVS, venv

ROOT = Path(__file__).resolve().parent.parent
VENV = VENVS / "ray"
PYTHON = VENV / "bin" / "python"
# Variables a Ray process must not inherit from the test run (a simulated GPU, framework settings).
_INHERITED_PREFIXES = ("MGE", "MEGENGINE", "FLAGS_", "MXNET", "RAY_")


def available() -> bool:
    """Whether .venvs/ray is set up (once `./dev test`, setting it up beside the tests, has finished)."""
    return (venv("ray") / "bin" / "ray").exists()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalCluster:
    """`with LocalCluster(["node_a", "node_b", "node_c"]) as cluster:` — the first is the head."""

    def __init__(self, labels: list[str]) -> None:
        self.labels = labels
        # Short: Ray puts Unix sockets under it, and their paths may not exceed 107 bytes.
        self.temp = Path(tempfile.mkdtemp(prefix="mgray-", dir="/tmp"))
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        token = self.temp / "token"
        token.write_text(secrets.token_hex(32))
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(_INHERITED_PREFIXES)}
        self.env.update({
            "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token), "RAY_USAGE_STATS_ENABLED": "0",
            # A node whose raylet is gone is declared dead within a few seconds, not the default half minute.
            "RAY_health_check_period_ms": "500", "RAY_health_check_failure_threshold": "4",
            "RAY_health_check_timeout_ms": "1000",
        })
        self.start_seconds: dict[str, float] = {}

    def start(self) -> LocalCluster:
        for i, label in enumerate(self.labels):
            try:
                self._start_node(label, head=i == 0)
            except RuntimeError:
                self.stop()
                raise
        return self

    def add(self, label: str) -> None:
        """Start one more node, labelled `label` (its own custom resource), that joins the running cluster."""
        self._start_node(label, head=False)
        self.labels.append(label)

    def _start_node(self, label: str, *, head: bool) -> None:
        # Ports: free ones where Ray has fixed defaults (the head's 6379, the minimal dashboard's 8265, each agent's
        # 52365), so another cluster on this machine (a parallel test run) has its own; the rest Ray picks at random.
        common = ["--num-cpus=1", "--object-store-memory=100000000", "--disable-usage-stats",
                  f"--temp-dir={self.temp / 't'}", "--node-ip-address=127.0.0.1",
                  f"--dashboard-agent-listen-port={_free_port()}"]
        role = ["--head", f"--port={self.port}", "--include-dashboard=false", f"--dashboard-port={_free_port()}"
                ] if head else [f"--address={self.address}"]
        began = time.monotonic()
        done = subprocess.run([str(VENV / "bin" / "ray"), "start", *role, *common,
                               f"--resources={json.dumps({label: 1})}"],
                              env=self.env, capture_output=True, text=True, timeout=180)
        self.start_seconds[label] = time.monotonic() - began
        if done.returncode != 0:
            raise RuntimeError(f"ray start for {label} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")

    def run(self, script: Path, *args: str, timeout: float = 300, env: dict[str, str] | None = None
            ) -> dict[str, Any]:
        """Run a driver script with .venvs/ray's Python against this cluster (with `env`'s variables besides the
        cluster's, in the driver alone); its last `RESULT {json}` line."""
        env = {**self.env, **(env or {}), "RAY_ADDRESS": self.address, "MGENV_RAY_TEMP": str(self.temp)}
        done = subprocess.run([str(PYTHON), str(script), *args], env=env, capture_output=True, text=True,
                              timeout=timeout, cwd=self.temp)
        lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode != 0 or not lines:
            raise AssertionError(f"{script.name} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
        result: dict[str, Any] = json.loads(lines[-1][len("RESULT "):])
        return result

    def spawn(self, script: Path, *args: str) -> tuple[subprocess.Popen[bytes], Path]:
        """Start a driver script as `run` does, without waiting: the process, and the file its `RESULT {json}` line
        is to be written to (its last argument; see `result_of`). Its output goes to files in the cluster's
        directory."""
        result = self.temp / f"{script.stem}-{secrets.token_hex(4)}.json"
        env = {**self.env, "RAY_ADDRESS": self.address, "MGENV_RAY_TEMP": str(self.temp)}
        with open(result.with_suffix(".log"), "wb") as log:
            process = subprocess.Popen([str(PYTHON), str(script), *args, str(result)], env=env, cwd=self.temp,
                                       stdout=log, stderr=subprocess.STDOUT)
        return process, result

    @staticmethod
    def result_of(process: subprocess.Popen[bytes], result: Path, timeout: float = 180) -> dict[str, Any]:
        """What a spawned driver wrote to `result`, once it has (it may go on running)."""
        began = time.monotonic()
        while not result.exists():
            if process.poll() is not None or time.monotonic() - began > timeout:
                log = result.with_suffix(".log")
                raise AssertionError(f"no result from {process.args}:\n{log.read_text(errors='replace')[-4000:]}")
            time.sleep(0.2)
        loaded: dict[str, Any] = json.loads(result.read_text())
        return loaded

    def processes(self) -> list[Any]:
        """Every process of this cluster: those naming its temporary directory, and their descendants."""
        import psutil

        mark = str(self.temp)
        found: dict[int, Any] = {}
        for process in psutil.process_iter(["cmdline"]):
            try:
                if process.pid != os.getpid() and any(mark in arg for arg in process.info["cmdline"] or []):
                    found[process.pid] = process
                    for child in process.children(recursive=True):
                        found[child.pid] = child
            except psutil.Error:
                continue
        return list(found.values())

    def stop(self) -> None:
        import psutil

        victims = self.processes()
        for process in victims:
            try:
                process.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(victims, timeout=10)
        shutil.rmtree(self.temp, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
