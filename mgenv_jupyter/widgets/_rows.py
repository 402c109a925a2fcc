"""One row per variable, drawn from the presentation layer: the name on its own line with the status badge, the input
below it at full width, a note (does the variable apply with the values chosen), the inline message for invalid
input, and the details. A row keeps the user's edit until Apply, Reset, or a change of that variable elsewhere.

Rows are widgets with traits, so Python code can `observe` and `link` them: `value` is the value being edited (as the
variable would hold it; None: unset), `status` the status code, `applies` whether it matters with the values chosen.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import traitlets

from ..base._errors import InvalidValueError
from ..base._markup import text_html
from ..base._text import Text, current_language
from ..catalog import Entry
from ..catalog._applicability import Applicability, effective_text, group_state
from ..catalog._rules import Group
from ..catalog._secrets import shown
from ..presentation import VariableView, default_text, present
from ..runtime import EnvSession
from ._editors import Editor, editor_for

INACTIVE_CLASS = "mgenv-inactive"
EDITED_CLASS = "mgenv-edited"
AT_DEFAULT_CLASS = "mgenv-at-default"
EDITED = Text("edited, not applied yet", "已修改,尚未应用")
WILL_UNSET = Text("will be unset (back to the framework's default)", "将被取消设置(恢复框架默认值)")
CAVEATS = Text("caveats", "注意事项")
DEFAULT = Text("default", "默认值")
NOW = Text("now", "当前值")
NOT_SET = Text("not set", "未设置")
LIVE = Text("live", "运行时接口")
LIVE_EXAMPLE = Text("live (example, with the default)", "运行时接口(示例,取默认值)")
RESET_TO_DEFAULT = Text("↺ default", "↺ 默认值")
INVALID_NOW = Text("the current value {value} is not valid here: {error}", "当前值 {value} 在此无效:{error}")
PARTLY = Text("partly on: {names}", "部分开启:{names}")


def session_text(session: EnvSession, entry: Entry) -> str | None:
    """The variable's value now, as text an editor can show; None when unset."""
    if entry.is_env:
        return session.get(entry.name)
    options = session.chosen_options()
    return None if entry.name not in options or options[entry.name] is None else str(options[entry.name])


def _value_html(entry: Entry, value: str) -> str:
    """A value as code: a size in the one notation of sizes (1 MiB), with what the environment holds (1048576) on
    hover; anything else as it is."""
    written = entry.type.shown(value)
    stored = f" title='{html.escape(value, quote=True)}'" if written != value else ""
    return f"<code{stored}>{html.escape(written)}</code>"


def _html(class_name: str, value: str = "") -> widgets.HTML:
    part = widgets.HTML(value)
    part.add_class(class_name)
    return part


class Row(widgets.VBox):
    """What a panel needs from a row. `names` are the variables it edits."""

    names: tuple[str, ...] = ()

    def sync(self) -> None:
        """Show the session's values and forget edits."""
        raise NotImplementedError

    def refresh_status(self) -> None:
        raise NotImplementedError

    def render_texts(self) -> None:
        """Re-render texts in the current language."""

    def is_edited(self) -> bool:
        raise NotImplementedError

    def pending(self) -> list[tuple[str, object]]:
        """The edits as `(name, value)` pairs for `EnvSession.set` (None: unset); [] when nothing was edited.
        Raises `InvalidValueError` (after showing it inline) when the input is not valid."""
        raise NotImplementedError

    def edited_texts(self) -> dict[str, str | None]:
        """name → the value the edit would give (normalised when valid), for rules evaluated before Apply."""
        return {}


