"""One sdist and one wheel per test run, built as a user's `pip install .` would build them: from a clean export of
the repository (no node_modules, no built files), through PEP 517 build isolation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from build_and_install import clean_export


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> dict[str, Path]:
    """{"sdist": …, "wheel": …}: `python -m build` makes the sdist, then the wheel from the sdist."""
    source = clean_export(tmp_path_factory.mktemp("export") / "mgenv_jupyter")
    assert not (source / "labextension" / "node_modules").exists()
    assert not (source / "mgenv_jupyter" / "static").exists()
    dist = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(source)],
                          capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return {"sdist": next(dist.glob("*.tar.gz")), "wheel": next(dist.glob("*.whl")), "log": done.stdout}


