"""Every notebook's GPU memory on the server (issue 22), measured side by side in one run on a real `jupyter server`
with real ipykernels (one session each) on the simulated GPU (MGENV_SIMULATE_GPU in the server's environment):

- the server's CPU while one browser tab polls the view once a second, with 1, 10 and 50 kernels, against the same
  server left alone for the same time;
- the cost of one refresh of the view (`GET mgenv-jupyter/gpus`: every GPU process attributed to every kernel),
  against jupyter-resource-usage's per-kernel metrics handler (`GET api/metrics/v1/kernel_usage/get_usage/<id>`,
  which asks the kernel over its control channel), on the same server: one call of each, and what a view of every
  kernel costs with it (one call per kernel). CPU is the server's and its kernels' together;
- one read of the server's view with 50 kernels against 10 kernels each reading NVML for itself (the in-kernel
  NvmlSource sample with its process list, as each kernel's own chart does).

jupyter-resource-usage is not a dependency: `pip install jupyter-resource-usage` (or `pip install --target DIR` and
MGENV_BENCH_RESOURCE_USAGE=DIR, so that it is not enabled in every other server of the environment).
Run: `python -c 'from bench import server_gpus_bench; print(server_gpus_bench.report())'`.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

TOKEN = "bench-token"
WINDOW_SECONDS = 20.0
REFRESH_ROUNDS = 15


@dataclass
class Server:
    url: str
    pid: int
    kernels: list[str]

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(f"{self.url}/{path}?token={TOKEN}", timeout=60) as response:
            return response.read()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu(pids: list[int]) -> float:
    """User + system CPU seconds of these processes (those that still exist)."""
    import psutil

    total = 0.0
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def _tree(pid: int) -> list[int]:
    import psutil

    return [pid, *(p.pid for p in psutil.Process(pid).children(recursive=True))]


@contextmanager
def running_server(kernels: int, resource_usage: str | None = None) -> Iterator[Server]:
    """A jupyter server with our extension (and jupyter-resource-usage's, from `resource_usage`, when given) and
    `kernels` real ipykernels, each in a session of its own notebook."""
    with tempfile.TemporaryDirectory(prefix="mgenv-bench-server-") as tmp:
        root = Path(tmp)
        (root / "config").mkdir()
        (root / "notebooks").mkdir()
        extensions = {"mgenv_jupyter.server": True}
        if resource_usage is not None:
            extensions["jupyter_resource_usage"] = True
        (root / "config" / "jupyter_server_config.json").write_text(json.dumps({
            "ServerApp": {"jpserver_extensions": extensions},
            # Its 1 Hz Prometheus callback would run whether or not anyone asks: off, to compare the handlers alone.
            "ResourceUseDisplay": {"enable_prometheus_metrics": False}}))
        port = _free_port()
        env = {**os.environ, "MGENV_SIMULATE_GPU": "a100-40gb", "JUPYTER_CONFIG_DIR": str(root / "config"),
               "JUPYTER_RUNTIME_DIR": str(root / "runtime"), "JUPYTER_DATA_DIR": str(root / "data")}
        if resource_usage:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [resource_usage, env.get("PYTHONPATH")]))
        jupyter = Path(sys.executable).with_name("jupyter")
        proc = subprocess.Popen(
            [str(jupyter), "server", "--allow-root", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
             f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root / 'notebooks'}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.time() + 120
            while True:
                try:
                    urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2).read()
                    break
                except OSError:
                    if proc.poll() is not None or time.time() > deadline:
                        raise RuntimeError("the jupyter server did not start") from None
                    time.sleep(0.5)
            ids = []
            for i in range(kernels):
                body = json.dumps({"path": f"nb{i}.ipynb", "type": "notebook", "name": f"nb{i}.ipynb",
                                   "kernel": {"name": "python3"}}).encode()
                request = urllib.request.Request(f"{url}/api/sessions?token={TOKEN}", data=body, method="POST")
                with urllib.request.urlopen(request, timeout=120) as response:
                    ids.append(json.load(response)["kernel"]["id"])
            server = Server(url, proc.pid, ids)
            _wait_until_listed(server, kernels)
            time.sleep(3.0)  # the kernels' own start-up CPU settles
            yield server
        finally:
            import signal

            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def _wait_until_listed(server: Server, kernels: int) -> None:
    deadline = time.time() + 180
    while time.time() < deadline:
        view = json.loads(server.get("mgenv-jupyter/gpus"))
        if view["devices"] and len(view["devices"][0]["shares"]) == kernels:
            return
        time.sleep(0.5)
    raise RuntimeError(f"the view did not list {kernels} kernels")


def cpu_at_1hz(server: Server, seconds: float = WINDOW_SECONDS) -> tuple[float, float]:
    """(% of one core of the server process left alone, the same while the view is asked for once a second)."""
    idle_start, started = _cpu([server.pid]), time.perf_counter()
    time.sleep(seconds)
    idle = (_cpu([server.pid]) - idle_start) / (time.perf_counter() - started)
    polled_start, started = _cpu([server.pid]), time.perf_counter()
    next_at = started
    while time.perf_counter() - started < seconds:
        server.get("mgenv-jupyter/gpus")
        next_at += 1.0
        time.sleep(max(0.0, next_at - time.perf_counter()))
    polled = (_cpu([server.pid]) - polled_start) / (time.perf_counter() - started)
    return idle * 100, polled * 100


@dataclass
class RefreshCost:
    ours_ms: float  # wall time of one GET of our view
    ours_cpu_ms: float  # server + kernels CPU of it
    theirs_ms: float  # one kernel_usage call
    theirs_cpu_ms: float
    theirs_all_ms: float  # one call per kernel, in sequence: a view of every kernel
    theirs_all_cpu_ms: float


def resource_usage_available(directory: str | None) -> bool:
    """Whether jupyter-resource-usage can be enabled in the bench's servers (installed, or in `directory`)."""
    import importlib.util

    if directory:
        return (Path(directory) / "jupyter_resource_usage").is_dir()
    return importlib.util.find_spec("jupyter_resource_usage") is not None


def refresh_cost(server: Server, rounds: int = REFRESH_ROUNDS) -> RefreshCost:
    """Median wall times and mean CPU times (the CPU clock ticks in 10 ms steps: a mean over the rounds resolves less
    than a tick), the two handlers alternating, each call ≥ 0.6 s after the last (our view is kept 0.5 s)."""
    pids = _tree(server.pid)
    samples: dict[str, list[float]] = {k: [] for k in RefreshCost.__dataclass_fields__}

    def measure(paths: list[str]) -> tuple[float, float]:
        time.sleep(0.6)
        cpu, wall = _cpu(pids), time.perf_counter()
        for path in paths:
            server.get(path)
        return (time.perf_counter() - wall) * 1000, (_cpu(pids) - cpu) * 1000

    usage = [f"api/metrics/v1/kernel_usage/get_usage/{kernel}" for kernel in server.kernels]
    for _ in range(rounds):
        for name, paths in (("ours", ["mgenv-jupyter/gpus"]), ("theirs", usage[:1]), ("theirs_all", usage)):
            wall, cpu = measure(paths)
            samples[f"{name}_ms"].append(wall)
            samples[f"{name}_cpu_ms"].append(cpu)
    return RefreshCost(**{k: (statistics.mean if "cpu" in k else statistics.median)(v) for k, v in samples.items()})


def in_kernel_read_ms(rounds: int = 200) -> float:
    """CPU of one in-kernel NVML sample with its process list (a kernel's own chart), on the simulated A100."""
    os.environ["MGENV_SIMULATE_GPU"] = "a100-40gb"
    from mgenv_jupyter.memory._nvml_source import NvmlSource
    from mgenv_jupyter.memory._process_tree import ProcessTree
    from mgenv_jupyter.memory.simulated import _simulation as simulation

    simulation.from_environment()
    try:
        source = NvmlSource(ProcessTree(max_age=0), process_interval=0, process_refresh=0)
        source.sample()
        start = time.thread_time()
        for _ in range(rounds):
            source.sample()
        return (time.thread_time() - start) / rounds * 1000
    finally:
        simulation.stop_environment()
        del os.environ["MGENV_SIMULATE_GPU"]


def server_read_ms(kernels: int = 50, rounds: int = 200) -> float:
    """CPU of the server's GPU read alone (NVML's device figures and process lists, the walk from each listed process
    to its kernel, the view built), `kernels` kernels on the simulated A100; real child processes stand in for the
    kernels (the server's kernels are its children too). The HTTP request around it is not counted."""
    from mgenv_jupyter.memory._gpu_processes import GpuProcessReader
    from mgenv_jupyter.memory.simulated._simulation import Simulation
    from mgenv_jupyter.server._attribution import KernelEntry, attribute

    children = [subprocess.Popen(["sleep", "600"]) for _ in range(kernels)]
    listed = tuple((c.pid, (f"nb{i}.ipynb",)) for i, c in enumerate(children))
    entries = [KernelEntry(f"k{i}", "python3", c.pid, (f"nb{i}.ipynb",), "idle", None) for i, c in enumerate(children)]
    simulation = Simulation("a100-40gb", kernels=lambda: listed).install()
    reader = GpuProcessReader()
    try:
        from datetime import datetime, timezone

        attribute(reader.read(), entries, datetime.now(timezone.utc))
        start = time.thread_time()
        for _ in range(rounds):
            view = attribute(reader.read(), entries, datetime.now(timezone.utc))
        assert len(view["devices"][0]["shares"]) == kernels
        return (time.thread_time() - start) / rounds * 1000
    finally:
        reader.close()
        simulation.uninstall()
        for child in children:
            child.kill()
            child.wait()


def report() -> str:
    resource_usage: str | None = os.environ.get("MGENV_BENCH_RESOURCE_USAGE", "")
    side_by_side = resource_usage_available(resource_usage)
    if not side_by_side:
        resource_usage = None
    rows = []
    cpu: dict[int, tuple[float, float]] = {}
    costs: dict[int, RefreshCost] = {}
    for kernels in (1, 10, 50):
        with running_server(kernels, resource_usage) as server:
            cpu[kernels] = cpu_at_1hz(server)
            if kernels in (10, 50) and side_by_side:
                costs[kernels] = refresh_cost(server)
    per_kernel = in_kernel_read_ms()
    server_read = server_read_ms(50)
    for kernels, (idle, polled) in cpu.items():
        rows.append(f"| server CPU, the view asked for once a second, {kernels} kernel{'s' if kernels > 1 else ''} | "
                    f"{polled - idle:.2f}% of one core above idle ({polled:.2f}% in all) | left alone: {idle:.2f}% | "
                    f"{'≤ 0.5%' if kernels == 10 else '—'} |")
    for kernels, c in costs.items():
        rows.append(f"| one refresh of every kernel's GPU memory, {kernels} kernels | {c.ours_ms:.1f} ms, "
                    f"{c.ours_cpu_ms:.1f} ms CPU | jupyter-resource-usage, one call per kernel: {c.theirs_all_ms:.0f} "
                    f"ms, {c.theirs_all_cpu_ms:.0f} ms CPU (×{c.theirs_all_cpu_ms / max(c.ours_cpu_ms, 1e-3):.1f}); "
                    f"one kernel's call: {c.theirs_ms:.1f} ms, {c.theirs_cpu_ms:.1f} ms CPU | — |")
    if not side_by_side:
        rows.append("| one refresh against jupyter-resource-usage | not measured: jupyter-resource-usage is not "
                    "installed (`pip install jupyter-resource-usage`, or MGENV_BENCH_RESOURCE_USAGE=DIR) | — | — |")
    rows.append(f"| the server's one GPU read with 50 kernels (NVML, the walk to each kernel, the view) against 10 "
                f"kernels each reading NVML for itself | {server_read:.2f} ms CPU | 10 × {per_kernel:.2f} ms = "
                f"{10 * per_kernel:.2f} ms CPU (×{10 * per_kernel / max(server_read, 1e-6):.1f}) | no dearer |")
    return "\n".join([
        "## Every notebook's GPU memory on the server (issue 22)",
        "",
        "| what | measured | side by side | target |",
        "|---|---|---|---|",
        *rows,
        "",
        "A real `jupyter server` with the extension and real ipykernels (one session each) on the simulated A100 "
        "(MGENV_SIMULATE_GPU=a100-40gb in the server's environment: every kernel holds memory on it), through the "
        "fake NVML library (Python stands in for the driver's C, for every reader alike). Server CPU from the "
        f"server process's own clock over {WINDOW_SECONDS:.0f} s windows, asked once a second as the panel does. A "
        "refresh's CPU is the server's and its kernels' together (jupyter-resource-usage asks each kernel over its "
        "control channel; ours asks none): wall times are medians and CPU times means of "
        f"{REFRESH_ROUNDS} rounds, the handlers alternating. The in-kernel read is NvmlSource.sample() with its "
        "process list (the driver-lock call) every time, in one process; the server's read is the same work for every "
        "kernel at once (real child processes standing in for 50 kernels), without the HTTP request around it, "
        "whose cost the refresh rows give.",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} by `python -c 'from bench import server_gpus_bench; "
        "print(server_gpus_bench.report())'`, jupyter-resource-usage 1.3.0; load average "
        f"{os.getloadavg()[0]:.1f} at the end (2 cores shared with other work).",
    ])


if __name__ == "__main__":
    print(report())
