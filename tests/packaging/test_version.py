"""One version for Python and npm (issue 18): labextension/package.json is the source (the build reads it through
hatch-nodejs-version, as the JupyterLab extension template does); the installed metadata and
`mgenv_jupyter.__version__` say the same."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import tomllib
from packaging.version import Version

import mgenv_jupyter

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_python_version_is_the_npm_version():
    npm = json.loads((ROOT / "labextension" / "package.json").read_text(encoding="utf-8"))["version"]
    assert Version(mgenv_jupyter.__version__) == Version(version("mgenv_jupyter")) == Version(npm)


def test_the_build_reads_the_version_from_package_json_only():
    assert PYPROJECT["project"]["dynamic"] == ["version"] and "version" not in PYPROJECT["project"]
    assert PYPROJECT["tool"]["hatch"]["version"] == {"source": "nodejs", "path": "labextension/package.json"}
    assert any(need.startswith("hatch-nodejs-version") for need in PYPROJECT["build-system"]["requires"])
    assert "__version__ = \"" not in (ROOT / "mgenv_jupyter" / "_version.py").read_text(encoding="utf-8")


def test_the_description_names_every_framework():
    description = PYPROJECT["project"]["description"]
    for name in ("MegEngine", "PaddlePaddle", "MXNet", "Ascend", "PyTorch", "JAX", "TensorFlow"):
        assert name in description, name
