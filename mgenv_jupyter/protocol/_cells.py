"""Each cell's memory on the wire and in the notebook: the kernel sends a `CellMemoryNotice` over its cells' comm
(target `CELLS_TARGET`, opened by the kernel at `%load_ext`, found again by a reloaded page through the kernel's comm
list) when a cell finishes; the front end writes its `record` into the cell's metadata under `CELL_METADATA_KEY`
(with the last run's figures as `previous`) and draws the badge from that metadata alone, so a notebook reopened
without a kernel shows it. Sizes are bytes; names are data for display.
"""

from __future__ import annotations

from typing import Literal, TypedDict

CELLS_TARGET = "mgenv_jupyter.cells"
CELL_METADATA_KEY = "mgenv_jupyter"
CELL_MEMORY_VERSION = 1


class DeviceMemoryInfo(TypedDict):
    """One device's figures for a cell ("gpu0", "gpu0 (simulated)", "host"): the highest sample while it ran, what it
    kept (after − before), and the memory before and after it; null where no reading was had."""

    device: str
    peak: int | None
    kept: int | None
    before: int | None
    after: int | None


class GrewInfo(TypedDict):
    """A variable that holds more memory after this run than after the first of the growing runs."""

    name: str
    bytes: int


class LeakInfo(TypedDict):
    """Running this cell again kept more memory on `device` each time: what each of the last `runs` runs kept,
    oldest first, and the variables that grew."""

    device: str
    runs: int
    kept: list[int]
    grew: list[GrewInfo]


class PreviousRunInfo(TypedDict):
    """The run before, as the metadata had it: its number and figures (the badge says the change against it)."""

    execution_count: int | None
    devices: list[DeviceMemoryInfo]


class CellMemoryRecord(TypedDict):
    """What a cell's metadata keeps under `CELL_METADATA_KEY` → "memory": the kernel's figures of the last run, when
    it ended (seconds since the epoch), how long it ran, whether it succeeded, whether the GPU is the simulated one,
    the leak it shows (null: none) and the run before (null: none known; written by the front end)."""

    v: int
    execution_count: int | None
    time: float
    duration: float
    ok: bool
    simulated: bool
    devices: list[DeviceMemoryInfo]
    leak: LeakInfo | None
    previous: PreviousRunInfo | None


class CellMemoryNotice(TypedDict):
    """Kernel → front end, over the cells' comm: the cell `cell_id` (the front end's id; null: the kernel was not
    given one, then `record.execution_count` names it) finished."""

    v: int
    type: Literal["cell_memory"]
    cell_id: str | None
    record: CellMemoryRecord


class CellsHello(TypedDict):
    """Front end → kernel, over the cells' comm, once it listens: its language ("en" or "zh"), so the note under a
    leaking cell is in the user's language (as the sidebar's hello does). Anything else on this comm is ignored."""

    v: int
    type: Literal["hello"]
    language: str
