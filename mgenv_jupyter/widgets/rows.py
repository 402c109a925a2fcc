"""One editor row per variable: its input, its status for this kernel, its default and description, and the inline
message for invalid input. A row keeps the user's edit until Apply, Reset, or a change of that variable elsewhere."""

from __future__ import annotations

import ast
import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from ..catalog import Entry, ReadWhen
from ..errors import InvalidValueError
from ..presentation.details import live_text
from ..runtime import EnvSession
from ..runtime.outcome import shown
from ..text import Text, current_language
from .editors import Editor, editor_for

INACTIVE_CLASS = "mgenv-inactive"  # greyed out by the panel's style sheet
EDITED = Text("edited, not applied yet", "已修改,尚未应用")
WILL_UNSET = Text("will be unset (back to the framework's default)", "将被取消设置(恢复框架默认值)")
PRESENCE_NOTE = Text(
    "This flag is ON whenever the variable exists, whatever its value (even 0): checked sets it, unchecked unsets it.",
    "只要该变量存在(无论取值,即使为 0)此开关即为开启:勾选即设置,取消勾选即取消设置。",
)
CAVEATS = Text("caveats", "注意事项")
DEFAULT = Text("default", "默认值")
NOW = Text("now", "当前值")
NOT_SET = Text("not set", "未设置")
LIVE = Text("live", "运行时接口")
LIVE_EXAMPLE = Text("live (example, with the default)", "运行时接口(示例,取默认值)")
INVALID_NOW = Text("the current value {value!r} is not valid here: {error}", "当前值 {value!r} 在此无效:{error}")


def option_text(value: object) -> str | None:
    """An NPURunConfig keyword's value as editor text (None: left to the framework)."""
    return None if value is None else str(value)


def session_text(session: EnvSession, entry: Entry) -> str | None:
    """The variable's value now, as text an editor can show; None when unset."""
    if entry.is_env:
        return session.get(entry.name)
    options = session.npu_run_config_kwargs()
    return option_text(options[entry.name]) if entry.name in options else None


def default_text(entry: Entry) -> str | None:
    """The default as editor text. NPURunConfig defaults are written as Python literals ("'auto'", "None")."""
    if entry.default is None or entry.is_env:
        return entry.default
    try:
        return option_text(ast.literal_eval(entry.default))
    except (ValueError, SyntaxError):
        return entry.default


def _when_words(entry: Entry, language: str) -> str:
    reader = entry.readers[0] if entry.readers else "the framework"
    if entry.when is ReadWhen.IMPORT:
        latched = f"; fixed at {entry.first_use.get(language)}" if entry.first_use else ""
        return f"read at `import {reader}`{latched}"
    if entry.when is ReadWhen.FIRST_USE:
        return "read at " + (entry.first_use.get(language) if entry.first_use else f"the first use of {reader}")
    if entry.when is ReadWhen.EVERY_CALL:
        return "read on every use"
    if entry.when is ReadWhen.PER_OBJECT:
        return "read each time the object is created"
    if entry.when is ReadWhen.OPTION:
        return "NPURunConfig keyword"
    return "no longer read" + (f"; use {entry.replaced_by}" if entry.replaced_by else "")


class Row:
    """What a panel needs from a row. `names` are the variables it edits; `widget` is displayed."""

    names: tuple[str, ...]
    widget: widgets.Widget

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


