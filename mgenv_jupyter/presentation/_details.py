"""The facts shown beside a variable: what it does, when and where the framework reads it, its default and what is
allowed, the live API written out with the value in effect (or, with none set, as a labelled example), and the
caveats where the docs and the source disagree."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ..base._errors import InvalidValueError
from ..base._text import Text, localised
from ..catalog import Entry, ReadWhen
from ..catalog._options import keyword_options
from ..catalog._secrets import is_secret
from ..runtime.frameworks import live_call

READ_AT_IMPORT = Text("read at `import {reader}`", "在 `import {reader}` 时读取")
FIXED_AT = Text("; fixed at {first_use}", ";在{first_use}固定")
READ_AT_FIRST_USE = Text("read at {first_use}", "在{first_use}读取")
FIRST_USE_OF = Text("the first use of {reader}", "{reader} 第一次使用时")
READ_ON_EVERY_USE = Text("read on every use", "每次使用时读取")
READ_PER_OBJECT = Text("read each time the object is created", "每次创建对象时读取")
NOT_READ = Text("no longer read", "已不再读取")
USE_INSTEAD = Text("; use {replacement}", ";请改用 {replacement}")
PRESENCE_NOTE = Text(
    "This flag is ON whenever the variable exists, whatever its value (even 0): checked sets it, unchecked unsets it.",
    "只要该变量存在(无论取值,即使为 0)此开关即为开启:勾选即设置,取消勾选即取消设置。",
)


@dataclass(frozen=True)
class Details:
    """Everything a front end shows about a variable beyond its status, in one language."""

    description: str
    reading: str  # when the framework reads it, in words
    read_at: str  # where, in the framework's source
    default: str | None
    allowed: str
    live: str | None  # the framework call that sets it, with the value in effect (or the default: `live_example`)
    live_example: bool
    caveats: tuple[str, ...]
    replaced_by: str | None
    note: str | None  # a remark the type calls for (presence flags)

    def to_json(self) -> dict[str, Any]:
        return {"description": self.description, "reading": self.reading, "read_at": self.read_at,
                "default": self.default, "allowed": self.allowed, "live": self.live,
                "live_example": self.live_example, "caveats": list(self.caveats), "replaced_by": self.replaced_by,
                "note": self.note}


def reading(entry: Entry, language: str | None = None) -> str:
    """When the framework reads `entry`, in words."""
    reader = entry.readers[0] if entry.readers else "the framework"
    if entry.when is ReadWhen.IMPORT:
        fixed = FIXED_AT.get(language).format(first_use=entry.first_use.get(language)) if entry.first_use else ""
        return READ_AT_IMPORT.get(language).format(reader=reader) + fixed
    if entry.when is ReadWhen.FIRST_USE:
        first = entry.first_use.get(language) if entry.first_use else FIRST_USE_OF.get(language).format(reader=reader)
        return READ_AT_FIRST_USE.get(language).format(first_use=first)
    if entry.when is ReadWhen.EVERY_CALL:
        return READ_ON_EVERY_USE.get(language)
    if entry.when is ReadWhen.PER_OBJECT:
        return READ_PER_OBJECT.get(language)
    if entry.when is ReadWhen.OPTION:
        return keyword_options().keyword.get(language)
    replacement = localised(entry.replaced_by, language) if entry.replaced_by else None
    instead = USE_INSTEAD.get(language).format(replacement=replacement) if replacement else ""
    return NOT_READ.get(language) + instead


def default_text(entry: Entry) -> str | None:
    """The default as an editor shows it. An option's default is written as a Python literal ("'auto'", "None")."""
    if entry.default is None or entry.is_env:
        return entry.default
    try:
        value = ast.literal_eval(entry.default)
    except (ValueError, SyntaxError):
        return entry.default
    return None if value is None else str(value)


def live_text(entry: Entry, value: str | None) -> tuple[str | None, bool]:
    """(the live call with `value`, or with the default when `value` is None — then marked as an example)."""
    if entry.live_api is None:
        return None, False
    text, example = (value, False) if value is not None else (entry.default, True)
    if text is None or is_secret(entry.name, text):
        return None, False
    try:
        parsed = entry.type.parse(text)
    except InvalidValueError:
        return None, False
    return live_call(entry, parsed.value), example


def details(entry: Entry, value: str | None, language: str | None = None) -> Details:
    """The details of `entry` whose value is now `value` (None: not set)."""
    live, example = live_text(entry, value)
    return Details(
        description=entry.description.get(language),
        reading=reading(entry, language),
        read_at=localised(entry.read_at, language),
        default=default_text(entry),
        allowed=entry.type.allowed(),
        live=live,
        live_example=example,
        caveats=tuple(c.get(language) for c in entry.caveats),
        replaced_by=localised(entry.replaced_by, language) if entry.replaced_by else None,
        note=PRESENCE_NOTE.get(language) if entry.type.kind == "presence" else None,
    )
