"""Entries, variables and changes as the sidebar receives them (mgenv_jupyter/presentation/_wire.py)."""

from __future__ import annotations

import json
import re
import warnings

import pytest
from framework_stand_ins import TorchGpu, install, torch_modules

from mgenv_jupyter import protocol
from mgenv_jupyter.base._text import Text
from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.catalog._secrets import MASK
from mgenv_jupyter.cluster._seen import AFTER_START, AT_START, MISSING, Seen
from mgenv_jupyter.cluster._verify_report import ClusterReport
from mgenv_jupyter.oom._causes import Cause, Finding
from mgenv_jupyter.oom._recognise import OutOfMemory
from mgenv_jupyter.oom._remedies import remedies
from mgenv_jupyter.oom._state import DeviceFigures, MemoryState
from mgenv_jupyter.presentation import _wire as wire
from mgenv_jupyter.presentation._wire import entry_info, framework_infos, result_reply, variable_info
from mgenv_jupyter.protocol._sidebar import VerifyNotice

from wire_check import check

CJK = re.compile(r"[\u4e00-\u9fff]")
MiB, GiB, TiB = 1024**2, 1024**3, 1024**4


def test_the_editor_the_sidebar_receives_carries_every_field_a_front_end_draws():
    """The one JSON form of an editor (units as objects), as the sidebar receives it in the catalog."""
    size = entry_info(catalog().get("FLAGS_initial_gpu_memory_in_mb"), "en")["editor"]
    assert size == {"kind": "size", "choices": [], "optional": False, "min": 0, "max": None, "integer": False,
                    "unit_bytes": MiB, "units": [{"name": "MiB", "bytes": MiB}, {"name": "GiB", "bytes": GiB},
                                                 {"name": "TiB", "bytes": TiB}], "on": None, "off": None,
                    "placeholder": "", "keys": []}


def test_a_key_value_configs_value_reaches_the_sidebar_with_its_keys_as_the_kernel_parsed_them(fresh_session):
    fresh_session.set({"PYTORCH_ALLOC_CONF": "expandable_segments:true, roundup_power2_divisions:[256:1,512:2]"})
    info = variable_info(fresh_session, "PYTORCH_ALLOC_CONF", "en")
    check(info, protocol.VariableInfo)
    assert info["keys"] == {"expandable_segments": "True", "roundup_power2_divisions": "[256:1,512:2]"}
    assert variable_info(fresh_session, "FLAGS_allocator_strategy", "en")["keys"] is None  # not such a config
    fresh_session.unset(["PYTORCH_ALLOC_CONF"])
    assert variable_info(fresh_session, "PYTORCH_ALLOC_CONF", "en")["keys"] is None


def test_a_key_value_config_reaches_the_sidebar_with_one_typed_editor_per_key_in_both_languages():
    for language in ("en", "zh"):
        editor = entry_info(catalog().get("PYTORCH_ALLOC_CONF"), language)["editor"]
        check(editor, protocol.EditorInfo)
        keys = {key["name"]: key for key in editor["keys"]}
        assert editor["kind"] == "key_value" and list(keys)[:3] == ["backend", "expandable_segments",
                                                                    "max_split_size_mb"]
        assert keys["expandable_segments"]["editor"]["kind"] == "switch"
        assert keys["expandable_segments"]["editor"]["on"] == "True"
        assert (keys["max_split_size_mb"]["editor"]["kind"], keys["max_split_size_mb"]["editor"]["min"]) == ("number",
                                                                                                           11)
        assert keys["backend"]["editor"]["choices"] == ["native", "cudaMallocAsync"]
        assert keys["backend"]["default"] == "native" and keys["max_split_size_mb"]["default"] is None
        assert bool(CJK.search(keys["backend"]["description"])) == (language == "zh")


def test_every_entry_in_both_languages_has_the_schemas_shape():
    for entry in catalog():
        english, chinese = entry_info(entry, "en"), entry_info(entry, "zh")
        check(english, protocol.EntryInfo, entry.name)
        assert english["name"] == chinese["name"] == entry.name
        assert CJK.search(chinese["description"]) and not CJK.search(english["description"]), entry.name


def test_frameworks_are_named_for_people(fresh_session):
    labels = {f["key"]: f["label"] for f in framework_infos(catalog(), "zh")}
    assert labels["paddle"] == "飞桨 PaddlePaddle" and labels["ascend"].startswith("昇腾")


def test_a_variable_shows_its_live_call_with_the_value_in_effect(fresh_session):
    fresh_session.set({"FLAGS_initial_gpu_memory_in_mb": "4096"})
    info = variable_info(fresh_session, "FLAGS_initial_gpu_memory_in_mb", "en")
    check(info, protocol.VariableInfo)
    assert info["live"] == "paddle.set_flags({'FLAGS_initial_gpu_memory_in_mb': 4096})" and not info["live_example"]
    assert info["applies"] is False and "auto_growth" in info["applies_reason"]


@pytest.mark.parametrize("cuda_initialised, status, restart", [
    (False, "pending_first_use", False), (True, "already_read", True)])
