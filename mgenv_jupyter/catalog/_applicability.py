"""The catalog's rules evaluated against values: does a variable apply now, and is a group on, off or partly on.
Every layer above asks here (the memory overlays, the presentation, the widgets), so the rule is decided once.

Values come from a lookup, so a widget can ask about the values being edited (not applied yet) and the sidebar about
the kernel's; an unset variable counts as its default.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..base._errors import InvalidValueError
from ..base._text import Message, message
from . import Catalog
from ._entry import Entry
from ._rules import Group

Lookup = Callable[[str], "str | None"]
GroupState = Literal["on", "off", "partly"]


@dataclass(frozen=True)
class Applicability:
    """Whether a variable matters with the values chosen; `reason` says why (or why not), None when it always does:
    in `language`, or (None) in the language of the moment it is read, from `said`, kept in both."""

    applies: bool
    said: Message | None = None
    language: str | None = None

    @property
    def reason(self) -> str | None:
        return None if self.said is None else self.said.get(self.language)

    def to_json(self) -> dict[str, object]:
        return {"applies": self.applies, "reason": self.reason}


ALWAYS = Applicability(True)


def effective_text(known: Catalog, name: str, lookup: Lookup) -> str | None:
    """The value `name` has for the framework: its value normalised by its type, else its default."""
    entry = known.get(name)
    raw = lookup(name)
    if raw is None:
        return entry.default if entry is not None else None
    if entry is None:
        return raw
    try:
        return entry.type.parse(raw).text
    except InvalidValueError:
        return raw


def applicability(known: Catalog, entry: Entry, lookup: Lookup, language: str | None = None) -> Applicability:
    condition = entry.applies_when
    if condition is None:
        return ALWAYS
    value = effective_text(known, condition.variable, lookup)
    if condition.holds(value):
        return Applicability(True, message(condition.because), language)
    return Applicability(False, message(condition.otherwise, value=str(value)), language)


def group_state(known: Catalog, group: Group, lookup: Lookup) -> GroupState:
    on = [effective_text(known, name, lookup) == group.on for name in group.members]
    return "on" if all(on) else "off" if not any(on) else "partly"
