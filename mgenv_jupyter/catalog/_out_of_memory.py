"""What a framework's catalog home says about running out of memory (`OUT_OF_MEMORY`), as data: the causes it has
words of its own for, and its remedies per cause, each a few settings of its catalog variables. The out-of-memory
report (oom/_causes.py, oom/_remedies.py) asks every home instead of restating any of it; whether a framework's own
cause shows is its adapter's code (`oom_evidence`).

Causes are named by their codes ("fragmentation", "other_process", "dtr_off", "cap", "too_big", "host": oom/_causes.py
`Cause`). A remedy's value is a literal, or worked out from what is set and from the failing GPU's figures (`Room`);
a remedy the framework already has is left out (`unless`, or a setting that finds nothing to change). A setting
that resolves to nothing leaves its remedy out, but for an `optional` one, which only leaves itself out; its `says`
are words added to the remedy's `why` when it is part of it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from ..base._errors import InvalidValueError
from ..base._text import Text
from ._allocator_config import KeyValueConfig
from ._applicability import effective_text

if TYPE_CHECKING:
    from . import Catalog

Lookup = Callable[[str], "str | None"]


class Room(NamedTuple):
    """The failing GPU's figures a value may depend on: its total and what other processes hold (None: unknown)."""

    total: int | None
    others: int | None


class Resolved(NamedTuple):
    """A setting worked out: the variable, its value, and the figures its words (`says`) are filled in with (whole
    numbers are bytes, shown as sizes)."""

    name: str
    value: str
    figures: dict[str, float]


class Unless(str, enum.Enum):
    """When a fixed setting is left out because the framework already has it."""

    NEVER = "never"
    SET = "set"  # the variable is set to exactly this value (the framework compares it as written)
    READ = "read"  # what the framework reads (the value set as the catalog reads it, else the default) is this
    READ_ANY_CASE = "read_any_case"  # the value set, else the default, is this in any letter case


def name_in_use(names: tuple[str, ...], get: Lookup) -> str:
    """Of a framework's names for one setting (newest first), the first that is set, else the oldest: the one the
    catalog refuses to see beside another (PYTORCH_ALLOC_CONF and PYTORCH_CUDA_ALLOC_CONF)."""
    return next((name for name in names[:-1] if get(name)), names[-1])


@dataclass(frozen=True)
class Fixed:
    """`name` set to `value`, left out as `unless` says."""

    name: str
    value: str
    unless: Unless = Unless.NEVER
    says: Text | None = None
    optional: bool = False

    def resolve(self, known: Catalog, get: Lookup, room: Room) -> Resolved | None:
        if self.unless is Unless.SET:
            already = get(self.name) == self.value
        elif self.unless is Unless.READ:
            already = effective_text(known, self.name, get) == self.value
        elif self.unless is Unless.READ_ANY_CASE:
            entry = known.get(self.name)
            default = entry.default if entry is not None and entry.default is not None else ""
            already = (get(self.name) or default).lower() == self.value.lower()
        else:
            already = False
        return None if already else Resolved(self.name, self.value, {})


@dataclass(frozen=True)
class ConfigKey:
    """`key:value` added to a key:value config (PyTorch's allocator config) as the catalog reads what is set (a value
    it cannot read is replaced), under the name in use of `names`; left out when the key already has this value, in
    any letter case."""

    names: tuple[str, ...]
    key: str
    value: str
    says: Text | None = None
    optional: bool = False

    def resolve(self, known: Catalog, get: Lookup, room: Room) -> Resolved | None:
        name = name_in_use(self.names, get)
        current = get(name) or ""
        config = known.get(name)
        try:
            pairs = dict(config.type.split(current)) if config is not None and isinstance(
                config.type, KeyValueConfig) else {}
        except InvalidValueError:  # set outside the session to what the framework cannot read: start afresh
            pairs = {}
        if pairs.get(self.key, "").lower() == self.value.lower():
            return None
        pairs[self.key] = self.value
        return Resolved(name, ",".join(f"{key}:{value}" for key, value in pairs.items()), {})


@dataclass(frozen=True)
class ShareOfRoom:
    """A fraction of the GPU under the name in use of `names`: `most` of what other processes leave free (of all of
    it when the total is unknown), at least `least`, written with two decimals."""

    names: tuple[str, ...]
    most: float
    least: float
    says: Text | None = None
    optional: bool = False

    def resolve(self, known: Catalog, get: Lookup, room: Room) -> Resolved | None:
        free = room.total - (room.others or 0) if room.total else None
        share = self.most if free is None or not room.total else min(self.most, free / room.total * self.most)
        return Resolved(name_in_use(self.names, get), f"{max(share, self.least):.2f}", {})


@dataclass(frozen=True)
class BytesOfRoom:
    """Bytes: `share` of what other processes leave on the GPU, rounded down to `grain` (at least one grain); left
    out of its remedy when the GPU's total is unknown. Its words get `threshold`, `share` and `spare`."""

    name: str
    share: float
    grain: int
    says: Text | None = None
    optional: bool = True

    def resolve(self, known: Catalog, get: Lookup, room: Room) -> Resolved | None:
        spare = (room.total - (room.others or 0)) if room.total else None
        if not spare:
            return None
        threshold = max(self.grain, int(spare * self.share) // self.grain * self.grain)
        return Resolved(self.name, str(threshold), {"threshold": threshold, "share": self.share, "spare": spare})


@dataclass(frozen=True)
class Remedy:
    """Settings that address `causes`, why (in both languages), a caveat where there is one; with `only_if`, offered
    only while that cause of the framework's own shows (DTR's switches only while DTR is off)."""

    causes: tuple[str, ...]
    settings: tuple[Fixed | ConfigKey | ShareOfRoom | BytesOfRoom, ...]
    why: Text
    caveat: Text | None = None
    only_if: str | None = None


@dataclass(frozen=True)
class OwnCause:
    """A cause as this framework shows it: its code, its score (0..1), the evidence's words (filled in with the
    figures its adapter's check gives: whole numbers are bytes, shown as sizes), and, for a cause only this framework
    has, its label."""

    cause: str
    score: float
    evidence: Text
    label: Text | None = None


@dataclass(frozen=True)
class OutOfMemoryFacts:
    causes: tuple[OwnCause, ...] = ()
    remedies: tuple[Remedy, ...] = ()
