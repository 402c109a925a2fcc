"""The part every editor widget shares: rows, Apply and Reset, the message area, and two-way sync with the session.

Apply sends every edited row to `EnvSession.set(..., source="widget")` as one batch, so it is all or nothing, exactly
like `%%envset`. The panel observes the session, so a `%envset` in a later cell (or another widget) updates it.
"""

from __future__ import annotations

import html
import threading
import warnings
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path

import ipywidgets as widgets

from ..base._errors import AlreadyReadWarning, InvalidValueError
from ..base._markup import text_html
from ..base._text import Text, current_language
from ..catalog import Entry
from ..catalog._applicability import applicability
from ..presentation._editor_summary import EditorSummary
from ..runtime import EnvSession, SetReport, session
from ._link import SessionLink
from ._rows import Row, VariableRow
from ._static_view import StaticView

STYLE_SHEET = Path(__file__).with_name("style.css")
NOTHING_EDITED = Text("Nothing to apply: no value was edited.", "没有需要应用的修改。")
NOTHING_APPLIED = Text("Nothing was applied:", "未应用任何修改:")
CLOSED = Text("This widget was closed.", "此控件已关闭。")
UNSET_VALUE = Text("(unset)", "(未设置)")
NOTE = Text("note", "注")
TRY_SEVERAL = Text("Try several values…", "尝试几个取值…")
NOTHING_TO_TRY = Text("These variables' types give no values to compare: write a %%envsweep line with yours.",
                      "这些变量的类型给不出可比较的取值:请自己写一行带取值的 %%envsweep。")
TRY_SEVERAL_TIP = Text("a %%envsweep cell that measures your code at several values, each in a fresh kernel",
                       "一个 %%envsweep 单元,在几个取值下测量你的代码,每个取值一个全新的内核")
SWEEP_CELL_SENT = Text("The Framework Env panel inserts this cell below the active cell; put the code to measure in "
                       "it and run it:",
                       "Framework Env 面板会把这个单元插入到当前单元下方;把要测量的代码写进去再运行:")
SWEEP_CELL_COPY = Text("Copy this into a new cell, put the code to measure in it and run it (open the Framework Env "
                       "panel to have it inserted for you):",
                       "把它复制到一个新单元中,写入要测量的代码后运行(打开 Framework Env 面板可自动插入):")


