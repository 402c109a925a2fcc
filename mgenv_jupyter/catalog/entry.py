"""One catalog entry: everything known about one variable or option, declared once."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from ..text import Text
from .rules import Condition
from .values import OptionalOf, ValueType


class ReadWhen(str, enum.Enum):
    """When the framework reads a variable, from its source code (not its docs)."""

    IMPORT = "import"  # read while `import <reader>` runs, then cached
    FIRST_USE = "first_use"  # cached at the first use of some subsystem after import (first op, first allocation)
    PER_OBJECT = "per_object"  # re-read each time an object (graph, kvstore, executor, trace) is created
    EVERY_CALL = "every_call"  # re-read on every call
    NOT_READ = "not_read"  # documented, but no code reads it any more
    OPTION = "option"  # not an environment variable: a keyword argument of a config object (NPURunConfig)


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
    """

    name: str
    framework: str
    category: Text
    type: ValueType
    default: str | None
    when: ReadWhen
    readers: tuple[str, ...]
    read_at: str
    description: Text
    live_api: str | None = None
    first_use: Text | None = None
    caveats: tuple[Text, ...] = ()
    replaced_by: str | None = None
    extra: bool = False  # not in the seeds; added because the source shows it matters
    applies_when: Condition | None = None
    latch: str | None = None  # a probe the adapters implement: has the moment that fixes this value passed?

    @property
    def is_env(self) -> bool:
        return self.when is not ReadWhen.OPTION

    @property
    def optional(self) -> bool:
        return isinstance(self.type, OptionalOf)


@dataclass(frozen=True)
class EntryFactory:
    """Declares one framework's entries: what they all share (framework, readers, usually where they are read) is said
    once here, so each entry states only what is its own.

        variable = EntryFactory("paddle", readers=("paddle",), read_at=BOOTSTRAP, live_api="paddle.set_flags")
        variable("FLAGS_allocator_strategy", category=MEMORY, type=Choice(...), default="auto_growth", ...)
    """

    framework: str
    readers: tuple[str, ...]
    read_at: str | None = None
    when: ReadWhen | None = None
    live_api: str | None = None
    latch: str | None = None

    def __call__(self, name: str, **fields: Any) -> Entry:
        for shared in ("read_at", "when", "live_api", "latch"):
            if fields.get(shared) is None and getattr(self, shared) is not None:
                fields[shared] = getattr(self, shared)
        fields.setdefault("readers", self.readers)
        missing = [f for f in ("read_at", "when") if f not in fields]
        if missing:
            raise TypeError(f"catalog entry {name} needs {' and '.join(missing)}")
        return Entry(name=name, framework=self.framework, **fields)
