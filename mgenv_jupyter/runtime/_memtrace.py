"""What a framework says about the memory it holds and where each block was allocated: `LiveBlocks` (bytes and blocks
allocated from one Python stack on one device) and `Frame` (one frame of that stack). The framework adapters
(runtime/frameworks/) turn each framework's own record into these; the sites (memory/_memtrace_sites.py) group them by
the line of the user's code that made them. Knows no framework and no notebook.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Frame:
    """One frame of an allocation's Python stack: the code's file name as Python compiled it (a cell's is IPython's
    name for it), the line running in it, and the function."""

    filename: str
    line: int
    function: str


@dataclass(frozen=True)
class LiveBlocks:
    """`bytes` in `blocks` blocks on `device` ("cpu:0", "gpu0"), all allocated from the Python stack `frames`,
    innermost first."""

    bytes: int
    blocks: int
    device: str
    frames: tuple[Frame, ...]


@dataclass(frozen=True)
class BlockRecord:
    """One framework's live blocks at a moment: `framework` (the catalog's key), the blocks, and `total` (every byte
    the framework holds live then, allocated from a recorded stack or not)."""

    framework: str
    blocks: tuple[LiveBlocks, ...]
    total: int


class MemtraceRecorder(Protocol):
    """A framework adapter's recording of where its memory is allocated (runtime/frameworks/_<framework>.py)."""

    framework: str

    def available(self) -> bool:
        """The framework is loaded (and has what the recording needs); it is never imported to ask."""

    def keep_on(self, on: bool) -> bool:
        """Keep recording across cells (or stop); whether it records now."""

    def start(self) -> None:
        """Begin recording one cell."""

    def stop(self) -> BlockRecord | None:
        """End the cell's recording: the blocks live at its peak (None: nothing recorded)."""

    def now(self) -> BlockRecord | None:
        """The blocks live now, where the framework can say outside a recorded cell (None: it cannot)."""