class VariableRow(Row):
    """A row for one catalog variable."""

    value = traitlets.Unicode(None, allow_none=True, help="the value being edited, as the variable would hold it")
    status = traitlets.Unicode("", help="the status code of the variable now")
    applies = traitlets.Bool(True, help="whether the variable matters with the values chosen")

    def __init__(self, session: EnvSession, entry: Entry, editor: Editor | None = None) -> None:
        self.session = session
        self.entry = entry
        self.names = (entry.name,)
        self.editor: Editor = editor if editor is not None else editor_for(entry)
        self.name_label = _html("mgenv-name", html.escape(entry.name))
        self.name_label.tooltip = entry.name
        self.badge = _html("mgenv-badge")
        self.edit_mark = _html("mgenv-edit-mark")
        self.note = _html("mgenv-note")
        self.error = _html("mgenv-error")
        self.details = _html("mgenv-details")
        self.unset_button = widgets.Button(description=RESET_TO_DEFAULT.get(), tooltip=f"unset {entry.name}: the "
                                           "framework's default applies", layout=widgets.Layout(width="auto"))
        if self.editor.spec.kind == "presence":
            self.unset_button.layout.display = "none"  # unchecking already unsets it
        head = widgets.HBox([self.name_label, self.badge, self.edit_mark])
        head.add_class("mgenv-row-head")
        edit = widgets.HBox([self.editor.widget, self.unset_button])
        edit.add_class("mgenv-edit")
        self._parts: list[widgets.Widget] = [head, edit, self.note, self.error, self.details]
        super().__init__(list(self._parts))
        self.add_class("mgenv-row")
        self._listeners: list[Callable[[VariableRow], None]] = []
        self._synced_raw: Any = None
        self._invalid_now: str | None = None
        self._unset_requested = False
        self._unset_raw: Any = None
        self._showing = False  # the editor is being filled from `value`: do not echo it back
        self.editor.on_edit(self._edited)
        self.unset_button.on_click(lambda _: self.request_unset())
        self.sync()

    @property
    def widget(self) -> VariableRow:
        """The row itself (it is the widget a panel displays)."""
        return self

    # ---- what the user sees --------------------------------------------------------------------------------------

    def sync(self) -> None:
        current = session_text(self.session, self.entry)
        displayed = current if current is not None else default_text(self.entry)
        self._unset_requested = False
        self._invalid_now = None
        self._show(displayed)
        if current is not None:
            try:
                self.entry.type.parse(current)
            except InvalidValueError as exc:
                self._invalid_now = INVALID_NOW.get().format(value=repr(shown(self.entry.name, current)), error=exc)
        self._synced_raw = self.editor.raw()
        self.unset_button.disabled = current is None
        self._update_value()
        self._validate()
        self.refresh_status()

    def refresh_status(self) -> None:
        view = present(self.session, self.entry.name)
        self.status = view.status.value
        self.badge.value = html.escape(view.label)
        self.badge.tooltip = view.message
        for code in [c for c in self.badge._dom_classes if c.startswith("mgenv-badge-")]:
            self.badge.remove_class(code)
        self.badge.add_class(f"mgenv-badge-{view.status.value}")
        mark = WILL_UNSET.get() if self._unset_requested else EDITED.get() if self.is_edited() else ""
        self.edit_mark.value = f"✎ {html.escape(mark)}" if mark else ""
        if self.is_edited():
            self.add_class(EDITED_CLASS)
        else:
            self.remove_class(EDITED_CLASS)
        # Not set and not edited: the editor shows the framework's default, greyed, never read as a value set.
        if view.value is None and not self.is_edited():
            self.add_class(AT_DEFAULT_CLASS)
        else:
            self.remove_class(AT_DEFAULT_CLASS)
        self._render_details(view)

    def _render_details(self, view: VariableView) -> None:
        language = current_language()
        facts = view.details
        if facts is None:
            self.details.value = ""
            return
        now = _value_html(self.entry, view.value) if view.value is not None else NOT_SET.get(language)
        default = _value_html(self.entry, facts.default) if facts.default is not None else NOT_SET.get(language)
        items = [f"{NOW.get(language)}: {now}", f"{DEFAULT.get(language)}: {default}", text_html(facts.reading)]
        if facts.live:
            word = LIVE_EXAMPLE if facts.live_example else LIVE
            items.append(f"{word.get(language)}: <code>{html.escape(facts.live)}</code>")
        parts = [f"<div class='mgenv-facts'>{' · '.join(items)}</div>", f"<div>{text_html(facts.description)}</div>",
                 f"<div class='mgenv-facts'>{text_html(view.message)}</div>"]
        if facts.note:
            parts.append(f"<div><i>{text_html(facts.note)}</i></div>")
        if facts.caveats:
            listed = "".join(f"<li>{text_html(c)}</li>" for c in facts.caveats)
            parts.append(f"<details><summary>{CAVEATS.get(language)} ({len(facts.caveats)})</summary>"
                         f"<ul>{listed}</ul></details>")
        self.details.value = "".join(parts)

    def render_texts(self) -> None:
        """Re-render the texts (after a change of language)."""
        self.unset_button.description = RESET_TO_DEFAULT.get()
        self.refresh_status()

    def set_applicability(self, applicability: Applicability) -> None:
        """Whether the variable matters with the values chosen; a row that does not is greyed (it stays editable)
        with the reason beside it."""
        self.applies = applicability.applies
        self.note.value = text_html(applicability.reason) if applicability.reason else ""
        if applicability.applies:
            self.remove_class(INACTIVE_CLASS)
        else:
            self.add_class(INACTIVE_CLASS)

    # ---- edits ---------------------------------------------------------------------------------------------------

    def show_under_editor(self, widget: widgets.Widget) -> None:
        """Show `widget` right under the input (what the value means beside other values: a share of the GPU)."""
        self._parts.insert(2, widget)
        self.children = tuple(self._parts)

    def on_edit(self, listener: Callable[[VariableRow], None]) -> None:
        """Call `listener(row)` whenever the user changes the input (and when a sync changes it)."""
        self._listeners.append(listener)

    def _show(self, text: str | None) -> None:
        self._showing = True
        try:
            self.editor.show(text)
        finally:
            self._showing = False

    @traitlets.observe("value")
    def _value_set(self, change: dict[str, Any]) -> None:
        if not self._showing and change["new"] != self._text_of(self.editor.raw()):
            self._show(change["new"])  # set from Python code (or a link): the editor follows
            self._edited()

    def _edited(self) -> None:
        if self._showing:
            return
        if self._unset_requested and self.editor.raw() != self._unset_raw:
            self._unset_requested = False
        self._changed()

    def _changed(self) -> None:
        """After an edit or an unset request: the value, the validation message, the status, then the listeners."""
        self._update_value()
        self._validate()
        self.refresh_status()
        for listener in self._listeners:
            listener(self)

    def _update_value(self) -> None:
        self._showing = True
        try:
            self.value = None if self._unset_requested else self._text_of(self.editor.raw())
        finally:
            self._showing = False

    def _text_of(self, raw: object) -> str | None:
        if raw is None:
            return None
        try:
            return self.entry.type.parse(raw).text
        except InvalidValueError:
            return str(raw)

    def request_unset(self) -> None:
        """Mark the variable to be unset at Apply; the editor shows the default meanwhile."""
        self._show(default_text(self.entry))
        self._unset_raw = self.editor.raw()
        self._unset_requested = session_text(self.session, self.entry) is not None
        self._changed()

    def is_edited(self) -> bool:
        return self._unset_requested or self.editor.raw() != self._synced_raw

    def edited_texts(self) -> dict[str, str | None]:
        return {self.entry.name: self.value} if self.is_edited() else {}

    def _validate(self) -> str | None:
        """Check the input; show and return the message when it is not valid."""
        message = None
        if self.is_edited() and not self._unset_requested:
            raw = self.editor.raw()
            if raw is not None:
                try:
                    self.entry.type.parse(raw)
                except InvalidValueError as exc:
                    message = str(exc)
        problem = message or (self._invalid_now if not self.is_edited() else None)
        self.error.value = "" if problem is None else f"⚠ {text_html(problem)}"
        return message

    def pending(self) -> list[tuple[str, object]]:
        if self._unset_requested:
            return [(self.entry.name, None)]
        if not self.is_edited():
            return []
        message = self._validate()
        if message is not None:
            raise InvalidValueError(f"{self.entry.name}: {message}")
        return [(self.entry.name, self.editor.raw())]


