"""What an adapter gives the memory chart. What it reads of its framework's allocator (`read_counters`, asked by
memory/_framework_sources.py): per device, the bytes allocated, reserved and peaked at, or the device's used and
total, as the framework says them; or, when there is nothing to read, why, as a state code (`State`;
memory/_state_words.py words it for people, a framework's own codes from the words its adapter declares:
`STATE_WORDS`). And the lines its settings draw over the chart (`chart_lines`, asked by memory/_overlays.py).

A reading never imports or initialises a framework: it is given the module, already imported. Where a reading would
create a CUDA context on a GPU the kernel has not used yet, the adapter asks `open_devices` which of its devices may
be read now; the source says it waits for the others.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from ...base._source_state import State

OpenDevices = Callable[[Sequence[int]], list[int]]


class Counters(NamedTuple):
    """One device's figures: `device` as the series name it ("gpu0", or JAX's platform and id), then bytes."""

    device: str
    allocated: int | None = None
    reserved: int | None = None
    peak: int | None = None
    used: int | None = None
    total: int | None = None


class Reading(NamedTuple):
    """What a framework says now: its devices' counters, and why there are none, or a detail (`HOLDS_NOTHING`); None
    for plain ok."""

    counters: list[Counters]
    state: State | None = None


class ChartLine(NamedTuple):
    """A horizontal line over the memory chart: `kind` is its wire code (protocol/_memory.py OverlayKind), `device`
    the device label it belongs to (None: none in particular), `bytes` where it is drawn, `label` its name with its
    size, `short` the name written beside it (the chart adds the device where there are several), `note` what it
    means and where its value came from; words in the language asked."""

    kind: str
    device: str | None
    bytes: int
    label: str
    short: str
    note: str


def first_line(exc: BaseException) -> str:
    """The telling line of an error message; MXNet's start with a C++ traceback and end with the message."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    return lines[-1] if lines[0].startswith("Traceback") else lines[0]
