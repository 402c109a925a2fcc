"""Giving memory back, on the wire: what a free did (`FreeResultData`, the output `%memfree` shows and the answer to
the report's "Free what the failed cell holds" button) and what holds memory by name (`HoldersData`, a part of the
out-of-memory report). Words are in the language of whoever made them (the kernel), figures are bytes; the front end
lays them out and decides nothing.
"""

from __future__ import annotations

from typing import Literal, TypedDict

FREE_MIME = "application/vnd.mgenv-jupyter.free+json"
FREE_VERSION = 1


class FigureInfo(TypedDict):
    """One figure before and after a free, in bytes (null: not known), its label ("host RSS (this kernel)",
    "gpu0: this kernel (NVML)", "torch gpu0: reserved") and the change in words ("gave back 1.5 GiB")."""

    label: str
    before: int | None
    after: int | None
    change: str


class FreeResultData(TypedDict):
    """What a free did: the headline, the figures before and after, the lines of what was cleared and asked
    (`sections`, each a title line then its lines), the footer, when it ended (seconds since the epoch: the chart's
    mark) and whether the GPU figures come from the simulated device."""

    v: int
    language: str
    headline: str
    figures: list[FigureInfo]
    sections: list[list[str]]
    footer: str
    time: float
    simulated: bool


class HolderInfo(TypedDict):
    """One variable holding memory: its name, what it is, the bytes counted for it, the sizes per device in words,
    and a note (what it shares and with whom, or that it is the output cache)."""

    name: str
    what: str
    bytes: int
    devices: str
    note: str


class HoldersData(TypedDict):
    """The variables holding memory, largest first (`empty` says why there are none), and the notes: totals, what
    the walk's bounds left out, how to give memory back."""

    title: str
    rows: list[HolderInfo]
    empty: str | None
    notes: list[str]


class FreeRequestParts(TypedDict, total=False):
    """`report_id`: the report whose button asks (its id); the kernel then frees that report's failed cell once: a
    report already given back (by %memfree, or the button in the other view) is answered with that free, nothing
    freed again, and an earlier report than the kernel's last is refused."""

    report_id: str


class FreeRequest(FreeRequestParts):
    """Front end → kernel, over the sidebar's comm: give back what the failed cell holds (the report's "Free what the
    failed cell holds"). Never the output cache: only `%memfree --outputs` in a cell clears it, and a request that
    asks ("outputs") is refused. Answered by "freed", or "error"."""

    v: int
    id: str
    type: Literal["free"]


class FreedReply(TypedDict):
    """Kernel → front end: what the free did, with the memory before and after, in the sidebar's language."""

    v: int
    type: Literal["freed"]
    reply_to: str
    result: FreeResultData