class VariableRow(Row):
    """A row for one catalog variable."""

    def __init__(self, session: EnvSession, entry: Entry) -> None:
        self.session = session
        self.entry = entry
        self.names = (entry.name,)
        self.editor: Editor = editor_for(entry)
        self.status = widgets.HTML()
        self.note = widgets.HTML()  # set by panels: e.g. "only matters under naive_best_fit"
        self.error = widgets.HTML()
        self.details = widgets.HTML()
        self.unset_button = widgets.Button(description="↺ default", tooltip=f"unset {entry.name}: the framework's "
                                           "default applies", layout=widgets.Layout(width="auto"))
        if entry.type.kind == "presence":
            self.unset_button.layout.display = "none"  # unchecking already unsets it
        self.widget = widgets.VBox(
            [widgets.HBox([self.editor.widget, self.unset_button, self.status]), self.note, self.error, self.details],
            layout=widgets.Layout(margin="0 0 8px 0"),
        )
        self.widget.add_class("mgenv-row")
        self._listeners: list[Callable[[VariableRow], None]] = []
        self._synced_raw: Any = None
        self._invalid_now: str | None = None
        self._unset_requested = False
        self._unset_raw: Any = None
        self.editor.on_edit(self._edited)
        self.unset_button.on_click(lambda _: self.request_unset())
        self.sync()

    # ---- what the user sees --------------------------------------------------------------------------------------

    def sync(self) -> None:
        current = session_text(self.session, self.entry)
        displayed = current if current is not None else default_text(self.entry)
        self._unset_requested = False
        self._invalid_now = None
        self.editor.show(displayed)
        if current is not None:
            try:
                self.entry.type.parse(current)
            except InvalidValueError as exc:
                self._invalid_now = INVALID_NOW.get().format(value=current, error=exc)
        self._synced_raw = self.editor.raw()
        self.unset_button.disabled = current is None
        self._validate()
        self.refresh_status()
        self._render_details(current)

    def refresh_status(self) -> None:
        state = self.session.state(self.entry.name)
        mark = ""
        if self._unset_requested:
            mark = f"<span style='color:#b35c00'>✎ {html.escape(WILL_UNSET.get())}</span> · "
        elif self.is_edited():
            mark = f"<span style='color:#b35c00'>✎ {html.escape(EDITED.get())}</span> · "
        self.status.value = (f"{mark}<b>{html.escape(state.status.label.get())}</b> "
                             f"<small>{html.escape(state.message.get())}</small>")

    def _render_details(self, current: str | None) -> None:
        language = current_language()
        entry = self.entry
        default = default_text(entry)
        facts = [
            f"{NOW.get(language)}: " + (f"<code>{html.escape(shown(entry.name, current) or '')}</code>"
                                         if current is not None else NOT_SET.get(language)),
            f"{DEFAULT.get(language)}: " + (f"<code>{html.escape(default)}</code>" if default is not None
                                             else NOT_SET.get(language)),
            html.escape(_when_words(entry, language)),
        ]
        live, example = live_text(entry, current)
        if live:
            word = LIVE_EXAMPLE if example else LIVE
            facts.append(f"{word.get(language)}: <code>{html.escape(live)}</code>")
        parts = [f"<small>{' · '.join(facts)}</small>", f"<div>{html.escape(entry.description.get(language))}</div>"]
        if entry.type.kind == "presence":
            parts.append(f"<div><i>{html.escape(PRESENCE_NOTE.get(language))}</i></div>")
        if entry.caveats:
            items = "".join(f"<li>{html.escape(c.get(language))}</li>" for c in entry.caveats)
            parts.append(f"<details><summary>{CAVEATS.get(language)} ({len(entry.caveats)})</summary>"
                         f"<ul>{items}</ul></details>")
        self.details.value = "<div class='mgenv-details' style='margin-left:12px'>" + "".join(parts) + "</div>"

    def render_texts(self) -> None:
        """Re-render the descriptions (after a change of language)."""
        self._render_details(session_text(self.session, self.entry))

    # ---- edits ---------------------------------------------------------------------------------------------------

    def on_edit(self, listener: Callable[[VariableRow], None]) -> None:
        """Call `listener(row)` whenever the user changes the input (and when a sync changes it)."""
        self._listeners.append(listener)

    def _edited(self) -> None:
        if self._unset_requested and self.editor.raw() != self._unset_raw:
            self._unset_requested = False
        self._validate()
        self.refresh_status()
        for listener in self._listeners:
            listener(self)

    def request_unset(self) -> None:
        """Mark the variable to be unset at Apply; the editor shows the default meanwhile."""
        self.editor.show(default_text(self.entry))
        self._unset_raw = self.editor.raw()
        self._unset_requested = session_text(self.session, self.entry) is not None
        self._validate()
        self.refresh_status()

    def is_edited(self) -> bool:
        return self._unset_requested or self.editor.raw() != self._synced_raw

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
        self.error.value = "" if problem is None else f"<span style='color:#c00'>⚠ {html.escape(problem)}</span>"
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

    def set_note(self, text: str, inactive: bool = False) -> None:
        """A panel's remark about this row; `inactive` also greys the row out (it stays editable)."""
        self.note.value = f"<small style='color:#8a6d00'>{html.escape(text)}</small>" if text else ""
        if inactive:
            self.widget.add_class(INACTIVE_CLASS)
        else:
            self.widget.remove_class(INACTIVE_CLASS)
