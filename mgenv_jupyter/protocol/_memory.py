"""The memory stream's messages: the JSON-ready batches `Sampler` hands to its subscribers, which the chart (inline or
in the sidebar) forwards to the browser unchanged. Part of the one wire schema, with `_sidebar.py`.

A batch carries the rows sampled since the previous batch, as columns (one array per series, not one object per
sample), at most `pushes_per_second` times a second:

    {
      "type": "memory.batch",
      "seq": 17,                              # increasing per sampler
      "interval": 0.1,                        # seconds between samples now
      "t": [1732240000.1, 1732240000.2],      # row times, seconds since the epoch, millisecond precision
      "columns": {                            # series key → one value per row, in bytes; null where not sampled
        "gpu0 used": [8589934592, 8592031744],
        "gpu0 process": [2147483648, null]
      },
      "cells": [                              # cell markers that started or ended since the previous batch
        {"cell": 12, "start": 1732240000.15, "end": null, "duration": null, "ok": null, "peak": {}}
      ],
      # only in a subscriber's first batch and whenever they change; complete lists replacing the previous ones:
      "series": [{"key": "gpu0 used", "device": "gpu0", "framework": null, "quantity": "used", "source": "nvml",
                  "simulated": false, "node": null}],
      "sources": [{"name": "nvml", "state": {"code": "ok", "args": {}, "parts": []}, "text": "ok", "lead": null,
                   "simulated": false, "simulation": null, "node": null}],
      "overlays": [{"key": "total:gpu0", "kind": "total", "device": "gpu0", "bytes": 42949672960,
                    "label": "gpu0 total (40 GiB)", "short": "total", "note": "the device's memory",
                    "series": "gpu0 total", "node": null}],
      "started": 1732239000.25,               # when the kernel's process started: the chart's time axis counts from it
      "marks": [{"kind": "freed", "time": 1732240003.5, "label": "freed 36 GiB", "note": "..."}]  # moments, not cells
    }

A series is told by its fields: `device` ("gpu0", "host"), `framework` (the allocator's, or null), `quantity` (used,
total, process: the kernel's process tree, allocated, reserved, peak: framework allocators), `node` and `simulated`.
Its `key` names it in tables and CSV ("torch gpu0 allocated", "gpu0 (simulated) process"), and nobody reads the fields
back out of it. Devices read from the simulated GPU have `simulated: true`; a source reading the simulated GPU names
its scenario in `simulation` ("a100-40gb"), and its `state` says what it does (a code: "ok", "nvml_error" with its
`args`) without repeating that it is simulated. A series or source read on another machine of a cluster
(`mgenv_jupyter.cluster`) names that node in `node` ("node_b"), and the node's source says the node's state ("ok",
"starting", "lost" with its `reason`, "quiet" with its `seconds`); `node` is null for the kernel's own machine. An
overlay names the series it stands for (`series`) and its node; its label leaves the node out, since a chart lists it
under its node. Sizes in labels are binary units written as such ("40 GiB"). A cell appears twice: when it starts (end
null) and when it ends (with its peaks per series).
`Sampler.snapshot()` returns the same shape, typed "memory.snapshot", with everything still at full resolution, for a
chart opened late.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from ..base._errors import InvalidValueError

# The sampling intervals offered anywhere (magics, the chart, the sidebar): 100 Hz down to one sample a minute.
MIN_INTERVAL = 0.01
MAX_INTERVAL = 60.0
# The sidebar's memory panel samples at 10 Hz unless its settings (or a "memory" request) say otherwise.
DEFAULT_INTERVAL = 0.1
# What a chart shows, so that it stays readable however long the kernel runs: the latest DEFAULT_WINDOW seconds (a
# rolling window), and a y-axis fitted to the data, an overlay line in range only up to OVERLAY_REACH times the highest
# value shown (above it, a label: a 40 GiB total does not squash a 2 GiB curve). The live chart and the static
# picture of a saved notebook draw by the same numbers.
DEFAULT_WINDOW = 300
OVERLAY_REACH = 2.0


class SeriesInfo(TypedDict):
    """One series, by its fields: front ends tell series apart and name them from these, never from `key` (a name for
    tables and CSV columns: "torch gpu0 allocated")."""

    key: str
    device: str  # the device alone, as its source names it: "gpu0", "host", "cpu0"
    framework: str | None  # whose allocator counted it ("torch"); None: the driver (NVML) or the host
    quantity: str  # used, total, process, allocated, reserved or peak
    source: str
    simulated: bool  # read from the simulated GPU
    node: str | None  # the cluster node it was read on; None: the kernel's own machine


class StatePart(TypedDict):
    """A state as a code and its arguments (mgenv_jupyter/base/_source_state.py): front ends act on `code`, never on
    words; `args` are the parts that vary ("framework": "paddle"), as text."""

    code: str
    args: dict[str, str]


class StateInfo(StatePart):
    parts: list[StatePart]  # a state of several problems ("problems"): one a problem, its `where` in its args


class SourceState(TypedDict):
    name: str
    state: StateInfo
    text: str  # the state worded in the kernel's language for people (memory/_state_words.py)
    lead: str | None  # what follows the source's name in a status line, when the words start with the source's own
    simulated: bool
    simulation: str | None
    node: str | None  # a cluster node's source: its state is the node's ("lost: ..."); None: a local source


# cell_peak and oom_request are drawn only in an out-of-memory report's timeline (protocol/_oom.py): an earlier cell's
# peak, and what the kernel held at the failure plus what it asked for.
OverlayKind = Literal["total", "dtr_threshold", "paddle_cap", "cell_peak", "oom_request"]
# How each line is drawn where no theme is at hand (the static picture of a saved notebook): its colour, the one the
# live chart falls back to (chart/theme.ts), and its SVG dash pattern ("": solid). Beside the kinds, so that a kind
# added there is drawn by both.
OVERLAY_LOOKS: dict[OverlayKind, tuple[str, str]] = {
    "total": ("#757575", ""), "dtr_threshold": ("#d32f2f", "6 3"), "paddle_cap": ("#f57c00", "2 3"),
    "cell_peak": ("#388e3c", "2 3"), "oom_request": ("#d32f2f", "6 3"),
}


class OverlayInfo(TypedDict):
    key: str
    kind: OverlayKind
    device: str | None  # the device's label as series keys give it ("gpu0 (simulated)"); None: no one device
    bytes: int
    label: str  # its name with its size, without the node (a chart lists it under its node)
    short: str
    note: str
    series: str | None  # the key of the series the line stands for (a device's total); None: none
    node: str | None  # the cluster node of its device; None: the kernel's own machine


# A moment marked on the chart that is not a cell: "freed", memory given back (oom/_free.py).
MarkKind = Literal["freed"]


class MarkInfo(TypedDict):
    """A moment on the chart's time axis, drawn like a cell marker: what happened (`kind`), when (seconds since the
    epoch), its short label and its note (in the kernel's language: "freed 36 GiB")."""

    kind: MarkKind
    time: float
    label: str
    note: str


class CellInfo(TypedDict):
    cell: int
    start: float
    end: float | None
    duration: float | None
    ok: bool | None
    peak: dict[str, float]


class BatchMeta(TypedDict, total=False):
    """The parts of a batch sent only when they change."""

    series: list[SeriesInfo]
    sources: list[SourceState]
    overlays: list[OverlayInfo]
    started: float
    marks: list[MarkInfo]


class Batch(BatchMeta):
    type: Literal["memory.batch"]
    seq: int
    interval: float
    t: list[float]
    columns: dict[str, list[int | float | None]]
    cells: list[CellInfo]


class Snapshot(BatchMeta):
    """Everything still at full resolution, same shape as a batch, for a view that opens late; it replaces what the
    view had."""

    type: Literal["memory.snapshot"]
    seq: int
    interval: float
    t: list[float]
    columns: dict[str, list[int | float | None]]
    cells: list[CellInfo]


def checked_interval(value: float) -> float:
    """`value` as a sampling interval in seconds, or `InvalidValueError` saying what is allowed."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = float("nan")
    if not MIN_INTERVAL <= seconds <= MAX_INTERVAL:
        raise InvalidValueError(f"a sampling interval is from {MIN_INTERVAL} s (100 Hz) to {MAX_INTERVAL:g} s, "
                                f"not {value!r}")
    return seconds


class MemoryHello(TypedDict):
    """Front end → kernel: a chart view opened and wants the snapshot. `language` is the front end's ("zh" or "en",
    from JupyterLab's): the kernel speaks it from then on, unless `%envlang` or MGENV_LANG chose one. `hosted`: the
    view is inside the labextension's output host (protocol/_output.py), which keeps a live view when the output's
    static view is brought up to date; a view elsewhere would be drawn again, so the kernel then leaves the static view
    as it was displayed."""

    type: Literal["memory.hello"]
    language: str
    hosted: bool
