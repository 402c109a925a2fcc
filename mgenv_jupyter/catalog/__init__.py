"""The catalog: every variable and option of MegEngine, MXNet, Paddle, PyTorch, JAX, TensorFlow and Ascend, as data,
with lookup and suggestions.

Pure Python, no IPython. Data modules are imported on first use so that loading the extension stays cheap.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

from ..base._lazy_names import lazy_names
from ..base._text import Text
from ._frameworks import DATA_MODULES
from ._frameworks import FRAMEWORKS as FRAMEWORK_INFO

if TYPE_CHECKING:
    from ._entry import Entry, ReadWhen
    from ._rules import Conflict, Group
    from ._values import Parsed

# The entries' types are imported with the catalog (`catalog()`), not with the package: `%load_ext` needs only the
# frameworks' names and the secrets' rules (`_frameworks`, `_secrets`), and builds no catalog.
__getattr__, __dir__ = lazy_names(__name__, {"Entry": "_entry", "ReadWhen": "_entry", "Conflict": "_rules",
                                             "Group": "_rules", "Parsed": "_values"}, globals())

__all__ = ["Catalog", "Entry", "Group", "Parsed", "ReadWhen", "catalog"]

FRAMEWORKS = tuple(framework.key for framework in FRAMEWORK_INFO)
# Why a selection was refused (%envlist, %envget), in the language of the moment.
UNKNOWN_FRAMEWORK = Text("unknown framework {framework}: use one of {frameworks}",
                         "未知的框架 {framework}:可用的有 {frameworks}")
NOT_IN_CATALOG = Text("{name} is not a catalog variable", "{name} 不是目录中的变量")
DID_YOU_MEAN = Text("; did you mean {meant}?", ";是不是想写 {meant}?")


class Catalog:
    """Read-only collection of entries with lookup by name and near-miss suggestions."""

    def __init__(self, entries: tuple[Entry, ...], groups: tuple[Group, ...] = (),
                 conflicts: tuple[Conflict, ...] = (), frameworks_read: bool = False) -> None:
        self.groups = groups
        self.conflicts = conflicts
        self._conflicts_by_name: dict[str, list[Conflict]] = {}
        for conflict in conflicts:
            for name in conflict.names:
                self._conflicts_by_name.setdefault(name, []).append(conflict)
        self._groups_by_name: dict[str, tuple[Group, ...]] = {}
        for group in groups:
            for name in group.members:
                self._groups_by_name[name] = (*self._groups_by_name.get(name, ()), group)
        self._entries: dict[str, Entry] = {}
        for entry in entries:
            if entry.name in self._entries:
                raise ValueError(f"catalog entry {entry.name} is declared twice")
            self._entries[entry.name] = entry
        self._folded = {name.upper(): name for name in self._entries}
        self._prefixes = {_prefix(name) for name in self._entries}
        self._by_length: dict[int, list[tuple[str, str]]] = {}
        for name in self._entries:
            self._by_length.setdefault(len(name), []).append((name.upper(), name))
        # Every %envset of a name outside the catalog asks for its near miss: milliseconds of edit distances, so the
        # answers are kept (the catalog never changes); bounded, as the names come from users.
        self._near_misses: dict[str, str | None] = {}
        # The names the frameworks' own source reads (_names_read.py), loaded with the first near miss asked: never
        # refused as a misspelling. Only the frameworks' catalog has them; a catalog made for a test has none.
        self._frameworks_read = frameworks_read
        self._read_by_frameworks: frozenset[str] | None = None

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
        """The frameworks with entries: the known ones in their order, then any other in the order of the entries."""
        present = list(dict.fromkeys(e.framework for e in self))
        return [f for f in FRAMEWORKS if f in present] + [f for f in present if f not in FRAMEWORKS]

    def for_framework(self, framework: str) -> list[Entry]:
        return [e for e in self if e.framework == framework]

    def conflicts_of(self, name: str) -> list[Conflict]:
        """The conflicts `name` takes part in, in the catalog's order."""
        return self._conflicts_by_name.get(name, [])

    def group_of(self, name: str) -> Group | None:
        """The first group `name` is a member of."""
        return next(iter(self.groups_of(name)), None)

    def groups_of(self, name: str) -> tuple[Group, ...]:
        """The groups `name` is a member of, in the catalog's order."""
        return self._groups_by_name.get(name, ())

    def select(
        self, framework: str | None = None, category: str | None = None, names: Iterable[str] | str | None = None
    ) -> list[Entry]:
        """Entries matching every filter given: a framework; a category, matched by substring in English or Chinese;
        names, kept in the order given. Raises `InvalidValueError` for an unknown framework or name."""
        from ..base._errors import InvalidValueError

        if framework is not None and framework not in self.frameworks():
            raise InvalidValueError(UNKNOWN_FRAMEWORK.get().format(framework=repr(framework),
                                                                   frameworks=", ".join(self.frameworks())))
        if names is not None:
            chosen = []
            for name in dict.fromkeys([names] if isinstance(names, str) else names):
                entry = self.get(name)
                if entry is None:
                    meant = self.near_miss(name)
                    raise InvalidValueError(NOT_IN_CATALOG.get().format(name=name)
                                            + (DID_YOU_MEAN.get().format(meant=meant) if meant else ""))
                chosen.append(entry)
        else:
            chosen = list(self)
        if framework is not None:
            chosen = [e for e in chosen if e.framework == framework]
        if category is not None:
            wanted = category.lower()
            chosen = [e for e in chosen if wanted in e.category.en.lower() or wanted in e.category.zh.lower()]
        return chosen

    def near_miss(self, name: str) -> str | None:
        """The catalog name `name` was probably meant to be, or None when it looks like an unrelated variable.

        A near miss is another spelling of a catalog name: the same name in another case; one typo anywhere in the
        name, prefix included (a letter wrong, missing, added, or two swapped: MEGENGNE_…, FLAG_allocator_strategy);
        two typos in a long name; or a close spelling that shares a catalog prefix (MGB_, FLAGS_, ...). Unrelated
        names (HOME, MY_VAR) are not near misses, and neither is a name a framework's own source reads
        (PYTORCH_HIP_ALLOC_CONF, TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE: _names_read.py), catalogued or not.
        """
        if name in self._entries or name in self.read_by_frameworks():
            return None
        if name not in self._near_misses:
            if len(self._near_misses) >= _NEAR_MISSES_KEPT:
                self._near_misses.clear()
            self._near_misses[name] = self._near_miss(name)
        return self._near_misses[name]

    def read_by_frameworks(self) -> frozenset[str]:
        """Every variable name a framework of this catalog reads in its installed source (_names_read.py)."""
        if self._read_by_frameworks is None:
            names: set[str] = set()
            if self._frameworks_read:
                from ._names_read import NAMES_READ

                for read in NAMES_READ.values():
                    names.update(read)
            self._read_by_frameworks = frozenset(names)
        return self._read_by_frameworks

    def _near_miss(self, name: str) -> str | None:
        folded = name.upper()
        if folded in self._folded:
            return self._folded[folded]
        allowed = 1 if len(name) < _TWO_TYPOS_FROM else 2
        for length in range(len(folded) - allowed, len(folded) + allowed + 1):
            for candidate_folded, candidate in self._by_length.get(length, ()):
                if _within(folded, candidate_folded, allowed):
                    return candidate
        if _prefix(name) not in self._prefixes:
            return None
        import difflib  # here: the only use, on a name no spelling rule caught

        candidates = [n for n in self._entries if _prefix(n) == _prefix(name)]
        close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.85)
        return close[0] if close else None


