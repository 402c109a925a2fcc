"""Inputs generated from a catalog value type: a dropdown for an enum, a checkbox for a switch, a slider for a fraction,
a number and a unit for a size, validated text for the rest.

An editor only shows a value and gives back what the user entered (`raw()`); checking it is the value type's job, and
setting it is the session's. `raw()` returning None means "unset this variable" (or, for an NPURunConfig keyword,
"leave it to the framework").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from ..catalog import Entry
from ..catalog.values import GiB, KiB, MiB, ValueType
from ..errors import InvalidValueError

NONE_CHOICE = "None"
SIZE_UNITS = (("B", 1), ("KB", KiB), ("MB", MiB), ("GB", GiB))
DESCRIPTION_WIDTH = "330px"  # room for the longest catalog names, so rows line up


def _style() -> dict[str, str]:
    return {"description_width": DESCRIPTION_WIDTH}


class Editor:
    """One input for one variable. `widget` is what is displayed; `inputs` are the widgets a user changes."""

    widget: widgets.Widget
    inputs: tuple[widgets.Widget, ...]

    def show(self, text: str | None) -> None:
        """Display `text` (None: not set). A value the type rejects shows as the type's empty value."""
        raise NotImplementedError

    def raw(self) -> object:
        """What the user entered, as `ValueType.parse` and `EnvSession.set` take it; None means unset."""
        raise NotImplementedError

    def on_edit(self, callback: Callable[[], None]) -> None:
        """Call `callback()` whenever any of the inputs changes (a user's edit, or `show`)."""
        for control in self.inputs:
            control.observe(lambda change: callback(), names="value")


def _parse(value_type: ValueType, text: object) -> Any:
    """The typed value of `text`, or raise InvalidValueError."""
    return value_type.parse(text).value


class ChoiceEditor(Editor):
    """A dropdown of the type's own spellings; optional types also offer None."""

    def __init__(self, entry: Entry, value_type: ValueType, optional: bool) -> None:
        self._type = value_type
        self._empty = NONE_CHOICE if optional else None
        choices = list(value_type.choices())
        self.dropdown = widgets.Dropdown(options=([NONE_CHOICE] if optional else []) + choices, value=None,
                                         description=entry.name, style=_style())
        self.widget = self.dropdown
        self.inputs = (self.dropdown,)

    def show(self, text: str | None) -> None:
        try:
            self.dropdown.value = self._type.parse(text).text if text is not None else self._empty
        except InvalidValueError:
            self.dropdown.value = self._empty

    def raw(self) -> object:
        value = self.dropdown.value
        return None if value == NONE_CHOICE else value


class SwitchEditor(Editor):
    """A checkbox for a 0/1 switch."""

    def __init__(self, entry: Entry, value_type: ValueType) -> None:
        self._type = value_type
        self.checkbox = widgets.Checkbox(value=False, description=entry.name, style=_style(), indent=False)
        self.widget = self.checkbox
        self.inputs = (self.checkbox,)

    def show(self, text: str | None) -> None:
        try:
            self.checkbox.value = bool(_parse(self._type, text)) if text is not None else False
        except InvalidValueError:
            self.checkbox.value = False

    def raw(self) -> object:
        return bool(self.checkbox.value)


class PresenceEditor(SwitchEditor):
    """A checkbox for a flag that is ON whenever the variable exists: unchecking unsets it."""

    def show(self, text: str | None) -> None:
        try:  # set means ON, except where the framework counts an empty value as off
            self.checkbox.value = text is not None and bool(_parse(self._type, text))
        except InvalidValueError:
            self.checkbox.value = True

    def raw(self) -> object:
        return "1" if self.checkbox.value else None


class FractionEditor(Editor):
    """A slider for a number with both bounds (fractions of memory)."""

    def __init__(self, entry: Entry, value_type: ValueType) -> None:
        limits = value_type.describe()
        self._type = value_type
        self._minimum = float(limits["min"])
        self.slider = widgets.FloatSlider(min=limits["min"], max=limits["max"], step=0.01,
                                          readout_format=".2f", continuous_update=False, description=entry.name,
                                          style=_style())
        self.widget = self.slider
        self.inputs = (self.slider,)

    def show(self, text: str | None) -> None:
        try:
            self.slider.value = float(_parse(self._type, text)) if text is not None else self._minimum
        except InvalidValueError:
            self.slider.value = self._minimum

    def raw(self) -> object:
        return float(self.slider.value)


