"""Giving memory back over the sidebar's comm: the "free" request (the report's "Free what the failed cell holds")
is answered by "freed" with exactly the schema's shape, in the sidebar's language; a malformed one, or one asking to
clear the output cache (a message is not the user's consent to drop results), is refused and frees nothing. And the
report's free offer and what-holds-memory part have the schema's shape."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from mgenv_jupyter.comms._requests import RequestHandler
from mgenv_jupyter.oom import _free as free_module
from mgenv_jupyter.oom._recognise import recognise
from mgenv_jupyter.oom._report import build_report
from mgenv_jupyter.presentation.oom import OomView
from mgenv_jupyter.protocol._freeing import FreedReply, FreeResultData, HoldersData

from wire_check import check


def test_a_free_request_is_answered_with_what_was_freed(fresh_session):
    handler = RequestHandler(fresh_session)
    handler.handle({"v": 1, "id": "h", "type": "hello", "language": "zh"})
    try:
        raise MemoryError("stand-in")
    except MemoryError as exc:
        sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, exc.__traceback__
    (reply,) = handler.handle({"v": 1, "id": "f1", "type": "free"})
    check(reply, FreedReply)
    check(reply["result"], FreeResultData)
    assert reply["reply_to"] == "f1" and reply["result"]["language"] == "zh"
    assert not hasattr(sys, "last_traceback")
    assert any("主机 RSS" in figure["label"] for figure in reply["result"]["figures"])


@pytest.mark.parametrize("request_, said", [
    ({"v": 1, "id": "f2", "type": "free", "outputs": True}, "never clears the output cache"),
    ({"v": 1, "id": "f4", "type": "free", "outputs": False}, "only %memfree --outputs in a cell"),
    ({"v": 1, "id": "f3", "type": "fre"}, "unknown request type"),
])
def test_a_malformed_free_request_is_refused_and_frees_nothing(fresh_session, monkeypatch, request_, said):
    called = []
    monkeypatch.setattr(free_module, "drop_failed_cell", lambda shell: called.append(1) or ([], []))
    (reply,) = RequestHandler(fresh_session).handle(request_)
    assert reply["type"] == "error" and said in reply["message"]
    assert not called


def test_what_holds_memory_in_the_report_has_the_schemas_shape(fresh_session):
    globals()["weights"] = np.ones(1 << 20, dtype=np.uint8)
    report = build_report(recognise(MemoryError()), None, fresh_session)  # what held memory at the failure
    data = OomView(report, "en").data()["holders"]
    check(data, HoldersData)
