"""The package's version. It has one source, `labextension/package.json` (the build reads it with
hatch-nodejs-version), and is read back here from the installed metadata, or from that file in a source tree that was
never installed."""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path


def _version() -> str:
    try:
        return version("mgenv_jupyter")
    except PackageNotFoundError:
        package_json = Path(__file__).resolve().parent.parent / "labextension" / "package.json"
        return str(json.loads(package_json.read_text(encoding="utf-8"))["version"])


__version__ = _version()
