"""Helpers for installing as users do: a clean export of the repository, fresh virtual environments, pip."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def clean_export(destination: Path) -> Path:
    """The repository's tracked files as they are now (uncommitted edits included, untracked files not), exported
    with `git archive`: what a fresh clone holds."""
    tree = subprocess.run(["git", "stash", "create"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    revision = tree.strip() or "HEAD"
    destination.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(destination)], input=archive, check=True)
    return destination


def make_venv(where: Path, python: list[str] | None = None) -> Path:
    """A fresh virtual environment; returns its python."""
    subprocess.run([*(python or [sys.executable]), "-m", "venv", str(where)], check=True, timeout=300)
    return where / "bin" / "python"


def pip(python: Path, *args: str, timeout: int = 1500) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done