class EnvPanel(StaticView, widgets.VBox):
    """Rows of variables with Apply and Reset, kept in step with the kernel's `EnvSession`.

    `rows` maps each variable name to its row; `apply()` and `reset()` are what the buttons do; `close()` stops
    following the session. Statuses are refreshed after every cell (a cell may import a framework) and on `refresh()`.
    Its output carries a summary of its values (presentation's `EditorSummary`) that a saved notebook shows.
    """

    def __init__(self, rows: Sequence[Row], body: Sequence[widgets.Widget], title: str,
                 sweep: Sequence[str] = ()) -> None:
        apply_button = widgets.Button(description="Apply", button_style="primary",
                                      tooltip="apply every edited value as one batch (all or nothing)")
        reset_button = widgets.Button(description="Reset", tooltip="discard the edits")
        buttons = [apply_button, reset_button]
        self.sweep_names = tuple(sweep)
        if self.sweep_names:
            self.try_button = widgets.Button(description=TRY_SEVERAL.get(), tooltip=TRY_SEVERAL_TIP.get())
            self.try_button.on_click(lambda _: self.try_several())
            buttons.append(self.try_button)
        message = widgets.HTML()
        message.add_class("mgenv-message")
        heading = widgets.HTML(f"<style>{style_sheet()}</style>{html.escape(title)}")
        heading.add_class("mgenv-title")
        super().__init__(children=[heading, *body, widgets.HBox(buttons), message])
        self.add_class("mgenv-widget")
        self.session: EnvSession = session()
        self.apply_button = apply_button
        self.reset_button = reset_button
        self.message = message
        self.title = title
        self.rows: dict[str, Row] = {name: row for row in rows for name in row.names}
        self._row_list = list(rows)
        self._lock = threading.RLock()  # session observers may be called from any thread
        self._language = current_language()
        apply_button.on_click(lambda _: self.apply())
        reset_button.on_click(lambda _: self.reset())
        for row in self._row_list:
            if isinstance(row, VariableRow):
                row.on_edit(lambda _: self._mark_applicability())
        self._link = SessionLink(self.session, self._on_session_change, self.refresh)
        self._mark_applicability()

    # ---- user actions --------------------------------------------------------------------------------------------

    def pending(self) -> list[tuple[str, object]]:
        """The edits not applied yet, as `(name, value)` pairs (value None: unset). Raises `InvalidValueError`."""
        pairs: list[tuple[str, object]] = []
        errors = []
        with self._lock:
            for row in self._row_list:
                try:
                    pairs.extend(row.pending())
                except InvalidValueError as exc:
                    errors.append(str(exc))
        if errors:
            raise InvalidValueError("; ".join(errors))
        return pairs

    def apply(self) -> SetReport | None:
        """Apply every edited value as one batch through the session (source "widget"); None when nothing was
        applied (no edit, or invalid input: then the message says why and nothing changed)."""
        try:
            pairs = self.pending()
        except InvalidValueError as exc:
            self._show_error(f"{NOTHING_APPLIED.get()} {exc}")
            return None
        if not pairs:
            self._show_text(NOTHING_EDITED.get())
            return None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                report = self.session.set(pairs, source="widget")
            except InvalidValueError as exc:
                self._show_error(f"{NOTHING_APPLIED.get()} {exc}")
                return None
        # A button's callback has no cell output to warn into, so the widget shows what the session warned about;
        # anything else (a framework's own warnings) goes on as usual.
        for caught_warning in caught:
            if not issubclass(caught_warning.category, AlreadyReadWarning):
                warnings.warn_explicit(caught_warning.message, caught_warning.category, caught_warning.filename,
                                       caught_warning.lineno)
        self._show_report(report, [str(w.message) for w in caught if issubclass(w.category, AlreadyReadWarning)])
        return report

    def try_several(self) -> str:
        """"Try several values…": a `%%envsweep` cell for this widget's main variables (values from their types,
        around what is edited or set, the GPU's memory for a size), handed to the Framework Env panel, which inserts
        it below the active cell, unrun; the widget shows the cell too, to copy where no panel is open. Returns it
        ("" when no variable's type gives two values to compare, and the widget says so)."""
        from ..memory._sources import gpu_total_bytes
        from ..presentation.sweep._cell import sweep_cell
        from ..sweeps._offers import CellOffer, cell_offers
        from ..sweeps._suggest import suggested_values

        edited = dict(self._edited_values())
        total = gpu_total_bytes()
        values = {}
        for name in self.sweep_names:
            entry = self.session.catalog.get(name)
            if entry is not None:
                now = edited.get(name, self.session.get(name))
                suggested = suggested_values(entry, _normalised(entry, now), total)
                if suggested:  # [] where the type gives nothing to compare: no one-value sweep
                    values[name] = suggested
        if not values:
            self.message.value = f"<div>{html.escape(NOTHING_TO_TRY.get())}</div>"
            return ""
        code = sweep_cell(values, None, current_language())
        panels = cell_offers().observers()
        cell_offers().remember(CellOffer(code))
        note = (SWEEP_CELL_SENT if panels else SWEEP_CELL_COPY).get()
        self.message.value = f"<div>{html.escape(note)}</div><pre class='mgenv-sweep-cell'>{html.escape(code)}</pre>"
        return code

    def _edited_values(self) -> list[tuple[str, object]]:
        try:
            return self.pending()
        except InvalidValueError:  # an invalid edit: the suggestion starts from what is set
            return []

    def reset(self) -> None:
        """Discard the edits: every row shows the session's values again."""
        with self._lock:
            for row in self._row_list:
                row.sync()
            self._mark_applicability()
            self._after_change(None)
        self.message.value = ""

    def refresh(self) -> None:
        """Re-read the statuses (a framework may have been imported since) without touching the edits."""
        with self._lock:
            language = current_language()
            for row in self._row_list:
                row.refresh_status()
                if language != self._language:
                    row.render_texts()
            self._language = language
            self._mark_applicability()
            self._after_change(None)
        self.refresh_static()

    def close(self) -> None:
        """Stop following the session and close every part of the widget."""
        link = getattr(self, "_link", None)  # absent when the constructor failed (ipywidgets closes in __del__)
        if link is not None:
            link.close()
        self._stop_static()
        for widget in list(_descendants(self)):
            widget.close()
        super().close()

    # ---- session → widget ----------------------------------------------------------------------------------------

    def _on_session_change(self, report: SetReport) -> None:
        changed = {change.name for change in report}
        with self._lock:
            for row in self._row_list:
                if changed.intersection(row.names):
                    row.sync()  # the newer value wins over an edit of the same variable
                else:
                    row.refresh_status()
            self._mark_applicability()
            self._after_change(report)
        self.refresh_static()

    def _static_view(self) -> EditorSummary:
        return EditorSummary.of(self.title, self.session, list(self.rows))

    def _after_change(self, report: SetReport | None) -> None:
        """Subclasses update what depends on several rows (a share of the GPU, the NPURunConfig call)."""

    def _mark_applicability(self) -> None:
        """Grey the rows that do not matter with the values chosen here (edited or applied), as the catalog's rules
        say (Paddle's pool sizes outside naive_best_fit)."""
        edited: dict[str, str | None] = {}
        for row in self._row_list:
            edited.update(row.edited_texts())

        def lookup(name: str) -> str | None:
            return edited[name] if name in edited else self.session.get(name)

        for row in self._row_list:
            if isinstance(row, VariableRow):
                row.set_applicability(applicability(self.session.catalog, row.entry, lookup))
    # ---- messages ------------------------------------------------------------------------------------------------

    def _show_error(self, text: str) -> None:
        self.message.value = f"<div class='mgenv-failure'>⚠ {text_html(text)}</div>"

    def _show_text(self, text: str) -> None:
        self.message.value = f"<div>{text_html(text)}</div>"

    def _show_report(self, report: SetReport, warned: list[str]) -> None:
        lines = []
        for change in report:
            value = UNSET_VALUE.get() if change.new is None else change.new_shown or ""
            # A size reads as 5 GiB; the plain number the environment holds is on hover.
            stored = f" title='{html.escape(change.new, quote=True)}'" if change.shown and change.new else ""
            line = (f"<code{stored}>{html.escape(change.name)}={html.escape(value)}</code>: "
                    f"<b>{html.escape(change.outcome.label.get())}</b> — {text_html(change.message.get())}")
            line += "".join(f"<br><small>{html.escape(NOTE.get())}: {text_html(note.get())}</small>"
                            for note in change.notes)
            lines.append(f"<li>{line}</li>")
        lines += [f"<li class='mgenv-warned'>⚠ {text_html(text)}</li>" for text in warned]
        self.message.value = "<ul class='mgenv-report'>" + "".join(lines) + "</ul>"


@lru_cache(maxsize=1)
def style_sheet() -> str:
    """The widgets' style sheet (style.css beside this module), read once."""
    return STYLE_SHEET.read_text(encoding="utf-8")


def _normalised(entry: Entry, value: object) -> str | None:
    """An edited or set value as the variable's type writes it ("4GB" → bytes); None when it is not one."""
    if value is None:
        return None
    try:
        return entry.type.parse(value).text
    except InvalidValueError:
        return None


def _descendants(widget: widgets.Widget) -> Iterator[widgets.Widget]:
    """Every widget inside `widget` (children, and the layout and style objects each widget owns)."""
    for child in getattr(widget, "children", ()):
        yield from _descendants(child)
        yield child
    for part in ("layout", "style"):
        owned = getattr(widget, part, None)
        if isinstance(owned, widgets.Widget):
            yield owned
