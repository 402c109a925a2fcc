"""Framework adapters: each framework's own run-time API for changing a variable, and for reading it back.

Adapters never import a framework: a live API is only offered when the framework's module is already loaded.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...catalog import Entry


@dataclass(frozen=True)
class LiveApi:
    """How to change one variable in a running framework and how to ask the framework what it now uses."""

    module: str
    apply: Callable[[Entry, Any], None]
    read: Callable[[Entry], str]

    def available(self) -> bool:
        return self.module in sys.modules


def _registry() -> dict[str, LiveApi]:
    from . import megengine, paddle

    return {**megengine.LIVE_APIS, **paddle.LIVE_APIS}


_LIVE: dict[str, LiveApi] | None = None


def live_api(entry: Entry) -> LiveApi | None:
    """The live API for `entry` if it has one and its framework is loaded now."""
    global _LIVE
    if entry.live_api is None:
        return None
    if _LIVE is None:
        _LIVE = _registry()
    api = _LIVE.get(entry.live_api)
    return api if api is not None and api.available() else None


def known_live_keys() -> set[str]:
    """Every live-API key an adapter implements (the catalog may only name these)."""
    return set(_registry())
