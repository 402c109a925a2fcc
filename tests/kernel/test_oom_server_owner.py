"""The out-of-memory report names the notebook: in kernel A an out-of-memory error while kernel B of the same real
`jupyter server` holds most of the simulated GPU (the scenario gives B's notebook 30 GiB; the server and its kernels
share one simulated device, so A's NVML lists B's process with it). Kernel A asks the server's extension which
kernel holds the process NVML lists beside it (memory/_server_owners.py), and the verdict names B's notebook and how
long B has been idle since its last cell; a process of no kernel keeps its pid, user and name."""

from __future__ import annotations

import json
import re
import subprocess
from functools import partial
from pathlib import Path
from typing import Any

from server_kernels import kernel_client, start_session
from server_kernels import run as run_any

from lab_server import running_lab

MESSAGE = (
    "CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 40.00 GiB of which 512.00 MiB is "
    "free. Including non-PyTorch memory, this process has 9.00 GiB memory in use. Of the allocated memory 8.80 GiB is "
    "allocated by PyTorch, and 100.00 MiB is reserved by PyTorch but unallocated.")
CONFIG = {"ServerApp": {"jpserver_extensions": {"mgenv_jupyter.server": True}}}


def scenario(holders: list[tuple[int, str]], notebooks: dict[str, str] | None = None) -> dict[str, Any]:
    return {"name": "oom-server", "step_seconds": 0.05, "devices": [{
        "name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "reserved": "512MB",
        "kernel": {"start": "1GB", "step": "1GB", "max": "9GB"}, "notebooks": notebooks or {},
        "other_processes": [{"pid": pid, "bytes": size} for pid, size in holders]}]}


# What a cell prints and displays, a line each; the cells that fail on purpose are read too.
run = partial(run_any, displays=True, sep="\n", ok=False)


def test_the_verdict_names_the_notebook_of_the_kernel_holding_most_of_the_gpu(tmp_path: Path):
    gpu = tmp_path / "gpu.json"
    gpu.write_text(json.dumps(scenario([], {"train/big.ipynb": "30GB"})))
    stranger = subprocess.Popen(["sleep", "300"])
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "jupyter_server_config.json").write_text(json.dumps(CONFIG))
    try:
        with running_lab(tmp_path, env={"MGENV_SIMULATE_GPU": str(gpu)}, app="server") as lab:
            holder, failing = start_session(lab, "train/big.ipynb"), start_session(lab, "a.ipynb")
            held_by = kernel_client(lab, holder)
            run(held_by, "x = 1")  # its last cell: the server counts its idleness from here
            held_by.stop_channels()
            kc = kernel_client(lab, failing)
            run(kc, "%load_ext mgenv_jupyter")
            run(kc, "OutOfMemoryError = type('OutOfMemoryError', (RuntimeError,), {'__module__': 'torch'})")
            report = run(kc, f"raise OutOfMemoryError({MESSAGE!r})")
            # Without an owner the report keeps today's words: a process of no kernel of this server.
            stranger_gpu = tmp_path / "stranger.json"
            stranger_gpu.write_text(json.dumps(scenario([(stranger.pid, "30GB")])))
            run(kc, f"import os\nos.environ['MGENV_SIMULATE_GPU'] = {str(stranger_gpu)!r}\n"
                    "from mgenv_jupyter.memory.simulated._simulation import from_environment\nfrom_environment()")
            other = run(kc, f"raise OutOfMemoryError({MESSAGE!r})")
            kc.stop_channels()
    finally:
        stranger.kill()
        stranger.wait()
    assert "Verdict: another process holds the memory" in report, report
    pid = kernel_pid_in(report)
    assert (f"the largest, pid {pid}, is the kernel of notebook train/big.ipynb on this server, idle "
            in report), report
    assert re.search(r"idle \d+ s since its last cell, holding 30 GiB", report), report
    assert f"the largest, pid {stranger.pid} (" in other and "sleep), holds 30 GiB" in other, other
    assert "notebook" not in other.split("Verdict", 1)[1].split("\n")[0], other


def kernel_pid_in(report: str) -> int:
    match = re.search(r"the largest, pid (\d+), is the kernel", report)
    assert match, report
    return int(match.group(1))


