"""Issue 38, point 8: the simulated GPU of a server started with MGENV_SIMULATE_GPU, as a user meets it. A notebook
that switched the shared device to a scenario of its own keeps it when another notebook opens (the new kernel
inherits the server's variable: it asked for nothing, so it follows the device as it is), and its chart keeps its
label; a clean shutdown leaves no `mgenv-simulated-gpu-<pid>.json`, and no `.lock`, in the runtime directory, while
the kernels' charts were sampling up to the end. A real `jupyter server` with the extension, real ipykernels."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_kernels import api, kernel_client, run, start_session

from mgenv_jupyter.protocol._gpus import GPUS_PATH

from lab_server import Lab, running_lab

EXTENSION_CONFIG = {"ServerApp": {"jpserver_extensions": {"mgenv_jupyter.server": True}}}
# What the kernel's chart is labelled with, after its sampler looked at the device.
LABEL = ("from mgenv_jupyter.memory import kernel_sampler\n"
         "from mgenv_jupyter.memory.simulated._simulation import running\n"
         "kernel_sampler().sample_once()\nprint(running().label)")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Lab, Path]]:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "jupyter_server_config.json").write_text(json.dumps(EXTENSION_CONFIG))
    with running_lab(tmp_path, env={"MGENV_SIMULATE_GPU": "a100-40gb"}, app="server") as lab:
        yield lab, tmp_path / "runtime"


def server_pid(runtime: Path) -> int:
    (info,) = runtime.glob("jpserver-*.json")
    return int(json.loads(info.read_text())["pid"])


def test_another_notebook_leaves_a_notebooks_own_scenario_and_a_clean_shutdown_leaves_no_machine_file(server):
    lab, runtime = server
    first = kernel_client(lab, start_session(lab, "own-scenario.ipynb"))
    second = None
    try:
        # The README's way to a scenario of one's own; its chart streams (its sampler looks every second).
        assert run(first, "%load_ext mgenv_jupyter\nimport os\nos.environ['MGENV_SIMULATE_GPU'] = 'training'\n"
                          "chart = %memchart\n" + LABEL).strip() == "simulated (training)"
        second = kernel_client(lab, start_session(lab, "another.ipynb"))  # inherits the server's a100-40gb
        seen = run(second, "%load_ext mgenv_jupyter\nchart = %memchart\n" + LABEL).strip()
        time.sleep(2)  # the first kernel's sampler looks again meanwhile (about once a second)
        assert (seen, run(first, LABEL).strip()) == ("simulated (training)", "simulated (training)")
        assert api(lab, "GET", GPUS_PATH)["simulation"] == "training"
        pid = server_pid(runtime)
        assert (runtime / f"mgenv-simulated-gpu-{pid}.json").exists()
    finally:
        for client in (first, second):
            if client is not None:
                client.stop_channels()
    os.kill(pid, signal.SIGTERM)  # a clean shutdown: the server stops its kernels, and then itself
    deadline = time.monotonic() + 60
    while _alive(pid):
        assert time.monotonic() < deadline, "the server did not stop"
        time.sleep(0.2)
    time.sleep(2)  # a kernel's sampler left running would have looked again by now
    assert sorted(p.name for p in runtime.glob("*mgenv-simulated-gpu-*")) == []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    return bool(state) and not state.startswith("Z")
