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
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest
from setup_beside import venv

ROOT = Path(__file__).resolve().parent.parent
CHECKS = Path(__file__).resolve().parent / "framework_checks"
# Variables the calling test process may have set that a scenario must not inherit (MGE covers MGENV_SIMULATE_GPU):
# each scenario starts from a clean slate.
INHERITED_PREFIXES = ("MGE", "MEGENGINE", "FLAGS_", "MXNET")


def run(framework: str, script: str, *args: str) -> dict[str, Any]:
    """Run `framework_checks/<script> args...` with .venvs/<framework>'s Python; its last `RESULT {json}` line. A
    scenario the test module lists to run ahead (`Ahead`) is taken from there: the same fresh process, maybe started
    while an earlier test ran, and run once however many of its tests read it."""
    command = (framework, script, *args)
    if _ahead and command in _ahead[-1]:
        return _ahead[-1].result(command)
    return start(framework, script, *args).result()


class Ahead:
    """A test module's scenarios ((framework, script, *args) each, in the order its tests ask for them), started ahead
    so that `workers` run at once: a framework's process works on one core while it imports, and there are two. What
    nobody asked for when the module ends is killed."""

    def __init__(self, commands: Iterable[Sequence[str]], workers: int = 2) -> None:
        self.queue = deque(dict.fromkeys(tuple(command) for command in commands))
        self.workers = workers
        self.running: dict[tuple[str, ...], Started] = {}
        self.done: dict[tuple[str, ...], dict[str, Any]] = {}

    def __contains__(self, command: object) -> bool:
        return command in self.done or command in self.running or command in self.queue  # not one set aside by fill

    def result(self, command: tuple[str, ...]) -> dict[str, Any]:
        if command not in self.done:
            if command not in self.running:  # asked for before its turn: it goes now
                self.queue.remove(command)
                self.running[command] = start(*command)
            self.fill()
            self.done[command] = self.running.pop(command).result()
            self.fill()  # the next ones run while this test checks its result
        return copy.deepcopy(self.done[command])

    def fill(self) -> None:
        while len(self.running) < self.workers and self.queue:
            command = self.queue.popleft()
            if _python(command[0]).exists():  # a missing venv is for run() to skip or fail on, in its own test
                self.running[command] = start(*command)

    def stop(self) -> None:
        for started in self.running.values():
            started.stop()


# The running test module's Ahead, if it has one (tests/frameworks/conftest.py makes it).
_ahead: list[Ahead] = []


@contextmanager
def ahead(commands: Iterable[Sequence[str]], workers: int = 2) -> Iterator[Ahead]:
    """These scenarios run ahead (Ahead) until the block ends."""
    started = Ahead(commands, workers)
    _ahead.append(started)
    try:
        started.fill()
        yield started
    finally:
        _ahead.remove(started)
        started.stop()


def _python(framework: str) -> Path:
    return venv(framework) / "bin" / "python"


def required_python(framework: str) -> Path:
    """.venvs/<framework>'s python, once set up; a test without it is skipped, or fails under `./dev test`, which sets
    MGENV_REQUIRE_FRAMEWORKS."""
    python = _python(framework)
    if not python.exists():
        if os.environ.get("MGENV_REQUIRE_FRAMEWORKS"):
            pytest.fail(f"{python} is missing: run ./dev setup")
        pytest.skip(f"{framework} venv not set up (./dev setup)")
    return python


class Started:
    """A scenario started by `start`, running on its own until `result()` is asked for. What it prints goes to files,
    not pipes: a scenario started ahead never waits for a reader (TensorFlow's allocator logs pages to stderr, and a
    full pipe would stop it in the middle of what it times)."""

    def __init__(self, script: str, process: subprocess.Popen[bytes], stdout: IO[bytes], stderr: IO[bytes]) -> None:
        self.script = script
        self.process = process
        self._outputs = (stdout, stderr)
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
        self.process.wait()
        self._close()

    def _wait(self, timeout_s: float) -> dict[str, Any]:
        try:
            self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        stdout, stderr = (self._read(output) for output in self._outputs)
        self._close()
        lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
        assert self.process.returncode == 0 and lines, f"{self.script} failed:\n{stdout[-3000:]}\n{stderr[-3000:]}"
        result: dict[str, Any] = json.loads(lines[-1][len("RESULT "):])
        return result

    @staticmethod
    def _read(output: IO[bytes]) -> str:
        output.seek(0)
        return output.read().decode("utf-8", errors="replace")

    def _close(self) -> None:
        for output in self._outputs:
            output.close()


def start(framework: str, script: str, *args: str) -> Started:
    """Start `framework_checks/<script> args...` with .venvs/<framework>'s Python, a process of its own: scenarios
    that spend their time waiting (TensorFlow's allocator waits 10 s for memory before it gives up) run side by side
    when a test module starts them together."""
    python = required_python(framework)
    env = {k: v for k, v in os.environ.items() if not k.startswith(INHERITED_PREFIXES)}
    # The scenario's helpers, then this checkout's package: the venv's own install may be another checkout's (a git
    # worktree shares main's venvs), and the code under test is the one beside these tests.
    env["PYTHONPATH"] = os.pathsep.join([str(CHECKS), str(ROOT)])
    # The scenarios' expected texts are English: a machine whose locale is Chinese must not change what they print.
    env["MGENV_LANG"] = "en"
    stdout, stderr = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    process = subprocess.Popen([str(python), str(CHECKS / script), *args], stdout=stdout, stderr=stderr, env=env,
                               cwd=CHECKS)
    return Started(script, process, stdout, stderr)
