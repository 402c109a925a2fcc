"""A sweep's figure as the front end receives it: the `SweepChart` anywidget's `data` (a `SweepFigure`), drawn with
the memory chart's component (uPlot) in labextension/src/sweep; and the sidebar's "profile offer" notice that hands
`SweepResult.apply()`'s import-time values to the notebook profile. Every word is already in the kernel's language;
codes say what is what. Nothing in it is executed.
"""

from __future__ import annotations

from typing import Literal, TypedDict

SweepOutcome = Literal["ok", "oom", "error", "timeout", "crashed", "not_run"]
PeakKind = Literal["device", "host"]


class SweepPointInfo(TypedDict):
    """One point as the figure draws it: its label on the setting axis (the values as given), its outcome (code and
    words), its time (median seconds, null unless ok), its peak (bytes of the budget's kind, null when unmeasured),
    whether it is the recommended point and whether it failed; `note` says why it failed, `gpu` where it ran."""

    index: int
    label: str
    outcome: SweepOutcome
    outcome_label: str
    seconds: float | None
    peak: int | None
    best: bool
    failed: bool
    note: str
    gpu: int | None


class SweepTimeline(TypedDict):
    """One point's memory while its measured cell ran: seconds since the cell began, bytes of the budget's kind."""

    index: int
    label: str
    t: list[float]
    bytes: list[int | None]


class SweepFigure(TypedDict):
    """The whole figure: its title and the setting axis's name; the chart titles and axis words; the peak's kind
    (device or host), the budget line (bytes, null for none, and its label), whether the device is simulated; the
    points in order and their timelines; `status` (a sentence: running, done, interrupted, the recommendation)."""

    title: str
    axis: str
    time_title: str
    peak_title: str
    timeline_title: str
    seconds_label: str
    bytes_label: str
    elapsed_label: str
    peak_kind: PeakKind
    budget: int | None
    budget_label: str
    simulated: bool
    points: list[SweepPointInfo]
    timelines: list[SweepTimeline]
    status: str
    running: bool


class SweepCellRequest(TypedDict):
    """"try several values…" of a variable in the sidebar: the kernel answers with a `%%envsweep` cell for it (values
    from the variable's type, around its current value and the GPU's memory), which the sidebar inserts below the
    active cell, unrun. `v` and `id` as every request has them."""

    v: int
    id: str
    type: Literal["sweep_cell"]
    name: str


class SweepCellReply(TypedDict):
    """The cell for a "sweep_cell" request."""

    v: int
    type: Literal["sweep_cell"]
    reply_to: str | None
    code: str


class CellOfferNotice(TypedDict):
    """A `%%envsweep` cell the kernel offers unasked by the sidebar (a widget's "try several values…" button): the
    sidebar of the notebook it came from inserts it below the active cell, unrun."""

    type: Literal["cell_offer"]
    code: str


class ProfileOfferNotice(TypedDict):
    """`SweepResult.apply()` set values the running framework had already read: the notebook profile should keep them
    so that "Restart and apply" brings them into a new kernel. The sidebar adds them as if they were its own edits
    (the kernel's normalised values; never a secret)."""

    type: Literal["profile_offer"]
    assignments: dict[str, str]
