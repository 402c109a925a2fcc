"""Allocation sites in the notebook's terms: the live memory the frameworks recorded (runtime's `LiveBlocks`, each
with its Python stack), grouped by the innermost frame in the user's own code, and named by cell and line with the
line's text (`[7] line 3: h = model(x)`), or by file and line for the user's own `.py` files. The library frames
inside each site (the framework's, the standard library's) are folded into a count.

A frame is the user's when its code is a cell of this kernel (IPython's compiler maps each cell's file name to its
execution count) or a `.py` file outside the installed packages, the standard library and this package. A block with
no such frame anywhere in its stack is counted apart (`Sites.unattributed`).

Knows no framework: memtrace (memory/_memtrace.py) asks each framework's adapter for its blocks.
"""

from __future__ import annotations

import linecache
import os
import sys
import sysconfig
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..base._text import Text
from ..runtime._memtrace import BlockRecord, Frame

if TYPE_CHECKING:
    import pandas

MAX_CODE = 200  # characters of a line's text kept


class CellNames:
    """Which cell a compiled file name is: IPython's compiler keeps {file name: execution count} for every cell it
    compiled (`<ipython-input-7-…>` in IPython, `/tmp/ipykernel_<pid>/<hash>.py` in ipykernel, whose name is a hash
    of the cell's text: a cell run again with the same text has its latest number). `numbers` may be given directly
    (tests, a shell without the map)."""

    def __init__(self, shell: Any = None, numbers: Mapping[str, int] | None = None) -> None:
        found = getattr(getattr(shell, "compile", None), "_filename_map", None)
        self._numbers: Mapping[str, int] = numbers if numbers is not None else (
            found if isinstance(found, dict) else {})

    def number(self, filename: str) -> int | None:
        number = self._numbers.get(filename)
        return number if isinstance(number, int) else None


def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths.get("stdlib"), paths.get("platstdlib"), paths.get("purelib"), paths.get("platlib"),
             os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}  # this package
    roots.update(p for p in sys.path if p.endswith(("site-packages", "dist-packages")))
    return tuple(sorted(os.path.join(r, "") for r in roots if r))


@dataclass
class _Where:
    """Tells a frame's file apart, once per file name: a cell (its number), the user's file, or a library."""

    cells: CellNames
    roots: tuple[str, ...] = field(default_factory=_library_roots)
    _seen: dict[str, tuple[int | None, bool]] = field(default_factory=dict)

    def of(self, filename: str) -> tuple[int | None, bool]:
        """(cell number or None, whether the frame is the user's)."""
        known = self._seen.get(filename)
        if known is None:
            cell = self.cells.number(filename)
            if cell is not None:
                known = (cell, True)
            else:
                mine = (filename.endswith(".py") and os.path.isabs(filename)
                        and not filename.startswith(self.roots) and "site-packages" not in filename)
                known = (None, mine)
            self._seen[filename] = known
        return known


@dataclass(frozen=True)
class Site:
    """One line of the user's code and the live memory allocated under it. `cell` is its execution count (None for
    a file's line, then `file` names it); `code` is the line's text; `library_frames` how many frames of library code
    ran between the line and the allocations (folded, at most); `devices` bytes per device."""

    cell: int | None
    file: str | None
    line: int
    code: str
    function: str
    bytes: int
    blocks: int
    devices: tuple[tuple[str, int], ...]
    library_frames: int
    frameworks: tuple[str, ...]

    @property
    def place(self) -> str:
        """`[7] line 3` or `train.py line 12`: where, in the notebook's words (no sentence: the same in every
        language)."""
        where = f"[{self.cell}]" if self.cell is not None else os.path.basename(self.file or "?")
        return f"{where} line {self.line}"

    def to_json(self) -> dict[str, Any]:
        return {"cell": self.cell, "file": self.file, "line": self.line, "code": self.code,
                "function": self.function, "bytes": self.bytes, "blocks": self.blocks,
                "devices": dict(self.devices), "library_frames": self.library_frames,
                "frameworks": list(self.frameworks)}


