"""Whether a framework is imported, asked without importing it and without touching one still being imported.

The sampler's thread (memory sources, overlays) and the live-API probes look frameworks up in `sys.modules`; a module
appears there as soon as its import *starts*. Reading it from another thread while a cell is still executing
`import megengine` can break that import ("partially initialized module 'megengine.core'"), so a module whose import
(or whose top-level package's import) is still running counts as not imported yet.
"""

from __future__ import annotations

import sys
from types import ModuleType


def imported(name: str) -> ModuleType | None:
    """`sys.modules[name]` once it and its top-level package have finished importing; None before that."""
    module = sys.modules.get(name)
    if module is None or _initializing(module):
        return None
    package = sys.modules.get(name.partition(".")[0])
    if package is not None and _initializing(package):
        return None
    return module


def _initializing(module: ModuleType) -> bool:
    # importlib sets __spec__._initializing while the module's code runs (importlib._bootstrap._load_unlocked).
    return bool(getattr(getattr(module, "__spec__", None), "_initializing", False))
