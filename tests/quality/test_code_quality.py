"""House rules: ruff and mypy are clean (TypeScript's strict check runs in the front end's build). Both tools are in
the `[test]` extra, so a test environment without them is broken: the checks fail, they never skip."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def installed(module: str) -> None:
    assert importlib.util.find_spec(module) is not None, (
        f"{module} is not installed in this environment: it is in the [test] extra (pip install -e '.[test]')")


def test_ruff_is_clean():
    installed("ruff")
    done = run(sys.executable, "-m", "ruff", "check", "mgenv_jupyter", "tests", "bench")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_mypy_is_clean():
    installed("mypy")
    done = run(sys.executable, "-m", "mypy", "mgenv_jupyter")
    assert done.returncode == 0, done.stdout + done.stderr
