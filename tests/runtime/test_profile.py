"""Notebook profiles: reviewed, approved by the user for their exact content (kept outside the notebook, see
test_profile_trust.py), and only then applied, catalog variables only (runtime/_profile.py, the comm's "profile"
request)."""

from __future__ import annotations

import os
import uuid

import pytest

from mgenv_jupyter.comms._requests import RequestHandler
from mgenv_jupyter.protocol import PROTOCOL_VERSION
from mgenv_jupyter.runtime import _profile as profile

HOSTILE = {"LD_PRELOAD": "/tmp/evil.so", "MGE_DEFAULT_DEVICE": "cpu0"}


@pytest.fixture
def handler(fresh_session, data_dir):
    return RequestHandler(fresh_session)


def ask(handler, **fields):
    msg = {"v": PROTOCOL_VERSION, "id": uuid.uuid4().hex, "type": "profile", **fields}
    [reply] = handler.handle(msg)
    assert reply["reply_to"] == msg["id"]
    return reply


def test_review_lists_what_would_change_and_what_is_refused_without_changing_anything(fresh_session):
    before = dict(os.environ)
    items = {item.name: item for item in profile.review(fresh_session, {
        **HOSTILE, "MY_VAR": "1", "OPENAI_API_KEY": "sk-proj-" + "q" * 30, "FLAGS_allocator_strategy": "fastest",
        "MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB"})}
    assert items["MGE_DEFAULT_DEVICE"].action == "set"
    assert items["MEGENGINE_DTR_EVICTION_THRESHOLD"].action == "set"
    assert items["LD_PRELOAD"].action == "refused" and "dynamic loader" in items["LD_PRELOAD"].reason
    assert items["MY_VAR"].action == "refused" and "catalog" in items["MY_VAR"].reason
    assert items["OPENAI_API_KEY"].action == "refused" and items["OPENAI_API_KEY"].value == "********"
    assert items["FLAGS_allocator_strategy"].action == "refused" and "naive_best_fit" in \
        items["FLAGS_allocator_strategy"].reason
    assert dict(os.environ) == before


def test_an_unapproved_profile_changes_nothing(handler):
    before = dict(os.environ)
    reply = ask(handler, profile=HOSTILE, approve=False, apply=True)
    assert reply["type"] == "profile" and not reply["approved"] and not reply["applied"] and reply["changes"] == []
    actions = {item["name"]: item["action"] for item in reply["items"]}
    assert actions == {"LD_PRELOAD": "refused", "MGE_DEFAULT_DEVICE": "set"}
    assert dict(os.environ) == before


def test_approval_applies_the_catalog_part_and_is_remembered_for_that_exact_profile(handler, fresh_session):
    reply = ask(handler, profile=HOSTILE, approve=True, apply=True)
    assert reply["approved"] and reply["stored"] and reply["applied"]
    assert os.environ["MGE_DEFAULT_DEVICE"] == "cpu0" and "LD_PRELOAD" not in os.environ
    assert [c["source"] for c in reply["changes"]] == ["profile"]
    del os.environ["MGE_DEFAULT_DEVICE"]
    # A new kernel (a new handler and trust object): the same profile, in any key order, is applied without asking.
    again = ask(RequestHandler(fresh_session), profile=dict(reversed(list(HOSTILE.items()))), approve=False,
                apply=True)
    assert again["approved"] and again["applied"] and os.environ["MGE_DEFAULT_DEVICE"] == "cpu0"
    changed = ask(RequestHandler(fresh_session), profile={**HOSTILE, "MGE_DEFAULT_DEVICE": "cpu1"}, approve=False,
                  apply=True)
    assert not changed["approved"] and os.environ["MGE_DEFAULT_DEVICE"] == "cpu0"


def test_recording_an_approval_without_applying(handler):
    reply = ask(handler, profile={"MGE_DEFAULT_DEVICE": "gpu1"}, approve=True, apply=False)
    assert reply["approved"] and not reply["applied"] and "MGE_DEFAULT_DEVICE" not in os.environ


def test_malformed_profile_requests_are_refused(handler):
    before = dict(os.environ)
    for bad in ([], "LD_PRELOAD=1", {"A": 1}, {"A": None}, {str(i): "x" for i in range(1001)}):
        reply = ask(handler, profile=bad, approve=True, apply=True)
        assert reply["type"] == "error"
    assert dict(os.environ) == before
