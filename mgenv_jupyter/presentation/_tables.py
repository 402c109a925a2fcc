"""`EnvTable`: what `%envlist` and `%envdiff` return. It is a pandas DataFrame for code (filter it, join it, export it),
shown in a notebook as a compact HTML table that fits a notebook column, beside the sidebar too: the columns that
matter (the others named under it), "not set" instead of NaN/NaT, times to the second, long texts (a description, a
name after its underscores) wrapped to the width the output has rather than cut; only a text of hundreds of
characters (a value) is cut, at a space, whole in its tooltip. The display is in the session's language when it is
shown, whatever it was when the table was made: headers, "not set", the row count, and every cell that holds one of
the table's own words (a description, a status, a category), which the table keeps in both languages
(`attrs["texts"]`); what the user put in a cell is shown as it is. A size setting's value or default is shown in the
one notation of sizes (5 GiB, the value the environment holds on hover: `attrs["sizes"]`); the frame keeps the text
the environment holds, as code reads and exports it.

`MemoryTable`: the memory chart's `.history` and `.per_cell()`. The data stay integer bytes; the notebook shows sizes
in binary units as the chart writes them (`format_size`), times to the millisecond, the columns the frame names for
display (`attrs["shown"]`; the others named under it), and a long frame's first and last rows.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas

from ..base._markup import TABLE_STYLE, text_html
from ..base._text import Text, current_language
from ..catalog._values import format_size

if TYPE_CHECKING:
    from ..catalog import Catalog
    from ..runtime import EnvSession

NOT_SET = Text("not set", "未设置")
MORE_COLUMNS = Text("{count} more columns in the DataFrame: {names}", "DataFrame 中另有 {count} 列:{names}")
ROWS = Text("{count} rows", "{count} 行")
# What each column of %envlist and %envdiff is called on screen; the DataFrame keeps the names code uses (a header's
# tooltip says it).
HEADERS = {
    "name": Text("name", "名称"), "framework": Text("framework", "框架"), "category": Text("category", "类别"),
    "value": Text("value", "取值"), "status": Text("status", "状态"), "default": Text("default", "默认值"),
    "when": Text("when", "读取时机"), "type": Text("type", "类型"), "allowed": Text("allowed", "允许的取值"),
    "live_api": Text("live API", "实时接口"), "description": Text("description", "说明"),
    "at_start": Text("at start", "启动时"), "now": Text("now", "现在"), "source": Text("source", "来源"),
    "changed": Text("changed", "修改时间"), "exported": Text("exported", "是否导出"),
}
Texts = dict[str, dict[object, Text]]  # column → row label → the cell's words in both languages
Sizes = dict[str, dict[object, tuple[str, str]]]  # column → row label → (the value as stored, as shown: "5 GiB")
_LONGEST = 600  # characters shown of a very long text (a value): cut at a space, the whole text in its tooltip
# Columns whose texts are long (they wrap to the width the output has, and keep some width) or a few short words (they
# keep the width of two a line: a status wrapped onto three lines reads as three statuses).
_LONG_COLUMNS = frozenset({"description", "allowed"})
_VALUE_COLUMNS = frozenset({"value", "now", "at_start", "default"})  # data, which may break anywhere when it must
_SHORT_COLUMNS = frozenset({"status", "source", "exported", "framework", "when", "type"})
_TIME_COLUMNS = frozenset({"changed", "time"})



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
              language: str | None = None, texts: Texts | None = None, sizes: Sizes | None = None) -> EnvTable:
    """`frame` with its display; `language`: the one its cells were written in; `texts`: the table's own words in
    both languages, by column and row, so the display can follow the session's language; `sizes`: the cells holding a
    size, as they are shown."""
    table = EnvTable(frame)
    table.shown_columns = list(shown_columns) if shown_columns is not None else None
    table.language = language
    if texts:
        table.attrs["texts"] = texts
    if sizes:
        table.attrs["sizes"] = sizes
    return table


def size_cells(known: Catalog, frame: pandas.DataFrame, columns: Sequence[str]) -> Sizes:
    """The cells of `columns` (rows named by variable) holding a size setting's value, each as stored and as shown in
    the one notation of sizes (the value type's `shown`: "5 GiB" for 5368709120)."""
    sizes: Sizes = {}
    for column in columns:
        for name, value in frame[column].items():
            entry = known.get(str(name))
            if entry is None or not isinstance(value, str):
                continue
            written = entry.type.shown(value)
            if written != value:
                sizes.setdefault(column, {})[name] = (value, written)
    return sizes


# What %envdiff shows of its frame, so that it fits a notebook column beside the sidebar; the time of each change
# stays in the DataFrame (the table says so).
DIFF_SHOWN = ("now", "status", "source", "at_start", "exported")


def diff_table(session: EnvSession, everything: bool = False) -> EnvTable:
    """`%envdiff`: the session's changes since the kernel started (`EnvSession.diff`), shown in the session's language
    whenever it is shown."""
    from ..runtime._session import EXPORTED, EXPORTED_WITH_ALL, OUTSIDE

    frame = session.diff(everything=everything).set_index("name")
    sizes = size_cells(session.catalog, frame, ("at_start", "now"))
    exported = set(session.changed_through_session()) | set(session.options)
    texts: Texts = {"status": {}, "exported": {}, "source": {}}
    for name in frame.index:
        texts["status"][name] = session.state(name).status.label
        texts["exported"][name] = EXPORTED if name in exported else EXPORTED_WITH_ALL
        texts["source"][name] = OUTSIDE  # only where no change of the session's names the source
    return env_table(frame, DIFF_SHOWN, language=current_language(), texts=texts, sizes=sizes)


def render_html(table: EnvTable) -> str:
    language = current_language()  # the session's now: a table made in another language is shown in this one
    texts: Texts = table.attrs.get("texts", {})
    sizes: Sizes = table.attrs.get("sizes", {})
    wanted = [c for c in (table.shown_columns or table.columns) if c in table.columns]
    hidden = [str(c) for c in table.columns if c not in wanted]
    index_name = table.index.name
    head = ([_header(index_name, language)] if index_name else []) + [_header(c, language) for c in wanted]
    rows = []
    for label, row in zip(table.index, table[wanted].itertuples(index=False), strict=True):
        cells = [f"<td class='mgenv-name'>{_name(label, language)}</td>"] if index_name else []
        for column, value in zip(wanted, row, strict=True):
            words, size = texts.get(str(column), {}).get(label), sizes.get(str(column), {}).get(label)
            shown = _sized(value, size) or _cell(_in_language(value, words, language), language)
            cells.append(f"<td{_column_class(column)}>{shown}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    note = ROWS.get(language).format(count=len(table))
    if hidden:
        note += " · " + MORE_COLUMNS.get(language).format(count=len(hidden), names=", ".join(hidden))
    return (f"{TABLE_STYLE}<div class='mgenv-table-wrap'><table class='mgenv-table'><thead><tr>{''.join(head)}</tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table><div class='mgenv-table-note'>{html.escape(note)}</div>"
            "</div>")


def _column_class(column: object) -> str:
    if column in _LONG_COLUMNS:
        return " class='mgenv-long'"
    if column in _TIME_COLUMNS:
        return " class='mgenv-time'"
    if column in _VALUE_COLUMNS:
        return " class='mgenv-value'"
    return " class='mgenv-short'" if column in _SHORT_COLUMNS else ""


def _name(label: Any, language: str | None) -> str:
    """A variable's name, which may break after an underscore (MGB_SUBLINEAR_MEMORY_GENETIC_POOL_SIZE at 500 px)."""
    return _cell(label, language).replace("_", "_<wbr>")


def _header(column: object, language: str) -> str:
    words = HEADERS.get(str(column))
    if words is None:
        return f"<th>{html.escape(str(column))}</th>"
    return f"<th title='{html.escape(str(column), quote=True)}'>{html.escape(words.get(language))}</th>"


def _in_language(value: Any, words: Text | None, language: str) -> Any:
    """A cell holding one of the table's own words, in `language`; anything else (the user's edit) as it is."""
    if words is not None and value in (words.en, words.zh):
        return words.get(language)
    return value


def _sized(value: Any, size: tuple[str, str] | None) -> str | None:
    """A cell holding a size as stored, shown as the size (the stored value on hover); None for any other cell (a
    value the user changed in the frame is shown as it is)."""
    if size is None or value != size[0]:
        return None
    return f"<span title='{html.escape(size[0], quote=True)}'>{html.escape(size[1])}</span>"


def _cell(value: Any, language: str | None) -> str:
    if _missing(value):
        return f"<span class='mgenv-missing'>{NOT_SET.get(language)}</span>"
    if isinstance(value, pandas.Timestamp):
        return html.escape(_clock(value))
    text = str(value)
    if len(text) <= _LONGEST:
        return text_html(text)
    shown = text[:_LONGEST].rsplit(" ", 1)[0] if " " in text[:_LONGEST] else text[:_LONGEST - 1]
    return f"<span title='{html.escape(text, quote=True)}'>{html.escape(shown)} …</span>"


def _missing(value: Any) -> bool:
    if value is None or value is pandas.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def _clock(moment: pandas.Timestamp) -> str:
    """Local time to the second; the date too when it is not today."""
    local = time.localtime(moment.timestamp())
    today = time.localtime()
    return time.strftime("%H:%M:%S" if local[:3] == today[:3] else "%Y-%m-%d %H:%M:%S", local)


NO_READING = Text("no reading", "无读数")
SIZES_NOTE = Text("sizes in binary units (1 GiB = 1024³ bytes); the DataFrame holds bytes",
                  "大小以二进制单位显示(1 GiB = 1024³ 字节);DataFrame 中是字节数")
SHOWN_ENDS = Text("the first and last {count} shown", "显示首尾各 {count} 行")
UTC = Text("UTC", "UTC")
_TEXT = " class='mgenv-text'"
_WHEN = " class='mgenv-when'"
_MEMORY_STYLE = """<style>
table.mgenv-memory-table, .jp-RenderedHTMLCommon table.mgenv-memory-table { border-collapse: collapse;
  font-size: var(--jp-ui-font-size1, 12px); table-layout: auto; }
table.mgenv-memory-table th, table.mgenv-memory-table td,
.jp-RenderedHTMLCommon table.mgenv-memory-table th, .jp-RenderedHTMLCommon table.mgenv-memory-table td {
  padding: 2px 3px; text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums;
  border-bottom: 1px solid var(--jp-border-color2, #e0e0e0); }
table.mgenv-memory-table th, .jp-RenderedHTMLCommon table.mgenv-memory-table th { font-weight: 600;
  white-space: normal; }
/* A moment (a cell's start) may go on two lines, its date over its time. */
table.mgenv-memory-table .mgenv-when, .jp-RenderedHTMLCommon table.mgenv-memory-table .mgenv-when {
  white-space: normal; min-width: 6em; }
/* Sizes and times stay whole; a text column (a device, a series' name) wraps, so the table fits its output. */
table.mgenv-memory-table .mgenv-text, .jp-RenderedHTMLCommon table.mgenv-memory-table .mgenv-text {
  text-align: left; white-space: normal; overflow-wrap: break-word; min-width: 5em; }
table.mgenv-memory-table .mgenv-label { text-align: left; }
</style>"""


class MemoryTable(pandas.DataFrame):
    """A memory DataFrame (bytes as integers, `attrs["bytes"]` naming the size columns) whose notebook display
    writes those sizes in binary units; what it holds, filters and exports stays bytes. `tail()`, `head()`, filters
    keep the display (pandas carries `attrs` along)."""

    @property
    def _constructor(self) -> type[MemoryTable]:
        return MemoryTable

    def _repr_html_(self) -> str:
        return render_memory_html(self)


def memory_table(frame: pandas.DataFrame) -> MemoryTable:
    table = MemoryTable(frame)
    table.attrs.update(frame.attrs)
    return table


def render_memory_html(table: pandas.DataFrame, language: str | None = None) -> str:
    """The compact table: the index (times, "UTC") then every column; at most pandas' `display.max_rows` rows, else
    the first and last `display.min_rows // 2`."""
    sizes = set(table.attrs.get("bytes", ()))
    # The columns to show, where the frame names them (a notebook column beside the sidebar has room for about
    # eight); the others stay in the DataFrame, and the note under the table names them.
    columns = [c for c in table.attrs.get("shown", ()) if c in table.columns] or list(table.columns)
    hidden = [str(c) for c in table.columns if c not in columns]
    shown = table[columns]
    ends = 0
    if len(table) > (pandas.get_option("display.max_rows") or len(table)):
        ends = max(1, (pandas.get_option("display.min_rows") or 10) // 2)
        shown = pandas.concat([shown.iloc[:ends], shown.iloc[-ends:]])
    # A default 0, 1, 2... index says nothing a reader needs: only a named one (the time) is shown.
    with_index = not isinstance(table.index, pandas.RangeIndex) or table.index.name is not None
    index_name = str(table.index.name or "")
    if isinstance(table.index, pandas.DatetimeIndex):
        index_name = f"{index_name} ({UTC.get(language)})".strip()
    head = ([f"<th class='mgenv-label'>{html.escape(index_name)}</th>"] if with_index else []) + [
        f"<th>{html.escape(str(c))}</th>" for c in columns]
    rows = []
    for position, (label, row) in enumerate(zip(shown.index, shown.itertuples(index=False), strict=True)):
        if ends and position == ends:
            rows.append("<tr>" + "<td>…</td>" * len(head) + "</tr>")
        label_cell = f"<td class='mgenv-label'>{html.escape(_memory_cell(label, False, language))}</td>"
        cells = [label_cell] if with_index else []
        cells += [f"<td{_TEXT if isinstance(value, str) else _WHEN if isinstance(value, pandas.Timestamp) else ''}>"
                  f"{html.escape(_memory_cell(value, column in sizes, language))}</td>"
                  for column, value in zip(columns, row, strict=True)]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    note = ROWS.get(language).format(count=len(table))
    if ends:
        note += " (" + SHOWN_ENDS.get(language).format(count=ends) + ")"
    if hidden:
        note += " · " + MORE_COLUMNS.get(language).format(count=len(hidden), names=", ".join(hidden))
    if sizes & set(table.columns):
        note += " · " + SIZES_NOTE.get(language)
    return (f"{_MEMORY_STYLE}<div class='mgenv-table-wrap'><table class='mgenv-memory-table'><thead><tr>"
            f"{''.join(head)}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<div class='mgenv-table-note'>{html.escape(note)}</div></div>")


def _memory_cell(value: Any, is_size: bool, language: str | None) -> str:
    if value is None or value is pandas.NA or value is pandas.NaT or (isinstance(value, float) and math.isnan(value)):
        return NO_READING.get(language) if is_size else "–"
    if is_size:
        return format_size(int(value))
    if isinstance(value, pandas.Timestamp):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