class NumberEditor(Editor):
    """A number box; the value type checks the range when the value is parsed, so out-of-range input is reported,
    not clamped."""

    def __init__(self, entry: Entry, value_type: ValueType) -> None:
        self._type = value_type
        factory = widgets.IntText if value_type.kind == "int" else widgets.FloatText
        self.box = factory(description=entry.name, style=_style())
        self.widget = self.box
        self.inputs = (self.box,)

    def show(self, text: str | None) -> None:
        try:
            self.box.value = _parse(self._type, text) if text is not None else 0
        except InvalidValueError:
            self.box.value = 0

    def raw(self) -> object:
        return self.box.value


class SizeEditor(Editor):
    """A number and a unit (B, KB, MB, GB; 1024-based). Units smaller than what the framework reads are not offered."""

    def __init__(self, entry: Entry, value_type: ValueType) -> None:
        self._type = value_type
        self._unit_bytes = int(value_type.describe().get("unit_bytes", 1))
        self._units = [(name, factor) for name, factor in SIZE_UNITS if factor >= self._unit_bytes]
        self.number = widgets.FloatText(value=0.0, description=entry.name, style=_style())
        self.unit = widgets.Dropdown(options=[name for name, _ in self._units], value=self._units[0][0],
                                     tooltip=f"unit of {entry.name}", layout=widgets.Layout(width="5.5em"))
        self.widget = widgets.HBox([self.number, self.unit])
        self.inputs = (self.number, self.unit)

    def show(self, text: str | None) -> None:
        try:
            count = int(_parse(self._type, text)) if text is not None else 0
        except InvalidValueError:
            self.number.value, self.unit.value = 0.0, self._units[0][0]
            return
        nbytes = count * self._unit_bytes
        name, factor = self._units[0]
        for unit_name, unit_factor in self._units:
            if nbytes and nbytes % unit_factor == 0:
                name, factor = unit_name, unit_factor
        with self.widget.hold_sync():
            self.number.value = float(nbytes // factor)
            self.unit.value = name

    def raw(self) -> object:
        number = float(self.number.value)
        shown = str(int(number)) if number.is_integer() else repr(number)
        return f"{shown}{self.unit.value}"

    def nbytes(self) -> int | None:
        """The size entered, in bytes; None when it is not a valid size."""
        try:
            return int(_parse(self._type, self.raw())) * self._unit_bytes
        except InvalidValueError:
            return None


class TextEditor(Editor):
    """Free text checked by the value type (devices, paths, patterns). For optional types, empty or None means None;
    for variables without a default, empty means not set."""

    def __init__(self, entry: Entry, value_type: ValueType, optional: bool) -> None:
        self._optional = optional
        hint = value_type.allowed()
        self.text = widgets.Text(value="", description=entry.name, style=_style(), continuous_update=False,
                                 placeholder=NONE_CHOICE if optional else ("not set" if entry.default is None else ""),
                                 tooltip=hint, layout=widgets.Layout(width="640px"))
        self.widget = self.text
        self.inputs = (self.text,)

    def show(self, text: str | None) -> None:
        self.text.value = "" if text is None else text

    def raw(self) -> object:
        value = self.text.value
        if self._optional and value.strip().lower() in ("", NONE_CHOICE.lower()):
            return None
        return value


def editor_for(entry: Entry) -> Editor:
    """The editor a variable's value type calls for, chosen by the type's `kind`."""
    value_type = entry.type
    optional = value_type.kind == "optional"
    inner: ValueType = getattr(value_type, "inner", value_type) if optional else value_type
    kind = inner.kind
    if kind == "enum" or (kind == "switch" and optional):
        return ChoiceEditor(entry, inner, optional=optional)
    if optional:
        return TextEditor(entry, value_type, optional=True)
    if kind == "switch":
        return SwitchEditor(entry, inner)
    if kind == "presence":
        return PresenceEditor(entry, inner)
    if entry.default is None:  # a number box cannot show "not set"; text can
        return TextEditor(entry, inner, optional=False)
    limits = inner.describe()
    if kind == "float" and limits.get("min") is not None and limits.get("max") is not None:
        return FractionEditor(entry, inner)
    if kind in ("int", "float"):
        return NumberEditor(entry, inner)
    if kind == "size":
        return SizeEditor(entry, inner)
    return TextEditor(entry, inner, optional=False)
