"""Paddle's run-time API: `paddle.set_flags` for every public FLAGS_*, read back with `paddle.get_flags`."""

from __future__ import annotations

import sys
from typing import Any

from ...catalog import Entry
from . import LiveApi


def _apply(entry: Entry, value: Any) -> None:
    sys.modules["paddle"].set_flags({entry.name: value})


def _read(entry: Entry) -> str:
    return str(sys.modules["paddle"].get_flags([entry.name])[entry.name])


def _call(entry: Entry, value: Any) -> str:
    return f"paddle.set_flags({{{entry.name!r}: {value!r}}})"


LIVE_APIS: dict[str, LiveApi] = {"paddle.set_flags": LiveApi("paddle", _apply, _read, _call)}
