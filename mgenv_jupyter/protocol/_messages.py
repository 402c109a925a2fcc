"""The messages each way over the sidebar's comm, as unions: what the front end sends (`REQUESTS`), what the kernel
sends back to the sidebar's model (`REPLIES`: the answers, and the "changed" notice), what it pushes unasked
(`NOTICES`) and the memory stream (`MEMORY`). The TypeScript unions (`Request`, `Reply`, `Notice`, `KernelMessage`)
are generated from these tuples, so neither side writes a message list by hand.
"""

from __future__ import annotations

from typing import get_args, get_type_hints

from ._freeing import FreedReply, FreeRequest
from ._memory import Batch, Snapshot
from ._oom import MemtraceRequest, OomNotice, RemedyRequest
from ._sidebar import (
    CatalogReply,
    ChangedNotice,
    ErrorReply,
    HelloRequest,
    HistoryReply,
    HistoryRequest,
    MemoryRequest,
    ProfileReply,
    ProfileRequest,
    RefreshRequest,
    ResultReply,
    SetRequest,
    StateReply,
    UnsetRequest,
    VerifyNotice,
    VerifyRequest,
)
from ._sweep import CellOfferNotice, ProfileOfferNotice, SweepCellReply, SweepCellRequest

REQUESTS = (HelloRequest, SetRequest, UnsetRequest, RefreshRequest, MemoryRequest, HistoryRequest, ProfileRequest,
            VerifyRequest, FreeRequest, RemedyRequest, MemtraceRequest, SweepCellRequest)
REPLIES = (CatalogReply, StateReply, ResultReply, ErrorReply, ChangedNotice, HistoryReply, ProfileReply, FreedReply,
           SweepCellReply)
NOTICES = (ChangedNotice, OomNotice, VerifyNotice, ProfileOfferNotice, CellOfferNotice)
MEMORY = (Batch, Snapshot)

Reply = (CatalogReply | StateReply | ResultReply | ErrorReply | ChangedNotice | HistoryReply | ProfileReply
         | FreedReply | SweepCellReply)
Notice = ChangedNotice | OomNotice | VerifyNotice | ProfileOfferNotice | CellOfferNotice
# Everything the kernel sends over the comm.
KernelMessage = Reply | OomNotice | VerifyNotice | ProfileOfferNotice | CellOfferNotice | Batch | Snapshot


def message_types() -> tuple[str, ...]:
    """The `type` of every message the kernel sends, in the order of the unions (for the front end's input guard)."""
    kinds = (get_args(get_type_hints(message)["type"]) for message in (*REPLIES, *NOTICES, *MEMORY))
    return tuple(dict.fromkeys(kind for (kind,) in kinds))
