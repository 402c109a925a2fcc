"""`ConfigWidget`: an editor for any catalog variables, one row each, generated from their value types."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

import ipywidgets as widgets

from ..base._errors import InvalidValueError
from ..base._text import Text, current_language
from ..catalog import Catalog, Entry
from ..catalog._frameworks import FRAMEWORKS
from ..runtime import SetReport, session
from ._panel import EnvPanel
from ._rows import VariableRow

NPU_HEADING = Text("NPURunConfig keyword arguments", "NPURunConfig 关键字参数")
NPU_ENV_HEADING = Text("Related environment variables", "相关环境变量")
NOT_SET = Text("not set", "未设置")
NPU_NONE_CHOSEN = Text("none chosen yet: NPURunConfig() uses its defaults", "尚未选择:NPURunConfig() 使用默认值")


def select_entries(
    known: Catalog, framework: str | None = None, category: str | None = None, names: Iterable[str] | None = None
) -> list[Entry]:
    """Catalog entries matching all the given filters (`Catalog.select`); an empty choice is an error here, since a
    widget with no rows would only confuse."""
    chosen = known.select(framework, category, names)
    if not chosen:
        raise InvalidValueError(f"no catalog variable matches framework={framework!r}, category={category!r}, "
                                f"names={names!r}")
    return chosen


class ConfigWidget(EnvPanel):
    """Edit catalog variables: `ConfigWidget(framework="paddle")`, `ConfigWidget(category="DTR")`,
    `ConfigWidget(names=["MGE_DEFAULT_DEVICE"])`.

    Each row has an input made for the variable's type, its status in this kernel (effective now, takes effect at
    import, already read and needing a restart, applied live, no longer read), its default and its description.
    Apply sets every edited value at once through `mgenv_jupyter.session()` (all or nothing); Reset discards the edits.
    For Ascend, `npu_run_config_kwargs()` gives the keyword arguments chosen so far, for `NPURunConfig(**kwargs)`.
    """

    def __init__(
        self, framework: str | None = None, category: str | None = None, names: Iterable[str] | None = None
    ) -> None:
        current = session()
        entries = select_entries(current.catalog, framework, category, names)
        rows = [VariableRow(current, entry) for entry in entries]
        language = current_language()
        frameworks = {f.key: f.label.get(language) for f in FRAMEWORKS}
        body: list[widgets.Widget] = []
        heading = None
        for row in rows:
            group = f"{frameworks.get(row.entry.framework, row.entry.framework)} · {row.entry.category.get(language)}"
            if group != heading:
                title = widgets.HTML(html.escape(group))
                title.add_class("mgenv-heading")
                body.append(title)
                heading = group
            body.append(row)
        self.npu_output = widgets.HTML()
        self._shows_npu = any(e.framework == "ascend" for e in entries)
        if self._shows_npu:
            body.append(self.npu_output)
        title = "Framework variables" + (f": {framework}" if framework else "")
        super().__init__(rows, body, title)
        self._after_change(None)

    def npu_run_config_kwargs(self) -> dict[str, Any]:
        """The NPURunConfig options applied so far, validated: `NPURunConfig(**widget.npu_run_config_kwargs())`."""
        return self.session.npu_run_config_kwargs()

    def _after_change(self, report: SetReport | None) -> None:
        if self._shows_npu:
            self.npu_output.value = self._npu_html()

    def _npu_html(self) -> str:
        language = current_language()
        kwargs = self.session.npu_run_config_kwargs()
        call = ("NPURunConfig(" + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")") if kwargs else None
        env_rows = []
        for entry in self.session.catalog.for_framework("ascend"):
            if entry.is_env:
                value = self.session.state(entry.name).value
                shown = f"<code>{html.escape(value)}</code>" if value is not None else f"<i>{NOT_SET.get(language)}</i>"
                env_rows.append(f"<li><code>{entry.name}</code> = {shown}</li>")
        return (
            f"<div class='mgenv-heading'>{NPU_HEADING.get(language)}</div>"
            + (f"<pre>{html.escape(call)}</pre>" if call else f"<p><i>{NPU_NONE_CHOSEN.get(language)}</i></p>")
            + "<div class='mgenv-facts'>mgenv_jupyter.session().npu_run_config_kwargs()</div>"
            + f"<div class='mgenv-heading'>{NPU_ENV_HEADING.get(language)}</div><ul>{''.join(env_rows)}</ul>"
        )
