"""The ipywidgets input for each editor kind the presentation layer chooses (presentation/_editor.py): a dropdown, a
checkbox, a slider, a number box, a number with a unit, or text. Every front end draws the same kind with the same
bounds, choices and units.

An editor only shows a value and gives back what the user entered (`raw()`); checking it is the value type's job, and
setting it is the session's. `raw()` returning None means "unset this variable" (or, for an NPURunConfig keyword,
"leave it to the framework"). Inputs carry the variable's name as their accessible label (hidden: the row shows the
name above the input, so the input keeps its full width however long the name).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from ..base._errors import InvalidValueError
from ..base._text import Text
from ..catalog import Entry
from ..catalog._values import Size
from ..presentation import EditorSpec, KeySpec, editor_spec
from ..presentation._editor import NONE_CHOICE

# The name is the input's label for assistive technology, drawn at no width: the row shows it on its own line.
_HIDDEN_LABEL = {"description_width": "0px"}
SWITCH_LABEL = Text("on", "开启")
UNIT_OF = Text("unit of {name}", "{name} 的单位")
INPUT_CLASS = "mgenv-input"


def _input_layout(width: str) -> widgets.Layout:
    return widgets.Layout(width=width, min_width="8em", max_width="100%")


class Editor:
    """One input (or two, for sizes) for one variable. `widget` is what is displayed; `inputs` are what a user
    changes."""

    widget: widgets.Widget
    inputs: tuple[widgets.Widget, ...]

    def __init__(self, entry: Entry, spec: EditorSpec) -> None:
        self.entry = entry
        self.spec = spec

    def show(self, text: str | None) -> None:
        """Display `text` (None: not set). A value the type rejects shows as the editor's empty value."""
        raise NotImplementedError

    def raw(self) -> object:
        """What the user entered, as `ValueType.parse` and `EnvSession.set` take it; None means unset."""
        raise NotImplementedError

    def on_edit(self, callback: Callable[[], None]) -> None:
        """Call `callback()` whenever any of the inputs changes (a user's edit, or `show`)."""
        for control in self.inputs:
            control.observe(lambda change: callback(), names="value")

    def _parsed(self, text: str | None) -> Any:
        """The typed value of `text`, or raise InvalidValueError."""
        return self.entry.type.parse(text).value

    def _style(self, control: widgets.Widget) -> widgets.Widget:
        control.add_class(INPUT_CLASS)
        return control


class ChoiceEditor(Editor):
    """A dropdown of the framework's own spellings; an optional keyword also offers None."""

    def __init__(self, entry: Entry, spec: EditorSpec) -> None:
        super().__init__(entry, spec)
        self.dropdown = self._style(widgets.Dropdown(options=list(spec.choices), value=None, description=entry.name,
                                                     style=_HIDDEN_LABEL, layout=_input_layout("18em")))
        self.widget = self.dropdown
        self.inputs = (self.dropdown,)

    def show(self, text: str | None) -> None:
        empty = NONE_CHOICE if self.spec.optional else None
        try:
            self.dropdown.value = self.entry.type.parse(text).text if text is not None else empty
        except InvalidValueError:
            self.dropdown.value = empty

    def raw(self) -> object:
        value = self.dropdown.value
        return None if value == NONE_CHOICE else value


class SwitchEditor(Editor):
    """A checkbox for an on/off switch, labelled "on" (the row above it names the variable; the tooltip too)."""

    def __init__(self, entry: Entry, spec: EditorSpec) -> None:
        super().__init__(entry, spec)
        self.checkbox = self._style(widgets.Checkbox(value=False, description=SWITCH_LABEL.get(), indent=False,
                                                     tooltip=entry.name, layout=widgets.Layout(width="auto")))
        self.widget = self.checkbox
        self.inputs = (self.checkbox,)

    def show(self, text: str | None) -> None:
        try:
            self.checkbox.value = bool(self._parsed(text)) if text is not None else False
        except InvalidValueError:
            self.checkbox.value = False

    def raw(self) -> object:
        return bool(self.checkbox.value)


