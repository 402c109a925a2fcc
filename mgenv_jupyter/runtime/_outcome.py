"""What happened when a variable was set: the outcome a user can tell apart, the history record, and the report (as
data: presentation's `SetReportView` words it)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple

from ..base._display import Shown
from ..base._text import Message
from ..catalog._secrets import MASK, is_secret, shown
from ._status import Status

__all__ = ["MASK", "Change", "SetReport", "is_secret", "now", "shown"]


class Change(NamedTuple):
    """One history record. Secret values (by name or by value) are stored masked.

    A named tuple, not a frozen dataclass: just as immutable, and made in a third of the time on every change."""

    time: float
    name: str
    old: str | None
    new: str | None
    source: str
    outcome: Status
    message: Message
    notes: tuple[Message, ...] = ()  # said in the language of the moment the change is shown
    effective: str | None = None  # what the framework reports after a live change
    seq: int = 0  # the change's number in this kernel, from 1; 0 until it is recorded
    secret: bool = False  # the name or the value is a secret: values are masked, and no profile may keep it
    shown: str | None = None  # `new` as a user reads it where that differs (a size: "5 GiB"); `new` is what is stored
    shown_old: str | None = None  # `old` likewise

    @property
    def new_shown(self) -> str | None:
        """The new value as it is shown: in the one notation of sizes for a size, else as stored."""
        return self.shown if self.shown is not None else self.new

    def as_row(self, language: str | None = None) -> dict[str, object]:
        """The record as plain data; the outcome as its code, the message in `language`."""
        return {
            "seq": self.seq,
            "time": self.time,
            "name": self.name,
            "old": self.old,
            "new": self.new,
            "source": self.source,
            "outcome": self.outcome.value,
            "effective": self.effective,
            "message": self.message.get(language),
            "secret": self.secret,
        }


@dataclass(frozen=True, repr=False)
class SetReport(Shown):
    """The result of one `set`/`unset` call: one `Change` per variable. A notebook shows it one line per change
    (presentation's `SetReportView`)."""

    display_kind: ClassVar[str] = "set_report"
    changes: tuple[Change, ...] = field(default_factory=tuple)

    def __iter__(self) -> Iterator[Change]:
        return iter(self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    def __getitem__(self, name: str) -> Change:
        for change in self.changes:
            if change.name == name:
                return change
        raise KeyError(name)


def now() -> float:
    return time.time()
