"""What happened when a variable was set: the outcome a user can tell apart, the history record, and the report."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from .._markup import TABLE_STYLE, text_html
from .._quoting import quoted, truncated
from .._text import Message, Text
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


@dataclass(frozen=True)
class SetReport:
    """The result of one `set`/`unset` call: one `Change` per variable, shown as one line each."""

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

    def lines(self) -> list[str]:
        result = []
        for c in self.changes:
            value = UNSET_VALUE.get() if c.new is None else quoted(c.new) if c.shown is None else \
                f"{c.shown} ({c.new})"  # a size as 5 GiB, and the plain number the framework reads
            result.append(f"{c.name}={value}: {c.outcome.label.get()} — {c.message}")
            result.extend(NOTE.get().format(note=note) for note in c.notes)
        return result

    def __repr__(self) -> str:
        return "\n".join(self.lines()) or NOTHING_CHANGED.get()

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        printer.text(repr(self))  # type: ignore[attr-defined]

    def _repr_html_(self) -> str:
        """One block per change, its name, value and status on the first line and why under it: reads the same in a
        narrow notebook column as in a wide one (a four-column table squeezed its reasons into tall thin cells)."""
        import html  # on first use, as in markup.text_html

        blocks = []
        for c in self.changes:
            value = UNSET_VALUE.get() if c.new is None else truncated(c.new_shown or "")
            # A size is shown as 5 GiB; what the environment holds, the plain number the framework reads, on hover.
            stored = f" title='{html.escape(c.new, quote=True)}'" if c.shown is not None and c.new else ""
            notes = "".join(f"<div class='mgenv-change-note'>{text_html(n.get())}</div>" for n in c.notes)
            blocks.append(
                f"<div class='mgenv-change'><div><code>{html.escape(c.name)}</code> = <code{stored}>"
                f"{html.escape(value)}</code>"
                f" · <b>{html.escape(c.outcome.label.get())}</b></div>"
                f"<div class='mgenv-change-why'>{text_html(str(c.message))}</div>{notes}</div>"
            )
        return f"{TABLE_STYLE}<div class='mgenv-report'>" + "".join(blocks) + "</div>"


# A report's own words, in the language of the moment.
UNSET_VALUE = Text("(unset)", "(未设置)")
NOTE = Text("    note: {note}", "    注:{note}")
NOTHING_CHANGED = Text("nothing changed", "没有任何改动")


def now() -> float:
    return time.time()