class PresenceEditor(SwitchEditor):
    """A checkbox for a flag that is ON whenever the variable exists: unchecking unsets it."""

    def show(self, text: str | None) -> None:
        try:  # set means ON, except where the framework counts an empty value as off
            self.checkbox.value = text is not None and bool(self._parsed(text))
        except InvalidValueError:
            self.checkbox.value = True

    def raw(self) -> object:
        return self.spec.on if self.checkbox.value else None


class FractionEditor(Editor):
    """A slider for a number with both bounds (fractions of memory), with its value shown beside it."""

    def __init__(self, entry: Entry, spec: EditorSpec) -> None:
        super().__init__(entry, spec)
        self._minimum = float(spec.minimum or 0.0)
        self.slider = self._style(widgets.FloatSlider(min=self._minimum, max=float(spec.maximum or 1.0), step=0.01,
                                                      readout_format=".2f", continuous_update=False,
                                                      description=entry.name, style=_HIDDEN_LABEL,
                                                      layout=_input_layout("22em")))
        self.widget = self.slider
        self.inputs = (self.slider,)

    def show(self, text: str | None) -> None:
        try:
            self.slider.value = float(self._parsed(text)) if text is not None else self._minimum
        except InvalidValueError:
            self.slider.value = self._minimum

    def raw(self) -> object:
        return float(self.slider.value)


class NumberEditor(Editor):
    """A number box; the value type checks the range when the value is parsed, so out-of-range input is reported,
    not clamped."""

    def __init__(self, entry: Entry, spec: EditorSpec) -> None:
        super().__init__(entry, spec)
        factory = widgets.IntText if spec.integer else widgets.FloatText
        self.box = self._style(factory(description=entry.name, style=_HIDDEN_LABEL, layout=_input_layout("12em")))
        self.widget = self.box
        self.inputs = (self.box,)

    def show(self, text: str | None) -> None:
        try:
            self.box.value = self._parsed(text) if text is not None else 0
        except InvalidValueError:
            self.box.value = 0

    def raw(self) -> object:
        return self.box.value


class SizeEditor(Editor):
    """A number and a unit (1024-based), offering only units the framework can hold; a value is shown split as the
    size type writes it (`Size.split`: the largest unit that divides it exactly), as the sidebar shows it."""

    def __init__(self, entry: Entry, spec: EditorSpec) -> None:
        super().__init__(entry, spec)
        if not isinstance(entry.type, Size):
            raise TypeError(f"{entry.name} is not a size")
        self._size = entry.type
        self._units = list(spec.units)
        self.number = self._style(widgets.FloatText(value=0.0, description=entry.name, style=_HIDDEN_LABEL,
                                                    layout=_input_layout("12em")))
        self.unit = self._style(widgets.Dropdown(options=[name for name, _ in self._units], value=self._units[0][0],
                                                 description=f"{entry.name} unit", style=_HIDDEN_LABEL,
                                                 tooltip=UNIT_OF.get().format(name=entry.name),
                                                 layout=_input_layout("6em")))
        self.widget = widgets.HBox([self.number, self.unit], layout=widgets.Layout(flex_flow="row wrap"))
        self.inputs = (self.number, self.unit)

    def show(self, text: str | None) -> None:
        try:
            parts = self._size.split(self._size.parse(text).text if text is not None else "0")
        except InvalidValueError:
            parts = None
        number, unit = parts if parts is not None else ("0", self._units[0][0])
        with self.widget.hold_sync():
            self.number.value = float(number)
            self.unit.value = unit

    def raw(self) -> object:
        number = float(self.number.value)
        shown = str(int(number)) if number.is_integer() else repr(number)
        return f"{shown}{self.unit.value}"

    def nbytes(self) -> int | None:
        """The size entered, in bytes; None when it is not a valid size."""
        try:
            return int(self._parsed(str(self.raw()))) * self.spec.unit_bytes
        except InvalidValueError:
            return None