_TWO_TYPOS_FROM = 14  # names at least this long may carry two typos and still be near misses
_NEAR_MISSES_KEPT = 4096


def _within(a: str, b: str, limit: int) -> bool:
    """Whether a and b are at most `limit` edits apart (insert, delete, substitute, swap two neighbours)."""
    start = len(os.path.commonprefix([a, b]))
    a, b = a[start:], b[start:]
    if abs(len(a) - len(b)) > limit:
        return False
    if limit == 0 or not a or not b:
        return max(len(a), len(b)) <= limit
    # Optimal string alignment distance, only within `limit` of the diagonal.
    big = limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [big] * len(b)
        for j in range(max(1, i - limit), min(len(b), i + limit) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                value = min(value, previous2[j - 2] + 1)
            current[j] = value
        if min(current) > limit:
            return False
        previous2, previous = previous, current
    return previous[len(b)] <= limit


def _prefix(name: str) -> str:
    head, sep, _ = name.partition("_")
    return head.upper() + sep if sep else ""


@lru_cache(maxsize=1)
def catalog() -> Catalog:
    """The one catalog, built on first use from the data modules."""
    entries: list[Entry] = []
    groups: list[Group] = []
    conflicts: list[Conflict] = []
    for module in DATA_MODULES:
        data = importlib.import_module(f"{__name__}.{module}")
        entries.extend(data.ENTRIES)
        groups.extend(getattr(data, "GROUPS", ()))
        conflicts.extend(getattr(data, "CONFLICTS", ()))
    return Catalog(tuple(entries), tuple(groups), tuple(conflicts), frameworks_read=True)
