"""The wire is defined once per side: labextension/src/protocol.ts and the Python TypedDicts must agree."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from mgenv_jupyter import protocol
from mgenv_jupyter.memory import protocol as memory_protocol

TS = (Path(__file__).resolve().parent.parent / "labextension" / "src" / "protocol.ts").read_text()


def ts_interfaces() -> dict[str, dict[str, bool]]:
    """interface name → {field: optional}"""
    result = {}
    for name, body in re.findall(r"export interface (\w+)(?: extends [^{]+)? \{(.*?)\n\}", TS, re.S):
        fields = {}
        for field, optional in re.findall(r"^\s+(\w+)(\?)?:", body, re.M):
            fields[field] = bool(optional)
        result[name] = fields
    return result


PAIRS = {
    **{name: getattr(protocol, name) for name in (
        "HelloRequest", "SetRequest", "UnsetRequest", "RefreshRequest", "MemoryRequest", "VariableInfo",
        "ChangeInfo", "KernelInfo", "CatalogReply", "StateReply", "ResultReply", "ErrorReply", "ChangedNotice",
        "HistoryRequest", "ProfileRequest", "HistoryReply", "ProfileItemInfo", "ProfileReply")},
    "SeriesInfo": memory_protocol.SeriesInfo,
    "SourceState": memory_protocol.SourceState,
    "OverlayInfo": memory_protocol.OverlayInfo,
    "CellInfo": memory_protocol.CellInfo,
    "MemoryBatch": memory_protocol.Batch,
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_fields_agree(name):
    python = PAIRS[name]
    ts = ts_interfaces()[name]
    assert set(ts) == set(typing.get_type_hints(python)), name
    optional = {field for field, is_optional in ts.items() if is_optional}
    assert optional == set(python.__optional_keys__), name


def test_constants_agree():
    assert f"PROTOCOL_VERSION = {protocol.PROTOCOL_VERSION};" in TS
    assert f"COMM_TARGET = '{protocol.COMM_TARGET}';" in TS


def test_request_types_agree():
    ts_types = set(re.findall(r"type: '(\w+)';", TS))
    assert set(protocol.REQUEST_TYPES) | set(protocol.REPLY_TYPES) <= ts_types
