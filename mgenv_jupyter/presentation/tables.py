"""`EnvTable`: what `%envlist` and `%envdiff` return. It is a pandas DataFrame for code (filter it, join it, export it),
shown in a notebook as a compact HTML table that fits a notebook column: the columns that matter first, "not set"
instead of NaN/NaT, times to the second, long texts cut with the whole text as a tooltip.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Sequence
from typing import Any

import pandas

from ..markup import TABLE_STYLE, text_html
from ..text import Text

NOT_SET = Text("not set", "未设置")
MORE_COLUMNS = Text("{count} more columns in the DataFrame: {names}", "DataFrame 中另有 {count} 列:{names}")
ROWS = Text("{count} rows", "{count} 行")
_LONGEST = 90  # characters shown of a long text; the whole text is in its tooltip



class EnvTable(pandas.DataFrame):
    """A DataFrame with a compact notebook display. `shown_columns` (when set) are the columns the HTML shows first
    and alone; the others stay in the frame, and the display says so."""

    _metadata = ["shown_columns", "language"]
    shown_columns: Sequence[str] | None = None
    language: str | None = None

    @property
    def _constructor(self) -> type[EnvTable]:
        return EnvTable

    def _repr_html_(self) -> str:
        return render_html(self)


def env_table(frame: pandas.DataFrame, shown_columns: Sequence[str] | None = None,
              language: str | None = None) -> EnvTable:
    table = EnvTable(frame)
    table.shown_columns = list(shown_columns) if shown_columns is not None else None
    table.language = language
    return table


def render_html(table: EnvTable) -> str:
    language = table.language
    wanted = [c for c in (table.shown_columns or table.columns) if c in table.columns]
    hidden = [str(c) for c in table.columns if c not in wanted]
    index_name = table.index.name
    head = ([f"<th>{html.escape(str(index_name))}</th>"] if index_name else []) + [
        f"<th>{html.escape(str(c))}</th>" for c in wanted]
    rows = []
    for label, row in zip(table.index, table[wanted].itertuples(index=False), strict=True):
        cells = [f"<td class='mgenv-name'>{_cell(label, language)}</td>"] if index_name else []
        cells += [f"<td>{_cell(value, language)}</td>" for value in row]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    note = ROWS.get(language).format(count=len(table))
    if hidden:
        note += " · " + MORE_COLUMNS.get(language).format(count=len(hidden), names=", ".join(hidden))
    return (f"{TABLE_STYLE}<div class='mgenv-table-wrap'><table class='mgenv-table'><thead><tr>{''.join(head)}</tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table><div class='mgenv-table-note'>{html.escape(note)}</div>"
            "</div>")


def _cell(value: Any, language: str | None) -> str:
    if _missing(value):
        return f"<span class='mgenv-missing'>{NOT_SET.get(language)}</span>"
    if isinstance(value, pandas.Timestamp):
        return html.escape(_clock(value))
    text = str(value)
    if len(text) <= _LONGEST:
        return text_html(text)
    return f"<span title='{html.escape(text, quote=True)}'>{html.escape(text[:_LONGEST - 1])}…</span>"


def _missing(value: Any) -> bool:
    if value is None or value is pandas.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def _clock(moment: pandas.Timestamp) -> str:
    """Local time to the second; the date too when it is not today."""
    local = time.localtime(moment.timestamp())
    today = time.localtime()
    return time.strftime("%H:%M:%S" if local[:3] == today[:3] else "%Y-%m-%d %H:%M:%S", local)
