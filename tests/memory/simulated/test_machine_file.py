"""Whether this process's Jupyter server keeps a simulated machine (memory/simulated/_machine_file.py): found only
through a trusted runtime file of the parent's pid, the machine file's path named after the server, and the question
asked without importing the shared machine (secrets, hmac and the rest: what every kernel paid before issue 36)."""

from __future__ import annotations

import json
import subprocess
import sys

from mgenv_jupyter.memory.simulated import _machine_file as machine_file


def test_a_kernel_finds_its_servers_machine_file_only_through_a_trusted_runtime_file(tmp_path):
    parent = 4243
    assert machine_file.server_machine_path(str(tmp_path), parent) is None  # no server of that pid
    info = tmp_path / f"jpserver-{parent}.json"
    info.write_text(json.dumps({"url": "http://127.0.0.1:8888/", "token": "t"}))
    info.chmod(0o666)
    assert machine_file.server_machine_path(str(tmp_path), parent) is None  # a file others could have put there
    info.chmod(0o600)
    path = machine_file.server_machine_path(str(tmp_path), parent)
    assert path == tmp_path / f"mgenv-simulated-gpu-{parent}.json" == machine_file.machine_path(tmp_path, parent)


def test_the_question_whether_a_machine_is_defined_imports_none_of_the_simulation(tmp_path):
    code = ("import sys\nfrom mgenv_jupyter.memory.simulated._machine_file import server_machine_defined\n"
            "print(server_machine_defined(), sorted(m for m in sys.modules if 'simulated.' in m or m in "
            "('secrets', 'hmac')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={"JUPYTER_RUNTIME_DIR": str(tmp_path), "PATH": ""})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(" ", 1) == ["False", "['mgenv_jupyter.memory.simulated._machine_file']\n"]
