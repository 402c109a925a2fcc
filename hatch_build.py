"""Build hook, run before hatch-jupyter-builder: when the front end must be built and Node.js is missing, stop the
build with a message a user can act on (hatch-jupyter-builder's own says only that `npm` is not in the path)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

BUILT = "mgenv_jupyter/labextension"
SOURCES = "labextension/src"


class FrontEndCheck(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if os.environ.get("HATCH_JUPYTER_BUILDER_SKIP_NPM") == "1" or os.environ.get("SKIP_JUPYTER_BUILDER"):
            return
        from hatch_jupyter_builder.utils import is_stale

        root = Path(self.root)
        if not is_stale(root / BUILT, root / SOURCES):
            return  # built and newer than its sources: nothing to build, nothing needed
        missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
        if missing:
            raise RuntimeError(
                f"mgenv_jupyter's front end (the JupyterLab sidebar and the memory chart) is built from "
                f"labextension/ with Node.js, and {' and '.join(missing)} could not be found on PATH. Install Node.js "
                "18 or newer (https://nodejs.org) and build again, or install a released wheel (pip install "
                "mgenv_jupyter), which ships the built front end."
            )
