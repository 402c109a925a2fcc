"""Which input a variable gets, decided once from its value type: every front end draws the same editor kind with the
same bounds, choices and units (a dropdown, a switch, a slider, a number, a size with a unit, text, or one typed
input per key of a `key:value` config). presentation/_wire.py writes the same spec as the sidebar's EditorInfo."""

from __future__ import annotations

from dataclasses import dataclass

from ..base._text import Text
from ..catalog import Entry
from ..catalog._allocator_config import KeyValueConfig
from ..catalog._values import OptionalOf, Size, ValueType
from ..protocol._sidebar import NONE_CHOICE, EditorKind

# What an empty text box means, written in it: nothing set, or the framework's default for a key left out.
NOT_SET = Text("not set", "未设置")
DEFAULT = Text("default", "默认值")


@dataclass(frozen=True)
class EditorSpec:
    """How to edit one variable.

    - choice: one of `choices` (an optional NPURunConfig keyword also offers "None");
    - switch: on/off, written as `on` / `off`; presence: checked sets the variable, unchecked unsets it;
    - fraction: a number from `minimum` to `maximum`, drawn as a slider; number: an integer or real number box;
    - size: a number and a unit from `units` (1024-based), stored as a count of `unit_bytes`;
    - text: checked by the value type when applied (`placeholder` says what an empty box means);
    - key_value: one typed editor per key of a `key:value` config (`keys`), joined into one value.
    """

    kind: EditorKind
    choices: tuple[str, ...] = ()
    optional: bool = False
    minimum: float | None = None
    maximum: float | None = None
    integer: bool = False
    unit_bytes: int = 1
    units: tuple[tuple[str, int], ...] = ()
    on: str | None = None
    off: str | None = None
    placeholder: str = ""
    keys: tuple[KeySpec, ...] = ()


def editor_spec(entry: Entry, language: str | None = None) -> EditorSpec:
    """The editor `entry`'s value type calls for (a key's description in `language`; None: the session's)."""
    value_type: ValueType = entry.type
    if isinstance(value_type, KeyValueConfig):
        return EditorSpec("key_value", keys=key_specs(value_type, language), placeholder=entry.default or "")
    optional = isinstance(value_type, OptionalOf)
    inner = value_type.inner if isinstance(value_type, OptionalOf) else value_type
    described = inner.describe()
    kind = inner.kind
    if kind == "enum" or (kind == "switch" and optional):
        return EditorSpec("choice", choices=((NONE_CHOICE,) if optional else ()) + inner.choices(), optional=optional)
    if optional:
        return EditorSpec("text", optional=True, placeholder=NONE_CHOICE)
    if kind == "switch":
        on, off = inner.choices()
        return EditorSpec("switch", on=on, off=off)
    if kind == "presence":
        return EditorSpec("presence", on="1")
    if entry.default is None:  # a number box cannot show "not set"; text can
        return EditorSpec("text", placeholder=NOT_SET.get(language))
    low, high = described.get("min"), described.get("max")
    if kind == "float" and low is not None and high is not None:
        return EditorSpec("fraction", minimum=float(low), maximum=float(high))
    if kind in ("int", "float"):
        return EditorSpec("number", minimum=low, maximum=high, integer=kind == "int")
    if isinstance(inner, Size):
        return EditorSpec("size", unit_bytes=inner.unit, minimum=low, maximum=high, units=inner.units())
    return EditorSpec("text", placeholder=entry.default or "")


@dataclass(frozen=True)
class KeySpec:
    """How to edit one key of a `key:value` config (PyTorch's allocator config): `editor` is a choice, a switch
    (written `on` / `off`), a number or text; `default` is the framework's value while the key is left out (None: off
    or unlimited), `allowed` what the key takes, in words."""

    name: str
    editor: EditorSpec
    default: str | None
    allowed: str
    description: str


def key_specs(value_type: ValueType, language: str | None = None) -> tuple[KeySpec, ...]:
    """One typed control per key of a `key:value` config, in the config's order; () for any other value type. An
    unset key is left out of the joined string, so the framework's default applies."""
    if not isinstance(value_type, KeyValueConfig):
        return ()
    specs = []
    for key in value_type.keys:
        inner = key.type
        described = inner.describe()
        if inner.kind == "switch":
            on, off = inner.choices()
            editor = EditorSpec("switch", on=on, off=off)
        elif inner.kind == "enum":
            editor = EditorSpec("choice", choices=inner.choices())
        elif inner.kind in ("int", "float"):
            editor = EditorSpec("number", minimum=described.get("min"), maximum=described.get("max"),
                                integer=inner.kind == "int")
        else:
            editor = EditorSpec("text", placeholder=key.default or DEFAULT.get(language))
        specs.append(KeySpec(key.name, editor, key.default, inner.allowed(), key.description.get(language)))
    return tuple(specs)
