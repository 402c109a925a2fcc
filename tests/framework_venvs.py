"""Runs a scenario script of tests/framework_checks/ in a real framework's own venv, as a fresh process (import order
is the whole point), and returns the JSON result it printed.

Venvs come from `./dev` (.venvs/<framework>); `./dev test` sets MGENV_REQUIRE_FRAMEWORKS=1 so a missing venv fails
instead of skipping.
"""

from __future__ import annotations

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
    python = ROOT / ".venvs" / framework / "bin" / "python"
    if not python.exists():
        if os.environ.get("MGENV_REQUIRE_FRAMEWORKS"):
            pytest.fail(f"{python} is missing: run ./dev setup")
        pytest.skip(f"{framework} venv not set up (./dev setup)")
    env = {k: v for k, v in os.environ.items() if not k.startswith(INHERITED_PREFIXES)}
    # The scenario helpers, then this checkout (a worktree's package before the venv's editable install of main).
    env["PYTHONPATH"] = os.pathsep.join((str(CHECKS), str(ROOT)))
    # The scenarios' expected texts are English: a machine whose locale is Chinese must not change what they print.
    env["MGENV_LANG"] = "en"
    done = subprocess.run([str(python), str(CHECKS / script), *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=CHECKS)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, f"{script} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT "):])
    return result
