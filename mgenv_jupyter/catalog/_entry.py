"""One catalog entry: everything known about one variable or option, declared once."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from ..base._text import Text
from ._rules import Condition
from ._values import OptionalOf, ValueType


class ReadWhen(str, enum.Enum):
    """When the framework reads a variable, from its source code (not its docs)."""

    IMPORT = "import"  # read while `import <reader>` runs, then cached
    FIRST_USE = "first_use"  # cached at the first use of some subsystem after import (first op, first allocation)
    PER_OBJECT = "per_object"  # re-read each time an object (graph, kvstore, executor, trace) is created
    EVERY_CALL = "every_call"  # re-read on every call
    NOT_READ = "not_read"  # documented, but no code reads it any more
    OPTION = "option"  # not an environment variable: a keyword argument of a config object (NPURunConfig)


_OPTION = ReadWhen.OPTION  # asked on every change: a module constant, not a lookup on the enum class (slow on 3.11)


class Undecided(enum.Enum):
    """The `loads_code` of an entry that did not say; only tests build such entries (see `EntryFactory`)."""

    UNDECIDED = "undecided"


UNDECIDED_EFFECT = Text("is not classified as data by its catalog entry, so it is treated as able to load code",
                        "在目录条目中未被归为数据,因此按可加载代码对待")


@dataclass(frozen=True)
class Entry:
    """A variable (or NPURunConfig option) with its type, default, reading moment, live API and descriptions.

    `readers` are the top-level modules whose import (or first use) reads the variable; the import watcher follows
    them. `live_api` names the framework's own run-time API (a key known to the framework adapters, which also
    write the call out for users). `latch` names a probe (also known to the adapters) that tells whether the moment
    that fixes the value — the first use — has passed, so a status can say "already read" or "not yet". `caveats`
    tell where the docs and the source disagree; `replaced_by` says what to
    use instead of a dead variable; `applies_when` says when the variable matters at all (Paddle's pool sizes only
    under naive_best_fit).

    `loads_code` is decided by every entry the catalog declares (`EntryFactory` refuses one without it): what the
    variable can make a program load or run (a library, a program, a directory of either, a place compiled code is
    read back from), or None for plain data. A flag string's flags are judged one by one on top of it
    (`code_loading.loading_flags`). An entry built directly without deciding is treated as loading code unless its
    type is closed (numbers, switches, a fixed set of words: `ValueType.closed`).
    """

    name: str
    framework: str
    category: Text
    type: ValueType
    default: str | None
    when: ReadWhen
    readers: tuple[str, ...]
    read_at: str | Text  # a source location; a Text where words surround the code
    description: Text
    live_api: str | None = None
    first_use: Text | None = None
    caveats: tuple[Text, ...] = ()
    replaced_by: str | Text | None = None  # a name, or a Text where it takes words
    extra: bool = False  # not in the seeds; added because the source shows it matters
    applies_when: Condition | None = None
    latch: str | None = None  # a probe the adapters implement: has the moment that fixes this value passed?
    loads_code: Text | None | Undecided = Undecided.UNDECIDED

    @property
    def code_effect(self) -> Text | None:
        """What this variable can make a program load or run, or None for plain data."""
        if isinstance(self.loads_code, Undecided):
            return None if self.type.closed else UNDECIDED_EFFECT
        return self.loads_code

    @property
    def is_env(self) -> bool:
        return self.when is not _OPTION

    @property
    def optional(self) -> bool:
        return isinstance(self.type, OptionalOf)


@dataclass(frozen=True)
class EntryFactory:
    """Declares one framework's entries: what they all share (framework, readers, usually where they are read) is said
    once here, so each entry states only what is its own.

        variable = EntryFactory("paddle", readers=("paddle",), read_at=BOOTSTRAP, live_api="paddle.set_flags")
        variable("FLAGS_allocator_strategy", category=MEMORY, type=Choice(...), default="auto_growth",
                 loads_code=None, ...)

    Every entry says `loads_code` itself (None for data): a variable that can load code cannot be added unnoticed.
    """

    framework: str
    readers: tuple[str, ...]
    read_at: str | Text | None = None
    when: ReadWhen | None = None
    live_api: str | None = None
    latch: str | None = None

    def __call__(self, name: str, **fields: Any) -> Entry:
        for shared in ("read_at", "when", "live_api", "latch"):
            if fields.get(shared) is None and getattr(self, shared) is not None:
                fields[shared] = getattr(self, shared)
        fields.setdefault("readers", self.readers)
        missing = [f for f in ("read_at", "when", "loads_code") if f not in fields]
        if missing:
            raise TypeError(f"catalog entry {name} needs {' and '.join(missing)}")
        return Entry(name=name, framework=self.framework, **fields)
