"""House rules: ruff and mypy are clean (TypeScript's strict check runs in the front end's build)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_is_clean():
    if shutil.which("ruff", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("ruff is not installed in this environment (./dev setup installs it)")
    done = run(sys.executable, "-m", "ruff", "check", "mgenv_jupyter", "tests", "bench")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_mypy_is_clean():
    pytest.importorskip("mypy", reason="mypy is not installed in this environment (./dev setup installs it)")
    done = run(sys.executable, "-m", "mypy", "mgenv_jupyter")
    assert done.returncode == 0, done.stdout + done.stderr
