"""Runs a scenario script of tests/framework_checks/ in a real framework's own venv, as a fresh process (import order
is the whole point), and returns the JSON result it printed.

Venvs come from `./dev` (.venvs/<framework>); `./dev test` sets MGENV_REQUIRE_FRAMEWORKS=1 so a missing venv fails
instead of skipping.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKS = Path(__file__).resolve().parent / "framework_checks"
# Variables the calling test process may have set that a scenario must not inherit (MGE covers MGENV_SIMULATE_GPU):
# each scenario starts from a clean slate.
INHERITED_PREFIXES = ("MGE", "MEGENGINE", "FLAGS_", "MXNET")


def run(framework: str, script: str, *args: str) -> dict[str, Any]:
    """Run `framework_checks/<script> args...` with .venvs/<framework>'s Python; its last `RESULT {json}` line."""
    return start(framework, script, *args).result()


class Started:
    """A scenario started by `start`, running on its own until `result()` is asked for."""

    def __init__(self, script: str, process: subprocess.Popen[str]) -> None:
        self.script = script
        self.process = process
        self._result: dict[str, Any] | None = None

    def result(self, timeout_s: float = 300) -> dict[str, Any]:
        """Its last `RESULT {json}` line, once it has ended (it is killed after `timeout_s` seconds); a copy, each time
        it is asked for."""
        if self._result is None:
            self._result = self._wait(timeout_s)
        return copy.deepcopy(self._result)

    def stop(self) -> None:
        """Kill it, if it is still running (nobody asked for its result)."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate()

    def _wait(self, timeout_s: float) -> dict[str, Any]:
        try:
            stdout, stderr = self.process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            stdout, stderr = self.process.communicate()
        lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
        assert self.process.returncode == 0 and lines, f"{self.script} failed:\n{stdout[-3000:]}\n{stderr[-3000:]}"
        result: dict[str, Any] = json.loads(lines[-1][len("RESULT "):])
        return result


def start(framework: str, script: str, *args: str) -> Started:
    """Start `framework_checks/<script> args...` with .venvs/<framework>'s Python, a process of its own: scenarios
    that spend their time waiting (TensorFlow's allocator waits 10 s for memory before it gives up) run side by side
    when a test module starts them together."""
    python = ROOT / ".venvs" / framework / "bin" / "python"
    if not python.exists():
        if os.environ.get("MGENV_REQUIRE_FRAMEWORKS"):
            pytest.fail(f"{python} is missing: run ./dev setup")
        pytest.skip(f"{framework} venv not set up (./dev setup)")
    env = {k: v for k, v in os.environ.items() if not k.startswith(INHERITED_PREFIXES)}
    # The scenario's helpers, then this checkout's package: the venv's own install may be another checkout's (a git
    # worktree shares main's venvs), and the code under test is the one beside these tests.
    env["PYTHONPATH"] = os.pathsep.join([str(CHECKS), str(ROOT)])
    # The scenarios' expected texts are English: a machine whose locale is Chinese must not change what they print.
    env["MGENV_LANG"] = "en"
    process = subprocess.Popen([str(python), str(CHECKS / script), *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env, cwd=CHECKS)
    return Started(script, process)
