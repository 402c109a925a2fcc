"""Rules that tie variables together, as catalog data: when a variable applies at all, and which move as one.

Front ends never encode such rules themselves: the presentation layer evaluates them, so the magics, the widgets and
the sidebar grey out the same rows and switch the same groups.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..base._text import Text


@dataclass(frozen=True)
class Condition:
    """A variable matters only while `variable` holds one of `values` (its default counts when it is unset).
    `because` says so to the user; `{value}` in `otherwise` is replaced by the value that makes it not apply."""

    variable: str
    values: tuple[str, ...]
    because: Text
    otherwise: Text

    def holds(self, value: str | None) -> bool:
        return value in self.values


@dataclass(frozen=True)
class Group:
    """Variables a framework switches together, as one switch: megengine.dtr.enable() turns three options on.
    `live_api` names the adapter that flips the whole group in a running framework (which may do more than set the
    members: megengine.dtr.disable() also clears the eviction candidates)."""

    key: str
    framework: str
    label: Text
    help: Text
    members: tuple[str, ...]
    on: str = "1"
    off: str = "0"
    live_api: str | None = None


@dataclass(frozen=True)
class Conflict:
    """Variables that must not all be set at once: the framework fails (or silently ignores one) when they are.
    `because` says what goes wrong; a batch that would leave every one of `names` set is refused."""

    names: tuple[str, ...]
    because: Text


Lookup = Callable[[str], "str | None"]