class GroupRow(Row):
    """One switch for a catalog group of options the framework switches together (megengine.dtr.enable() turns
    three options on); `on` is the switch's trait."""

    on = traitlets.Bool(False, help="the group switched on")

    def __init__(self, session: EnvSession, group: Group) -> None:
        self.session = session
        self.group = group
        self.names = group.members
        language = current_language()
        self.checkbox = widgets.Checkbox(value=False, description=group.label.get(language), indent=False,
                                         layout=widgets.Layout(width="auto"))
        self.checkbox.add_class("mgenv-input")
        self.badge = _html("mgenv-badge")
        self.edit_mark = _html("mgenv-edit-mark")
        self.partly = _html("mgenv-note")
        self.details = _html("mgenv-intro", text_html(group.help.get(language)))
        head = widgets.HBox([self.checkbox, self.badge, self.edit_mark])
        head.add_class("mgenv-row-head")
        super().__init__([head, self.partly, self.details])
        self.add_class("mgenv-row")
        self._synced = False
        traitlets.link((self, "on"), (self.checkbox, "value"))
        self.checkbox.observe(lambda change: self.refresh_status(), names="value")
        self.sync()

    @property
    def widget(self) -> GroupRow:
        return self

    def sync(self) -> None:
        state = group_state(self.session.catalog, self.group, self.session.get)
        self._synced = state == "on"
        self.on = self._synced
        names = [n for n in self.group.members
                 if effective_text(self.session.catalog, n, self.session.get) == self.group.on]
        self.partly.value = html.escape(PARTLY.get().format(names=", ".join(names))) if state == "partly" else ""
        self.refresh_status()

    def refresh_status(self) -> None:
        views = [present(self.session, name) for name in self.group.members]
        labels = {view.label for view in views}
        self.badge.value = html.escape(next(iter(labels))) if len(labels) == 1 else "; ".join(
            f"{html.escape(view.name)}: {html.escape(view.label)}" for view in views)
        self.edit_mark.value = f"✎ {html.escape(EDITED.get())}" if self.is_edited() else ""

    def is_edited(self) -> bool:
        return bool(self.on) != self._synced

    def pending(self) -> list[tuple[str, object]]:
        if not self.is_edited():
            return []
        value = self.group.on if self.on else self.group.off
        return [(name, value) for name in self.group.members]

    def edited_texts(self) -> dict[str, str | None]:
        return {name: value for name, value in self.pending()}  # type: ignore[misc]