def test_a_remedys_restart_verdict_and_the_kernels_answer_to_its_click_agree(request, monkeypatch, cuda_initialised,
                                                                             status, restart):
    """Decided once, in the kernel: the report's remedy says `restart`, and the "result" of the click that sets it
    carries the same verdict and the status the sidebar then names (the labextension only labels them)."""
    install(monkeypatch, torch_modules(TorchGpu(cuda_initialised=cuda_initialised)))
    session = request.getfixturevalue("fresh_session")  # after the stand-in: the watcher sees torch as imported
    event = OutOfMemory("torch", "gpu", "x.Error", "", 0, 2 * GiB)
    state = MemoryState((DeviceFigures("gpu0", 0, 40 * GiB, 38 * GiB, 30 * GiB),
                         DeviceFigures("gpu1", 1, 40 * GiB, 1 * GiB, 0)))
    (move,) = remedies(event, [Finding(Cause.OTHER_PROCESS, 0.9, Text("", ""))], state, session)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reply = result_reply(session.set(list(move.assignments), source="oom_report"), "en", "request-1")
    check(reply, protocol.ResultReply)
    assert (reply["status"], reply["restart"]) == (status, restart) == (move.status.value, move.restart)
    nothing = result_reply(None, "en", "request-2")
    assert (nothing["status"], nothing["restart"], nothing["changes"]) == (None, False, [])


# ---- a verify() result as the sidebar receives it (verify_notice), from reports built from data ----

DTR = "MEGENGINE_DTR_EVICTION_THRESHOLD"
FLAG = "FLAGS_fraction_of_gpu_memory_to_use"
KEY = "WANDB_API_KEY"
TOKEN = "sk-proj-abcdefghijklmnopqrstuvwx"  # shaped like a credential, under an innocent name


def report() -> ClusterReport:
    return ClusterReport([], [
        Seen("node_a", DTR, "5368709120", "5368709120", True, AT_START),
        Seen("node_a", KEY, MASK, MASK, True, AT_START),
        Seen("node_b", DTR, "5368709120", "5", False, AFTER_START, ("megengine",)),
        Seen("node_b", FLAG, "0.5", None, False, MISSING),
        Seen("node_b", KEY, MASK, MASK, False, AT_START),
        Seen("node_b", "MGENV_NOTE", TOKEN, TOKEN, True, AT_START),
        Seen("node_b", "MGENV_LONG", "x" * 2000, "x" * 2000, True, AT_START),
    ], {"node_c": "ActorDiedError: the actor died unexpectedly before finishing this task"})


def test_the_notice_says_per_node_what_its_workers_hold_and_when_it_arrived():
    message = json.loads(json.dumps(wire.verify_notice(report(), 1700000000.5)))
    check(message, VerifyNotice)
    assert message["type"] == "verify" and message["time"] == 1700000000.5 and message["ok"] is False
    nodes = {node["node"]: node for node in message["nodes"]}
    assert [node["node"] for node in message["nodes"]] == ["node_a", "node_b", "node_c"]
    assert {name: (n["state"], n["ok"], n["mismatch"], n["missing"]) for name, n in nodes.items()} == {
        "node_a": ("ok", 2, 0, 0), "node_b": ("mismatch", 2, 2, 1), "node_c": ("lost", 0, 0, 0)}
    assert nodes["node_c"]["reason"].startswith("ActorDiedError") and nodes["node_c"]["variables"] == []
    a_dtr, b_dtr, b_flag = nodes["node_a"]["variables"][0], *nodes["node_b"]["variables"][:2]
    assert a_dtr == {"name": DTR, "secret": False, "expected": "5368709120", "seen": "5368709120", "matches": True,
                     "verdict": "ok", "arrived": "at_start", "imported_before": []}
    assert [v["verdict"] for v in nodes["node_b"]["variables"]] == ["differs", "missing", "differs", "ok", "ok"]
    assert (b_dtr["seen"], b_dtr["matches"], b_dtr["arrived"], b_dtr["imported_before"]) == (
        "5", False, "after_start", ["megengine"])
    assert (b_flag["expected"], b_flag["seen"], b_flag["arrived"]) == ("0.5", None, "missing")
    long = nodes["node_b"]["variables"][-1]
    assert len(long["seen"]) == wire.MAX_VALUE and long["seen"].endswith("…")


def test_secrets_travel_only_as_match_or_mismatch():
    message = wire.verify_notice(report(), 0.0)
    secrets = [v for node in message["nodes"] for v in node["variables"] if v["name"] in (KEY, "MGENV_NOTE")]
    assert [(v["name"], v["matches"]) for v in secrets] == [(KEY, True), (KEY, False), ("MGENV_NOTE", True)]
    assert all(v["secret"] and v["expected"] is None and v["seen"] is None for v in secrets)
    text = json.dumps(message)
    assert TOKEN not in text and MASK not in text


def test_try_several_values_is_offered_only_where_the_type_gives_two_values_to_compare():
    """The sidebar's "Try several values…" inserted a one-value sweep for a path or free text (issue 37, finding 16):
    such a variable gets no button."""
    offered = {name: entry_info(catalog().get(name), "en")["sweep"]
               for name in ("CUDA_BIN_PATH", "MGE_DEFAULT_DEVICE", "FLAGS_allocator_strategy",
                            "MGB_SUBLINEAR_MEMORY_THRESH_NR_TRY", "MEGENGINE_DTR_EVICTION_THRESHOLD")}
    assert offered == {"CUDA_BIN_PATH": False, "MGE_DEFAULT_DEVICE": False, "FLAGS_allocator_strategy": True,
                       "MGB_SUBLINEAR_MEMORY_THRESH_NR_TRY": True, "MEGENGINE_DTR_EVICTION_THRESHOLD": True}