class TextEditor(Editor):
    """Free text checked by the value type (devices, paths, patterns). For optional keywords, empty or None means
    None; for variables without a default, empty means not set."""

    def __init__(self, entry: Entry, spec: EditorSpec) -> None:
        super().__init__(entry, spec)
        self.text = self._style(widgets.Text(value="", description=entry.name, style=_HIDDEN_LABEL,
                                             continuous_update=False, placeholder=spec.placeholder,
                                             tooltip=entry.type.allowed(), layout=_input_layout("28em")))
        self.widget = self.text
        self.inputs = (self.text,)

    def show(self, text: str | None) -> None:
        self.text.value = "" if text is None else text

    def raw(self) -> object:
        value = self.text.value
        if self.spec.optional and value.strip().lower() in ("", NONE_CHOICE.lower()):
            return None
        return value


KEY_DEFAULT = Text("default", "默认")
KEY_DEFAULT_IS = Text("default: {value}", "默认:{value}")
KEY_DEFAULT_UNSET = Text("default: off or unlimited", "默认:关闭或不限")
KEY_RESET = Text("↺", "↺")
KEY_RESET_TOOLTIP = Text("{key}: back to the default", "{key}:恢复默认值")
JOINED = Text("joined: ", "合成的值:")
ALL_DEFAULT = Text("every key at its default (the variable is left unset)", "所有键都取默认值(不设置该变量)")


