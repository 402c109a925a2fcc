"""What each point's kernel runs before the measured cell: by default the cells this kernel ran before it, in order,
leaving out the ones that failed and our own magics; or what the user chose instead.

Which cells failed is what the kernel recorded: the cell markers of its sampler (`memory/_cells.py`, installed with
the extension) say of every cell whether it finished without an error. A cell that ran before the extension was
loaded has no marker: it is replayed, and the plan says its outcome is unknown.

Our own magics set variables (their effect reaches the point through the environment it inherits, and replaying
`%envset NAME=…` would overwrite the value being swept) or draw and sweep (which a point must not do again): a cell
that starts with one of our cell magics is left out, and a line that starts with one of our line magics is dropped
from the cell it is in. A cell magic of ours that runs its body as code (`%%memtrace`) changed the kernel's state as
that code did: its body is replayed, without the magic's line. A cell in which a sweep ran is left out too. The plan
keeps each cell's code exactly as it will run, so the result says what ran before the measured cell.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass


class LeftOut(str, enum.Enum):
    """Why a cell of the kernel's history is not replayed."""

    FAILED = "failed"  # it raised
    OUR_MAGIC = "our_magic"  # %%envset, %%envsweep …: their effect is in the environment the point inherits
    SWEEP = "sweep"  # a sweep ran in it
    EMPTY = "empty"  # nothing left to run once our magics' lines were dropped


@dataclass(frozen=True)
class SetupCell:
    """One cell a point runs before the measured one: its number in this kernel (`In [n]`; None for code the user
    gave), its code as it runs, the lines of our magics dropped from it, and whether its outcome was recorded."""

    number: int | None
    code: str
    dropped_lines: tuple[int, ...] = ()
    outcome_known: bool = True


@dataclass(frozen=True)
class SetupPlan:
    """What runs before the measured cell: `cells` in order; `replayed` when they come from the kernel's history
    (False: the user chose them); `left_out`: the history's cells not replayed, with the reason."""

    cells: tuple[SetupCell, ...]
    replayed: bool
    left_out: tuple[tuple[int, LeftOut], ...] = ()

    def code(self) -> list[str]:
        return [cell.code for cell in self.cells]


def given_setup(setup: str | Sequence[str]) -> SetupPlan:
    """The user's own choice: one piece of code, or a list of cells, run in order ("" or []: nothing)."""
    cells = [setup] if isinstance(setup, str) else list(setup)
    return SetupPlan(tuple(SetupCell(None, code) for code in cells if code.strip()), replayed=False)


def replay_plan(history: Sequence[str], current: int, outcomes: Mapping[int, bool | None],
                line_magics: Collection[str], cell_magics: Collection[str],
                sweep_cells: Collection[int] = (), body_magics: Collection[str] = ()) -> SetupPlan:
    """The cells numbered 1 to `current` - 1 of `history` (IPython's raw input history: index n is `In [n]`), less
    the failed ones (`outcomes`: cell number → finished without an error, as the kernel recorded it), our magics
    (`line_magics`, `cell_magics`: names without the %) and the cells in which a sweep ran; of a cell under one of
    `body_magics` (our cell magics that run their body as code), the body."""
    cells: list[SetupCell] = []
    left_out: list[tuple[int, LeftOut]] = []
    line_prefixes = tuple(f"%{name}" for name in line_magics)
    cell_prefixes = tuple(f"%%{name}" for name in cell_magics)
    body_prefixes = tuple(f"%%{name}" for name in body_magics)
    for number in range(1, min(current, len(history))):
        code = history[number]
        if not code.strip():
            continue
        if outcomes.get(number) is False:
            left_out.append((number, LeftOut.FAILED))
            continue
        if number in sweep_cells:
            left_out.append((number, LeftOut.SWEEP))
            continue
        if _starts_with_magic(code.lstrip(), cell_prefixes):
            left_out.append((number, LeftOut.OUR_MAGIC))
            continue
        if _starts_with_magic(code.lstrip(), body_prefixes):
            code = _body(code)
        kept, dropped = _drop_magic_lines(code, line_prefixes)
        if not kept.strip():
            left_out.append((number, LeftOut.EMPTY if not dropped else LeftOut.OUR_MAGIC))
            continue
        cells.append(SetupCell(number, kept, dropped, outcome_known=number in outcomes))
    return SetupPlan(tuple(cells), replayed=True, left_out=tuple(left_out))


def _starts_with_magic(text: str, prefixes: tuple[str, ...]) -> bool:
    """Whether `text` starts with one of the magics `prefixes` name (`%envset` but not `%envsetx`)."""
    for prefix in prefixes:
        if text.startswith(prefix) and (len(text) == len(prefix) or not _name_char(text[len(prefix)])):
            return True
    return False


def _body(code: str) -> str:
    """A cell magic's cell without its first line (the magic's own), blank lines kept so that line numbers agree."""
    first, _, body = code.lstrip().partition("\n")
    return "\n" + body if body.strip() else ""


def _name_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _drop_magic_lines(code: str, prefixes: tuple[str, ...]) -> tuple[str, tuple[int, ...]]:
    """`code` without its lines that call one of our line magics (their numbers, from 1, are returned)."""
    kept: list[str] = []
    dropped: list[int] = []
    for number, line in enumerate(code.splitlines(), start=1):
        if _starts_with_magic(line.lstrip(), prefixes) and not line.startswith((" ", "\t")):
            dropped.append(number)
        else:
            kept.append(line)
    return ("\n".join(kept), tuple(dropped)) if dropped else (code, ())
