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
    """How to change one variable in a running framework, how to ask the framework what it now uses, and the call
    `apply` makes, written out as Python for users (`call(entry, value)`)."""

    module: str
    apply: Callable[[Entry, Any], None]
    read: Callable[[Entry], str]
    call: Callable[[Entry, Any], str]

    def available(self) -> bool:
        return self.module in sys.modules


@dataclass(frozen=True)
class GroupApi:
    """How a running framework switches a whole group of options at once (megengine.dtr.enable() / disable()),
    which may do more than setting the members: disable() also clears DTR's eviction candidates."""

    module: str
    switch: Callable[[bool], None]
    call: Callable[[bool], str]

    def available(self) -> bool:
        return self.module in sys.modules


def _registry() -> dict[str, LiveApi]:
    from . import megengine, paddle

    return {**megengine.LIVE_APIS, **paddle.LIVE_APIS}


def group_api(key: str | None) -> GroupApi | None:
    """The live switch of a catalog group, if it has one and its framework is loaded now."""
    from . import megengine

    api = megengine.GROUP_APIS.get(key) if key is not None else None
    return api if api is not None and api.available() else None


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


def live_call(entry: Entry, value: Any) -> str | None:
    """The framework call that sets `entry` to `value` (a parsed, typed value), as Python text; None when the entry
    has no live API. Works whether or not the framework is loaded: it only writes the call out."""
    global _LIVE
    if entry.live_api is None:
        return None
    if _LIVE is None:
        _LIVE = _registry()
    api = _LIVE.get(entry.live_api)
    return api.call(entry, value) if api is not None else None


def known_live_keys() -> set[str]:
    """Every live-API key an adapter implements (the catalog may only name these)."""
    from . import megengine

    return set(_registry()) | set(megengine.GROUP_APIS)
