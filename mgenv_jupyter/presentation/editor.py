"""Which input a variable gets, decided once from its value type: every front end draws the same editor kind with the
same bounds, choices and units (a dropdown, a switch, a slider, a number, a size with a unit, or text)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..catalog import Entry
from ..catalog.values import GiB, KiB, MiB, OptionalOf, TiB, ValueType

EditorKind = Literal["choice", "switch", "presence", "fraction", "number", "size", "text"]
SIZE_UNITS = (("B", 1), ("KB", KiB), ("MB", MiB), ("GB", GiB), ("TB", TiB))
NONE_CHOICE = "None"


@dataclass(frozen=True)
class EditorSpec:
    """How to edit one variable.

    - choice: one of `choices` (an optional NPURunConfig keyword also offers "None");
    - switch: on/off, written as `on` / `off`; presence: checked sets the variable, unchecked unsets it;
    - fraction: a number from `minimum` to `maximum`, drawn as a slider; number: an integer or real number box;
    - size: a number and a unit from `units` (1024-based), stored as a count of `unit_bytes`;
    - text: checked by the value type when applied (`placeholder` says what an empty box means).
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

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "choices": list(self.choices), "optional": self.optional, "min": self.minimum,
                "max": self.maximum, "integer": self.integer, "unit_bytes": self.unit_bytes,
                "units": [[name, factor] for name, factor in self.units], "on": self.on, "off": self.off,
                "placeholder": self.placeholder}


def editor_spec(entry: Entry) -> EditorSpec:
    """The editor `entry`'s value type calls for."""
    value_type: ValueType = entry.type
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
        return EditorSpec("text", placeholder="not set")
    low, high = described.get("min"), described.get("max")
    if kind == "float" and low is not None and high is not None:
        return EditorSpec("fraction", minimum=float(low), maximum=float(high))
    if kind in ("int", "float"):
        return EditorSpec("number", minimum=low, maximum=high, integer=kind == "int")
    if kind == "size":
        unit = int(described.get("unit_bytes", 1))
        return EditorSpec("size", unit_bytes=unit, minimum=low, maximum=high,
                          units=tuple((name, factor) for name, factor in SIZE_UNITS if factor >= unit))
    return EditorSpec("text", placeholder=entry.default or "")
