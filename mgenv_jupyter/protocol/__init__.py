"""The wire between the kernel and the browser, defined once: the sidebar's comm messages (`sidebar`) and the memory
stream (`memory`). labextension/src/schema.ts is generated from these types (`python -m mgenv_jupyter.protocol`), and a
test fails when either side changes alone. Nothing in a message is ever executed: names and values are data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base._lazy_names import lazy_names
from ._memory import (
    MAX_INTERVAL,
    MIN_INTERVAL,
    Batch,
    BatchMeta,
    CellInfo,
    MemoryHello,
    OverlayInfo,
    OverlayKind,
    SeriesInfo,
    Snapshot,
    SourceState,
    checked_interval,
)

if TYPE_CHECKING:
    from ._sidebar import (
        COMM_TARGET,
        PROTOCOL_VERSION,
        REPLY_TYPES,
        REQUEST_TYPES,
        SIDEBAR_SOURCES,
        CatalogReply,
        ChangedNotice,
        ChangeInfo,
        EditorInfo,
        EditorKind,
        EntryInfo,
        ErrorReply,
        FrameworkInfo,
        HelloRequest,
        HistoryReply,
        HistoryRequest,
        KernelInfo,
        MemoryRequest,
        ProfileAction,
        ProfileItemInfo,
        ProfileReply,
        ProfileRequest,
        ReadingCode,
        RefreshRequest,
        ResultReply,
        SetRequest,
        SizeInfo,
        StateReply,
        StatusCode,
        UnitInfo,
        UnsetRequest,
        VariableInfo,
    )

__all__ = [
    "Batch",
    "BatchMeta",
    "COMM_TARGET",
    "CatalogReply",
    "CellInfo",
    "ChangeInfo",
    "ChangedNotice",
    "EditorInfo",
    "EditorKind",
    "EntryInfo",
    "ErrorReply",
    "FrameworkInfo",
    "HelloRequest",
    "HistoryReply",
    "HistoryRequest",
    "KernelInfo",
    "MAX_INTERVAL",
    "MIN_INTERVAL",
    "MemoryHello",
    "MemoryRequest",
    "OverlayInfo",
    "OverlayKind",
    "PROTOCOL_VERSION",
    "ProfileAction",
    "ProfileItemInfo",
    "ProfileReply",
    "ProfileRequest",
    "REPLY_TYPES",
    "REQUEST_TYPES",
    "ReadingCode",
    "RefreshRequest",
    "ResultReply",
    "SIDEBAR_SOURCES",
    "SeriesInfo",
    "SetRequest",
    "SizeInfo",
    "Snapshot",
    "SourceState",
    "StateReply",
    "StatusCode",
    "UnitInfo",
    "UnsetRequest",
    "VariableInfo",
    "checked_interval",
]

# The sidebar's messages are imported on first use: the memory sampler, which `%load_ext` starts, needs only the
# memory stream's types.
_EXPORTS = dict.fromkeys(("COMM_TARGET", "PROTOCOL_VERSION", "REPLY_TYPES", "REQUEST_TYPES", "SIDEBAR_SOURCES",
                          "CatalogReply", "ChangedNotice", "ChangeInfo", "EditorInfo", "EditorKind", "EntryInfo",
                          "ErrorReply", "FrameworkInfo", "HelloRequest", "HistoryReply", "HistoryRequest",
                          "KernelInfo", "MemoryRequest", "ProfileAction", "ProfileItemInfo", "ProfileReply",
                          "ProfileRequest", "ReadingCode", "RefreshRequest", "ResultReply", "SetRequest",
                          "SizeInfo", "StateReply", "StatusCode", "UnitInfo", "UnsetRequest", "VariableInfo"),
                         "_sidebar")

__getattr__, __dir__ = lazy_names(__name__, _EXPORTS, globals())
