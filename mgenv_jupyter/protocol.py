"""The sidebar's wire, kernel side: JSON messages over the comm target `mgenv_jupyter`.

Defined once here and once in labextension/src/protocol.ts; tests/test_protocol_agreement.py checks that they agree.
Every message carries `v` (the protocol version). Requests carry an `id`; the kernel's answer carries it back as
`reply_to`. Nothing in a message is ever executed: names and values are data, validated by the catalog.

Front end → kernel:
    {"v": 1, "id": "…", "type": "hello", "language": "en"}            → "catalog", then "state"
    {"v": 1, "id": "…", "type": "set", "assignments": {"NAME": "VALUE"}, "source": "sidebar", "force": false,
     "env_only": false}                                              → "result" (or "error"), then "changed"
    {"v": 1, "id": "…", "type": "unset", "names": ["NAME"], "source": "sidebar"}        → same
    {"v": 1, "id": "…", "type": "refresh"}                             → "state"
    {"v": 1, "id": "…", "type": "memory", "on": true, "interval": 0.1} → "result", then "memory.batch" messages

Kernel → front end:
    "catalog"  every entry as JSON (Entry.to_json) in the requested language
    "state"    every catalog variable's value and status, the change history, and facts about the kernel
    "result"   a request succeeded; `changes` lists what it changed
    "error"    a request was rejected; `message` says why and what is allowed; nothing changed
    "changed"  sent to every open comm whenever anything changes the session (magics, widgets, the sidebar)
    "memory.batch" / "memory.snapshot"  the live memory stream (format: mgenv_jupyter/memory/protocol.py)
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

PROTOCOL_VERSION = 1
COMM_TARGET = "mgenv_jupyter"

REQUEST_TYPES = ("hello", "set", "unset", "refresh", "memory")
REPLY_TYPES = ("catalog", "state", "result", "error", "changed")
SIDEBAR_SOURCES = ("sidebar", "profile")


class HelloRequest(TypedDict):
    v: int
    id: str
    type: Literal["hello"]
    language: str


class SetRequest(TypedDict):
    v: int
    id: str
    type: Literal["set"]
    assignments: dict[str, str]
    source: str
    force: bool
    env_only: bool


class UnsetRequest(TypedDict):
    v: int
    id: str
    type: Literal["unset"]
    names: list[str]
    source: str


class RefreshRequest(TypedDict):
    v: int
    id: str
    type: Literal["refresh"]


class MemoryRequest(TypedDict):
    v: int
    id: str
    type: Literal["memory"]
    on: bool
    interval: float


class VariableInfo(TypedDict):
    value: str | None
    status: str
    message: str


class ChangeInfo(TypedDict):
    time: float
    name: str
    old: str | None
    new: str | None
    source: str
    outcome: str
    message: str
    effective: str | None


class KernelInfo(TypedDict):
    python: str
    version: str
    imported: list[str]


class CatalogReply(TypedDict):
    v: int
    type: Literal["catalog"]
    reply_to: str | None
    language: str
    entries: list[dict[str, Any]]


class StateReply(TypedDict):
    v: int
    type: Literal["state"]
    reply_to: str | None
    variables: dict[str, VariableInfo]
    history: list[ChangeInfo]
    kernel: KernelInfo


class ResultReply(TypedDict):
    v: int
    type: Literal["result"]
    reply_to: str
    changes: list[ChangeInfo]


class ErrorReply(TypedDict):
    v: int
    type: Literal["error"]
    reply_to: str | None
    message: str


class ChangedNotice(TypedDict):
    v: int
    type: Literal["changed"]
    changes: list[ChangeInfo]
    variables: dict[str, VariableInfo]
