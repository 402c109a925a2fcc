"""The catalog: every variable and option of MegEngine, MXNet, Paddle and Ascend, as data, with lookup and suggestions.

Pure Python, no IPython. Data modules are imported on first use so that loading the extension stays cheap.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterator
from functools import lru_cache

from .entry import Entry, ReadWhen
from .values import Parsed, ValueType

__all__ = ["Catalog", "Entry", "Parsed", "ReadWhen", "ValueType", "catalog"]

# One data module per framework; order is the order front ends list them in.
DATA_MODULES = ("megengine", "dtr", "mxnet", "paddle", "ascend", "cuda")
FRAMEWORKS = ("megengine", "mxnet", "paddle", "ascend", "cuda")


class Catalog:
    """Read-only collection of entries with lookup by name and near-miss suggestions."""

    def __init__(self, entries: tuple[Entry, ...]) -> None:
        self._entries: dict[str, Entry] = {}
        for entry in entries:
            if entry.name in self._entries:
                raise ValueError(f"catalog entry {entry.name} is declared twice")
            self._entries[entry.name] = entry
        self._folded = {name.lower(): name for name in self._entries}
        self._prefixes = {_prefix(name) for name in self._entries}

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, name: str) -> Entry | None:
        return self._entries.get(name)

    def names(self) -> list[str]:
        return list(self._entries)

    def frameworks(self) -> list[str]:
        return [f for f in FRAMEWORKS if any(e.framework == f for e in self)]

    def for_framework(self, framework: str) -> list[Entry]:
        return [e for e in self if e.framework == framework]

    def near_miss(self, name: str) -> str | None:
        """The catalog name `name` was probably meant to be, or None when it looks like an unrelated variable.

        A near miss is a different spelling of a catalog name: the same name in another case, or a close spelling
        that shares a catalog prefix (MGB_, FLAGS_, ...). Unrelated names (HOME, MY_VAR) are not near misses.
        """
        if name in self._entries:
            return None
        if name.lower() in self._folded:
            return self._folded[name.lower()]
        if _prefix(name) not in self._prefixes:
            return None
        candidates = [n for n in self._entries if _prefix(n) == _prefix(name)]
        close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.85)
        return close[0] if close else None


def _prefix(name: str) -> str:
    head, sep, _ = name.partition("_")
    return head.upper() + sep if sep else ""


@lru_cache(maxsize=1)
def catalog() -> Catalog:
    """The one catalog, built on first use from the data modules."""
    entries: list[Entry] = []
    for module in DATA_MODULES:
        entries.extend(importlib.import_module(f"{__name__}.{module}").ENTRIES)
    return Catalog(tuple(entries))