@dataclass(frozen=True)
class Sites:
    """The live memory at a moment (`moment`: "peak" of a cell, "failure" of an out-of-memory error, or "now") by
    the line of the user's code that allocated it, largest first. `total` is every byte the frameworks recorded,
    `unattributed` the part with no user frame in its stack; `unrecorded` says, per loaded framework that keeps no
    stacks, what it does not record; `took` is the seconds the grouping took."""

    sites: tuple[Site, ...]
    moment: str
    total: int = 0
    unattributed: int = 0
    unattributed_blocks: int = 0
    frameworks: tuple[str, ...] = ()
    unrecorded: tuple[tuple[str, Text], ...] = ()
    cell: int | None = None  # the cell the moment belongs to (a %%memtrace cell, the failing cell)
    took: float = 0.0

    def __len__(self) -> int:
        return len(self.sites)

    def frame(self) -> pandas.DataFrame:
        """One row a site: cell, line, code, bytes, blocks, then file, function, devices and library frames."""
        import pandas

        columns = ["cell", "line", "code", "bytes", "blocks", "file", "function", "devices", "library_frames"]
        frame = pandas.DataFrame(
            [{"cell": s.cell, "line": s.line, "code": s.code, "bytes": s.bytes, "blocks": s.blocks, "file": s.file,
              "function": s.function, "devices": ", ".join(d for d, _ in s.devices),
              "library_frames": s.library_frames} for s in self.sites], columns=columns)
        frame["cell"] = frame["cell"].astype("Int64")
        frame.attrs["bytes"] = ["bytes"]
        return frame

    def to_json(self) -> dict[str, Any]:
        return {"moment": self.moment, "sites": [s.to_json() for s in self.sites], "total": self.total,
                "unattributed": self.unattributed, "frameworks": list(self.frameworks),
                "unrecorded": {name: text.en for name, text in self.unrecorded}, "cell": self.cell}


def group(records: Iterable[BlockRecord], cells: CellNames, moment: str, *, cell: int | None = None,
          unrecorded: tuple[tuple[str, Text], ...] = ()) -> Sites:
    """Group the records' blocks by the innermost frame of the user's code in their stacks."""
    started = time.perf_counter()
    where = _Where(cells)
    found: dict[tuple[int | None, str | None, int], dict[str, Any]] = {}
    total = unattributed = unattributed_blocks = 0
    frameworks = []
    for record in records:
        frameworks.append(record.framework)
        total += record.total
        for block in record.blocks:
            hit = _innermost(block.frames, where)
            if hit is None:
                unattributed += block.bytes
                unattributed_blocks += block.blocks
                continue
            depth, frame, number = hit
            key = (number, None if number is not None else frame.filename, frame.line)
            entry = found.get(key)
            if entry is None:
                entry = found[key] = {"frame": frame, "bytes": 0, "blocks": 0, "devices": {}, "depth": 0,
                                      "frameworks": set()}
            entry["bytes"] += block.bytes
            entry["blocks"] += block.blocks
            entry["devices"][block.device] = entry["devices"].get(block.device, 0) + block.bytes
            entry["depth"] = max(entry["depth"], depth)
            entry["frameworks"].add(record.framework)
    sites = [Site(number, file, line, _code(entry["frame"].filename, line), entry["frame"].function,
                  entry["bytes"], entry["blocks"],
                  tuple(sorted(entry["devices"].items(), key=lambda item: -item[1])), entry["depth"],
                  tuple(sorted(entry["frameworks"])))
             for (number, file, line), entry in found.items()]
    sites.sort(key=lambda s: (-s.bytes, s.cell if s.cell is not None else -1, s.line))
    return Sites(tuple(sites), moment, total, unattributed, unattributed_blocks, tuple(dict.fromkeys(frameworks)),
                 unrecorded, cell, time.perf_counter() - started)


def _innermost(frames: tuple[Frame, ...], where: _Where) -> tuple[int, Frame, int | None] | None:
    for depth, frame in enumerate(frames):
        number, mine = where.of(frame.filename)
        if mine:
            return depth, frame, number
    return None


def _code(filename: str, line: int) -> str:
    """The line's text from Python's line cache (where IPython keeps every cell's text), stripped and bounded."""
    text = linecache.getline(filename, line).strip()
    return text if len(text) <= MAX_CODE else text[:MAX_CODE - 1] + "…"
