"""Helpers for installing as users do: a clean export of the repository, fresh virtual environments, pip."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from framework_venvs import required_python

ROOT = Path(__file__).resolve().parent.parent


def clean_export(destination: Path) -> Path:
    """The repository's tracked files as they are now (uncommitted edits included, untracked files not), exported
    with `git archive`: what a fresh clone holds. The tree is written from a copy of git's index, so a git command
    running meanwhile (which holds the index's lock) neither fails the export nor sees its index change."""
    with tempfile.TemporaryDirectory() as scratch:
        index = Path(scratch) / "index"
        shutil.copyfile(ROOT / _git("rev-parse", "--git-path", "index").decode().strip(), index)
        private = {**os.environ, "GIT_INDEX_FILE": str(index)}
        _git("add", "--update", env=private)
        tree = _git("write-tree", env=private).decode().strip()
    destination.mkdir(parents=True)
    archive = _git("archive", tree)
    subprocess.run(["tar", "-x", "-C", str(destination)], input=archive, check=True)
    return destination


def _git(*args: str, env: dict[str, str] | None = None) -> bytes:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, env=env)
    assert done.returncode == 0, f"git {args[0]} failed: {done.stderr.decode(errors='replace')[-2000:]}"
    return done.stdout


def make_venv(where: Path, python: list[str] | None = None) -> Path:
    """A fresh virtual environment; returns its python."""
    subprocess.run([*(python or [sys.executable]), "-m", "venv", str(where)], check=True, timeout=300)
    return where / "bin" / "python"


@contextmanager
def framework_venv_copy(name: str) -> Iterator[Path]:
    """A user's venv that holds a framework and not yet this package: a copy of `./dev`'s .venvs/<name> (the
    framework installed there from the index at its pinned version, ipykernel beside it where the suite needs one)
    with this checkout's editable install taken out. Yields its python; removed as the test ends.

    The copy's files are hard links, beside the original on its filesystem: MegEngine's venv is 2.2 GB, and a second
    one downloaded and installed for this test was what ran a CI machine's disk out while `./dev test` was making the
    others. pip replaces a file rather than writing into it, so the original keeps its own."""
    original = required_python(name).parent.parent
    copy = original.parent / ".copies" / f"{name}-{os.getpid()}"
    shutil.rmtree(copy, ignore_errors=True)
    try:
        shutil.copytree(original, copy, symlinks=True, copy_function=_link_or_copy)
        python = copy / "bin" / "python"
        done = subprocess.run([str(python), "-m", "pip", "uninstall", "--yes", "--quiet", "mgenv_jupyter"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        yield python
    finally:
        shutil.rmtree(copy, ignore_errors=True)
        with suppress(OSError):  # another worker's copy may be there still
            copy.parent.rmdir()


def _link_or_copy(source: str, destination: str) -> None:
    """A hard link where the filesystem makes one; a copy elsewhere (costs the disk the link saves, and works)."""
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


def pip(python: Path, *args: str, timeout: int = 1500) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done
