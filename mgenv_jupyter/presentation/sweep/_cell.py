"""A `%%envsweep` cell as text, for the user to run: "try several values…" of a widget or a sidebar editor, and "try
it first" of an out-of-memory report's remedy. The line is written as the magic reads it (commas between values; a
value that holds a comma as its own NAME=VALUE word; quotes around spaces); the cell is the code to measure, or a
comment saying what to put there."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ...base._text import Text

if TYPE_CHECKING:
    from ...oom._remedies import Remedy
    from ...oom._report import OomReport

PUT_CODE_HERE = Text("# Replace this line with the code to measure (one training step, say): each value runs it in "
                     "a fresh kernel",
                     "# 把这一行换成要测量的代码(比如一个训练步):每个取值都会在全新的内核中运行它")
TRY_FIRST = Text("# Try the remedy before applying it: the failing cell under the current setting and the remedy",
                 "# 应用之前先试一试:在当前设置和补救设置下分别运行出错的单元")


def sweep_line(values: Mapping[str, Sequence[str]], together: bool = False) -> str:
    words: list[str] = []
    for name, given in values.items():
        if any("," in value for value in given) or not given:
            words.extend(f"{name}={shlex.quote(value)}" if value else f"{name}=" for value in (given or [""]))
        else:
            words.append(f"{name}={shlex.quote(','.join(given))}")
    return "%%envsweep " + " ".join(words) + (" --together" if together else "")


def sweep_cell(values: Mapping[str, Sequence[str]], code: str | None, language: str, *, together: bool = False,
               comment: Text | None = None) -> str:
    """The cell: its `%%envsweep` line, an optional comment, then `code` (or where to put it)."""
    lines = [sweep_line(values, together)]
    if comment is not None:
        lines.append(comment.get(language))
    lines.append(code.rstrip("\n") if code and code.strip() else PUT_CODE_HERE.get(language))
    return "\n".join(lines) + "\n"


def try_cell(report: OomReport, remedy: Remedy, language: str) -> str | None:
    """"Try it first" for a remedy of an out-of-memory report: the failing cell swept over the current setting and the
    remedy's (values taken together when the remedy sets several variables); None without the cell's code. The
    current setting is the variable's value in the kernel, else its catalog default; unset with no default, the
    remedy is tried alone."""
    if not report.cell_code:
        return None
    from ...runtime import session

    current = session()
    values: dict[str, list[str]] = {}
    for name, value in remedy.assignments:
        entry = current.catalog.get(name)
        now = current.get(name)
        if now is None and entry is not None:
            now = entry.default
        values[name] = [value] if now is None or now == value else [now, value]
    counts = {len(given) for given in values.values()}
    if len(counts) > 1:  # one variable has no current value to set against: the remedy's values alone
        values = {name: given[-1:] for name, given in values.items()}
    return sweep_cell(values, report.cell_code, language, together=len(values) > 1, comment=TRY_FIRST)