class KeyValueEditor(Editor):
    """One typed control per key of a `key:value` config (PyTorch's allocator config), from the presentation layer's
    "key_value" spec (its `keys`): a checkbox, a number box, a dropdown or text. A key the user has not set is
    "default" and left out of the joined string, which is shown under the controls; `raw()` is that string (None when
    every key is default), so the session checks and applies it as one value.

    `controls` maps each key to its input, `is_set` says which keys are given; `reset_key(name)` makes a key default.
    """

    def __init__(self, entry: Entry, spec: EditorSpec) -> None:
        super().__init__(entry, spec)
        self.keys: tuple[KeySpec, ...] = spec.keys
        self.controls: dict[str, widgets.Widget] = {}
        self.is_set: dict[str, bool] = {key.name: False for key in self.keys}
        self.marks: dict[str, widgets.HTML] = {}
        self._callbacks: list[Callable[[], None]] = []
        self._showing = False
        lines = []
        for key in self.keys:
            control = self._style(self._control(key))
            control.observe(lambda change, name=key.name: self._changed(name), names="value")
            mark = widgets.HTML()
            mark.add_class("mgenv-key-mark")
            reset = widgets.Button(description=KEY_RESET.get(), tooltip=KEY_RESET_TOOLTIP.get().format(key=key.name),
                                   layout=widgets.Layout(width="auto"))
            reset.on_click(lambda _, name=key.name: self.reset_key(name))
            label = widgets.HTML(f"<code>{html.escape(key.name)}</code>", tooltip=key.description)
            label.add_class("mgenv-key-name")
            line = widgets.HBox([label, control, reset, mark], layout=widgets.Layout(flex_flow="row wrap"))
            line.add_class("mgenv-key")
            self.controls[key.name] = control
            self.marks[key.name] = mark
            lines.append(line)
        self.joined = widgets.HTML()
        self.joined.add_class("mgenv-joined")
        self.widget = widgets.VBox([*lines, self.joined], layout=widgets.Layout(width="100%"))
        self.inputs = tuple(self.controls.values())
        self.show(None)

    def _control(self, key: KeySpec) -> widgets.Widget:
        kind = key.editor.kind
        if kind == "switch":
            return widgets.Checkbox(value=False, description=SWITCH_LABEL.get(), indent=False, tooltip=key.name,
                                    layout=widgets.Layout(width="auto"))
        if kind == "choice":
            return widgets.Dropdown(options=list(key.editor.choices), value=key.default, description=key.name,
                                    style=_HIDDEN_LABEL, layout=_input_layout("14em"))
        if kind == "number":
            factory = widgets.IntText if key.editor.integer else widgets.FloatText
            return factory(description=key.name, style=_HIDDEN_LABEL, tooltip=key.allowed,
                           layout=_input_layout("10em"))
        return widgets.Text(value="", description=key.name, style=_HIDDEN_LABEL, continuous_update=False,
                            placeholder=key.editor.placeholder, tooltip=key.allowed, layout=_input_layout("18em"))

    def on_edit(self, callback: Callable[[], None]) -> None:
        self._callbacks.append(callback)

    def _changed(self, name: str) -> None:
        if self._showing:
            return
        self.is_set[name] = True  # an edit gives the key, even when it equals the default
        self._after_edit()

    def _after_edit(self) -> None:
        self._render()
        for callback in self._callbacks:
            callback()

    def reset_key(self, name: str) -> None:
        """Leave `name` out of the config: the framework's default applies."""
        key = next(k for k in self.keys if k.name == name)
        self._showing = True
        try:
            self._put(key, key.default)
        finally:
            self._showing = False
        self.is_set[name] = False
        self._after_edit()

    def _put(self, key: KeySpec, text: str | None) -> None:
        """Show `text` (None: the key's default) in the key's control."""
        control = self.controls[key.name]
        kind = key.editor.kind
        if kind == "switch":
            control.value = text == key.editor.on
        elif kind == "choice":
            control.value = text if text in key.editor.choices else key.default
        elif kind == "number":
            fallback = key.editor.minimum or 0
            number = text if text is not None else fallback
            control.value = int(number) if key.editor.integer else float(number)
        else:
            control.value = text or ""

    def show(self, text: str | None) -> None:
        try:
            values: dict[str, str] = dict(self.entry.type.parse(text).value) if text is not None else {}
        except InvalidValueError:
            values = {}
        self._showing = True
        try:
            with self.widget.hold_sync():
                for key in self.keys:
                    self._put(key, values.get(key.name, key.default))
                    self.is_set[key.name] = key.name in values
        finally:
            self._showing = False
        self._render()
        for callback in self._callbacks:
            callback()

    def key_text(self, name: str) -> str | None:
        """The value given for key `name`, as written in the config; None while it is default."""
        if not self.is_set[name]:
            return None
        key = next(k for k in self.keys if k.name == name)
        value = self.controls[name].value
        if key.editor.kind == "switch":
            return key.editor.on if value else key.editor.off
        if key.editor.kind == "number":
            return str(value) if key.editor.integer else repr(float(value))
        return None if value is None else str(value).strip() or None

    def raw(self) -> object:
        parts = [f"{key.name}:{text}" for key in self.keys if (text := self.key_text(key.name)) is not None]
        return ",".join(parts) if parts else None

    def _render(self) -> None:
        for key in self.keys:
            if self.is_set[key.name]:
                self.marks[key.name].value = ""
                continue
            shown = KEY_DEFAULT_IS.get().format(value=key.default) if key.default is not None else \
                KEY_DEFAULT_UNSET.get()
            self.marks[key.name].value = f"<i>{html.escape(shown)}</i>"
        raw = self.raw()
        if raw is None:
            self.joined.value = html.escape(ALL_DEFAULT.get())
            return
        try:
            joined = self.entry.type.parse(raw).text
        except InvalidValueError:
            joined = str(raw)
        self.joined.value = f"{html.escape(JOINED.get())}<code>{html.escape(joined)}</code>"


EDITORS: dict[str, type[Editor]] = {
    "choice": ChoiceEditor, "switch": SwitchEditor, "presence": PresenceEditor, "fraction": FractionEditor,
    "number": NumberEditor, "size": SizeEditor, "text": TextEditor, "key_value": KeyValueEditor,
}


def editor_for(entry: Entry) -> Editor:
    """The editor the presentation layer chose for `entry`."""
    spec = editor_spec(entry)
    return EDITORS[spec.kind](entry, spec)


def key_value_editor(entry: Entry) -> KeyValueEditor:
    """The structured editor of a `key:value` config variable (PyTorch's allocator config): one control per key."""
    editor = editor_for(entry)
    if not isinstance(editor, KeyValueEditor):
        raise InvalidValueError(f"{entry.name} is not a key:value config")
    return editor
