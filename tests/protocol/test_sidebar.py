"""The sidebar's messages (protocol/_sidebar.py): every message the kernel builds has exactly the schema's shape, type
by type, and statuses travel as the schema's codes."""

from __future__ import annotations

import os
import uuid
from typing import get_args, get_type_hints

import pytest

from mgenv_jupyter import protocol
from mgenv_jupyter.catalog import ReadWhen
from mgenv_jupyter.comms._requests import RequestHandler
from mgenv_jupyter.presentation._editor import EditorKind
from mgenv_jupyter.protocol import _messages as message_lists
from mgenv_jupyter.protocol import _sidebar as sidebar
from mgenv_jupyter.runtime._status import LABELS, Status

from wire_check import check


def test_status_codes_on_the_wire_are_the_statuses():
    assert set(protocol.StatusCode.__args__) == {status.value for status in Status} == {s.value for s in LABELS}


def request(kind: str, **fields) -> dict:
    return {"v": protocol.PROTOCOL_VERSION, "id": uuid.uuid4().hex, "type": kind, **fields}


REPLY_TYPES = {"catalog": protocol.CatalogReply, "state": protocol.StateReply, "result": protocol.ResultReply,
               "error": protocol.ErrorReply, "changed": protocol.ChangedNotice, "history": protocol.HistoryReply,
               "profile": protocol.ProfileReply}


@pytest.fixture
def messages(fresh_session, tmp_path, monkeypatch):
    """Every kind of message the kernel sends, from real requests and a real change."""
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path))
    handler = RequestHandler(fresh_session)
    sent = []
    for message in (
        request("hello", language="zh"),
        request("set", assignments={"FLAGS_allocator_strategy": "auto_growth", "MY_TOKEN": "hunter2"},
                source="sidebar", force=False, env_only=False),
        request("unset", names=["MY_TOKEN"], source="sidebar"),
        request("set", assignments={"MGE_DEFAULT_DEVICE": "tpu0"}),
        request("refresh"),
        request("history", before=None, limit=5),
        request("profile", profile={"MGE_DEFAULT_DEVICE": "cpu0", "LD_PRELOAD": "/x.so"}, approve=True, apply=True),
    ):
        sent.extend(handler.handle(message))
    report = fresh_session.set({"FLAGS_allocator_strategy": "naive_best_fit"})
    sent.append(handler.changed(report))
    yield sent
    os.environ.pop("FLAGS_allocator_strategy", None)


def test_every_message_the_kernel_builds_has_the_schemas_shape(messages):
    assert {m["type"] for m in messages} == set(REPLY_TYPES)
    for message in messages:
        check(message, REPLY_TYPES[message["type"]], message["type"])


def test_a_change_of_the_strategy_updates_the_pool_sizes_that_depend_on_it(messages):
    changed = messages[-1]
    assert changed["type"] == "changed"
    pool = changed["variables"]["FLAGS_initial_gpu_memory_in_mb"]
    assert pool["applies"] is True and "naive_best_fit" in pool["applies_reason"]


def test_the_checker_itself_finds_a_wrong_type():
    good = {"v": 1, "type": "error", "reply_to": None, "message": "x", "field": None, "code": "invalid"}
    check(good, protocol.ErrorReply)
    for bad in ({**good, "v": "1"}, {**good, "type": "oops"}, {**good, "extra": 1},
                {k: v for k, v in good.items() if k != "message"}):
        with pytest.raises(AssertionError):
            check(bad, protocol.ErrorReply)


def literal_type(message: type) -> str:
    (kind,) = get_args(get_type_hints(message)["type"])
    return str(kind)


def test_each_request_and_reply_type_has_exactly_one_message_shape():
    assert [literal_type(m) for m in message_lists.REQUESTS] == list(sidebar.REQUEST_TYPES)
    assert [literal_type(m) for m in message_lists.REPLIES] == list(sidebar.REPLY_TYPES)


def test_every_request_carries_the_version_and_an_id_and_every_answer_the_version():
    for message in message_lists.REQUESTS:
        assert {"v": int, "id": str}.items() <= get_type_hints(message).items(), message.__name__
    for message in message_lists.REPLIES:
        hints = get_type_hints(message)
        assert hints["v"] is int and (message is sidebar.ChangedNotice or "reply_to" in hints), message.__name__


def test_the_codes_on_the_wire_are_the_kernels_own():
    assert set(get_args(sidebar.EditorKind)) == set(get_args(EditorKind))
    assert set(get_args(sidebar.ReadingCode)) == {when.value for when in ReadWhen}
