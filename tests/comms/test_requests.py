"""The sidebar's comm, kernel side: requests and replies, 10,000 malformed messages, and a real kernel's comm."""

from __future__ import annotations

import json
import os
import random
import time
import uuid

import pytest

from mgenv_jupyter.base._errors import CodeLoadingWarning
from mgenv_jupyter.cluster._last_verify import VERIFIES
from mgenv_jupyter.comms._requests import RequestHandler
from mgenv_jupyter.oom._report import reports
from mgenv_jupyter.presentation.oom import OomText
from mgenv_jupyter.protocol import PROTOCOL_VERSION


@pytest.fixture
def handler(fresh_session):
    return RequestHandler(fresh_session)


def request(kind: str, **fields) -> dict:
    return {"v": PROTOCOL_VERSION, "id": uuid.uuid4().hex, "type": kind, **fields}


def test_hello_sends_the_catalog_then_the_state(handler):
    catalog, state = handler.handle(request("hello", language="zh"))
    assert catalog["type"] == "catalog" and catalog["language"] == "zh"
    names = {e["name"] for e in catalog["entries"]}
    assert {"MGE_DEFAULT_DEVICE", "FLAGS_allocator_strategy", "MXNET_ENGINE_TYPE", "precision_mode"} <= names
    device = next(e for e in catalog["entries"] if e["name"] == "MGE_DEFAULT_DEVICE")
    assert any("\u4e00" <= ch <= "\u9fff" for ch in device["description"])
    assert state["type"] == "state" and state["variables"]["MGE_DEFAULT_DEVICE"]["status"] == "unset"
    assert json.loads(json.dumps(catalog)) == catalog  # plain JSON


def test_set_goes_through_the_session_with_source_sidebar(handler, fresh_session):
    [result] = handler.handle(request("set", assignments={"MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB"},
                                      source="sidebar"))
    assert result["type"] == "result" and result["changes"][0]["new"] == "5368709120"
    assert os.environ["MEGENGINE_DTR_EVICTION_THRESHOLD"] == "5368709120"
    assert fresh_session.history[-1].source == "sidebar"
    [result] = handler.handle(request("unset", names=["MEGENGINE_DTR_EVICTION_THRESHOLD"], source="sidebar"))
    assert "MEGENGINE_DTR_EVICTION_THRESHOLD" not in os.environ and fresh_session.history[-1].source == "sidebar"


def test_a_profile_cannot_be_smuggled_in_as_a_set_request(handler):
    """Profiles go through the "profile" request and its approval; "set" with source "profile" is refused."""
    before = dict(os.environ)
    [reply] = handler.handle(request("set", assignments={"MGE_DEFAULT_DEVICE": "cpu0"}, source="profile"))
    assert reply["type"] == "error" and "source must be one of sidebar" in reply["message"]
    assert dict(os.environ) == before


def test_code_loading_variables_need_force_from_the_sidebar(handler, fresh_session):
    before = dict(os.environ)
    for name in ("LD_PRELOAD", "PYTHONPATH", "BASH_ENV", "GIT_EXTERNAL_DIFF", "PIP_INDEX_URL", "https_proxy"):
        msg = request("set", assignments={name: "/tmp/evil"}, source="sidebar")
        [reply] = handler.handle(msg)
        assert reply["type"] == "error" and reply["reply_to"] == msg["id"], name
        assert '"force": true' in reply["message"] and name in reply["message"]
    assert dict(os.environ) == before
    with pytest.warns(CodeLoadingWarning, match="PIP_INDEX_URL changes where package installers fetch"):
        [reply] = handler.handle(request("set", assignments={"PIP_INDEX_URL": "https://mirror.example/simple"},
                                         source="sidebar", force=True))
    assert reply["type"] == "result" and os.environ["PIP_INDEX_URL"] == "https://mirror.example/simple"


def test_a_remedy_clicked_in_an_oom_report_names_only_the_kernels_own_remedy(handler, fresh_session, monkeypatch):
    """The report's buttons send a "remedy" request naming the kernel's ids, nothing else (issue 19): the kernel sets
    the remedy its own last report holds (source "oom_report": catalog variables only, never force). A forged id, an
    id of an earlier report, an old-style "set" with source "oom_report" (whatever it carries) and extra fields are
    refused and change nothing."""
    import dataclasses

    from mgenv_jupyter.base._text import Text
    from mgenv_jupyter.oom import _report as oom_report
    from mgenv_jupyter.oom._causes import Cause
    from mgenv_jupyter.oom._recognise import recognise
    from mgenv_jupyter.oom._remedies import Remedy
    from mgenv_jupyter.presentation.oom._text import OomText
    from mgenv_jupyter.presentation.oom._wire import oom_data

    monkeypatch.setattr(reports(), "_value", None)
    remedy = Remedy(Cause.FRAGMENTATION, (("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"),),
                    Text("why", "why"), restart=False)
    before, history = dict(os.environ), len(fresh_session.history)

    def refused(message: dict, words: str) -> None:
        [reply] = handler.handle(message)
        assert reply["type"] == "error" and words in reply["message"], (message, reply["message"])
        assert dict(os.environ) == before and len(fresh_session.history) == history

    refused(request("remedy", report_id="0" * 16, remedy_id="0" * 16 + "-0"), "nothing was changed")  # no report yet
    made = oom_report.build_report(recognise(MemoryError()), None, fresh_session)
    earlier = dataclasses.replace(made, remedies=(remedy,), key="e" * 16)
    oom_report.remember(earlier)
    report = dataclasses.replace(made, remedies=(remedy,))
    oom_report.remember(report)
    [shown] = oom_data(OomText(report, "en"))["remedies"]  # what the button shows and sends back
    assert shown["envset"] == remedy.envset and shown["assignments"] == [list(p) for p in remedy.assignments]
    assert shown["id"] == report.remedy_id(0) and oom_data(OomText(report, "en"))["id"] == report.key
    for report_id, remedy_id in (
        (report.key, report.key + "-1"),  # no such remedy in the report
        (report.key, "forged"),
        ("forged", report.remedy_id(0)),
        (earlier.key, earlier.remedy_id(0)),  # a stale report's button
        (report.key, earlier.remedy_id(0)),
    ):
        refused(request("remedy", report_id=report_id, remedy_id=remedy_id),
                "not one of this kernel's last out-of-memory report")
    refused(request("remedy", report_id=report.key), "'remedy_id'")
    refused(request("remedy", report_id=report.key, remedy_id=["x"]), "'remedy_id'")
    for assignments, force in ((dict(remedy.assignments), False), (dict(remedy.assignments), True),
                               ({"LD_PRELOAD": "/tmp/evil.so"}, False)):  # the old path, even with a real remedy
        refused(request("set", assignments=assignments, source="oom_report", force=force), "source must be one of")
    refused(request("unset", names=["PYTORCH_CUDA_ALLOC_CONF"], source="oom_report"), "source must be one of")
    [result] = handler.handle(request("remedy", report_id=report.key, remedy_id=shown["id"],
                                      assignments={"LD_PRELOAD": "/tmp/evil.so"}, force=True))  # extra fields: ignored
    assert result["type"] == "result" and result["changes"][0]["source"] == "oom_report"
    assert os.environ["PYTORCH_CUDA_ALLOC_CONF"] == "expandable_segments:True" and "LD_PRELOAD" not in os.environ
    assert fresh_session.history[-1].source == "oom_report" and len(fresh_session.history) == history + 1


@pytest.mark.parametrize(("assignments", "words"), [
    ({"LD_PRELOAD": "/tmp/evil.so"}, "out-of-memory report's button never sets it"),
    ({"MY_SETTING": "1"}, "sets catalog variables only"),
    ({"XLA_FLAGS": "--xla_gpu_cuda_data_dir=/shared/cuda"}, "never sets it"),
    ({"OPENSSL_CONF": "/tmp/evil.cnf"}, "never sets it"),
])
def test_the_report_source_is_held_to_catalog_data_by_the_session_too(fresh_session, assignments, words):
    """Below the comm, the session's own rule for source "oom_report": whatever reached it, never more than data."""
    from mgenv_jupyter.base._errors import InvalidValueError

    before = dict(os.environ)
    with pytest.raises(InvalidValueError, match=words):
        fresh_session.set(assignments, source="oom_report")
    with pytest.raises(InvalidValueError):
        fresh_session.set(assignments, source="oom_report", force=True)
    assert dict(os.environ) == before


class RecordingComm:
    """What SidebarComm needs of an ipykernel Comm: what it sent, and its message and close callbacks."""

    def __init__(self) -> None:
        self.sent: list[dict] = []
        self.on_message = self.on_closed = None

    def send(self, data: dict) -> None:
        self.sent.append(json.loads(json.dumps(data)))

    def on_msg(self, callback) -> None:
        self.on_message = callback

    def on_close(self, callback) -> None:
        self.on_closed = callback


def test_every_open_sidebar_gets_the_out_of_memory_report_and_a_later_one_gets_it_after_hello(fresh_session,
                                                                                               monkeypatch):
    from mgenv_jupyter.comms._requests import SidebarComm
    from mgenv_jupyter.oom import _report as oom_report
    from mgenv_jupyter.oom._recognise import recognise

    monkeypatch.setattr(reports(), "_value", None)
    monkeypatch.setattr(VERIFIES.last(), "_value", None)  # a hello sends the last verify() too: none here
    early = RecordingComm()
    SidebarComm(early, fresh_session)
    early.on_message({"content": {"data": request("hello", language="zh")}})
    assert [m["type"] for m in early.sent] == ["catalog", "state"]  # no report yet
    report = oom_report.build_report(recognise(MemoryError()), None, fresh_session)
    oom_report.remember(report)
    assert early.sent[-1]["type"] == "oom" and early.sent[-1]["report"]["language"] == "zh"
    assert early.sent[-1]["report"]["headline"].startswith("主机内存不足")
    late = RecordingComm()
    SidebarComm(late, fresh_session)
    late.on_message({"content": {"data": request("hello", language="en")}})
    assert [m["type"] for m in late.sent] == ["catalog", "state", "oom"]
    assert late.sent[-1]["report"]["headline"].startswith("Out of memory on the host (builtins.MemoryError)")
    early.on_closed()
    before = len(early.sent)
    oom_report.remember(report)
    assert len(early.sent) == before and late.sent[-1]["type"] == "oom"  # a closed sidebar is told nothing
    late.on_closed()


def verify_report():
    """A verify() result as the kernel builds it, from data (no Ray here): node_b's worker holds another value and a
    secret that differs, node_c did not answer."""
    from mgenv_jupyter.catalog._secrets import MASK
    from mgenv_jupyter.cluster._verify import AFTER_START, AT_START, ClusterReport, Seen

    dtr = "MEGENGINE_DTR_EVICTION_THRESHOLD"
    return ClusterReport([], [
        Seen("node_a", dtr, "5368709120", "5368709120", True, AT_START),
        Seen("node_a", "WANDB_API_KEY", MASK, MASK, True, AT_START),
        Seen("node_b", dtr, "5368709120", "5", False, AFTER_START, ("megengine",)),
        Seen("node_b", "WANDB_API_KEY", MASK, MASK, False, AT_START)],
        {"node_c": "ActorDiedError: the actor died unexpectedly"})


def test_every_open_sidebar_gets_the_last_verify_result_and_a_later_one_gets_it_after_hello(fresh_session,
                                                                                            monkeypatch):
    from mgenv_jupyter.cluster import _last_verify as last_verify
    from mgenv_jupyter.comms._requests import SidebarComm

    monkeypatch.setattr(VERIFIES.last(), "_value", None)
    monkeypatch.setattr(reports(), "_value", None)  # a hello sends the last OOM report too: none
    early = RecordingComm()
    SidebarComm(early, fresh_session)
    early.on_message({"content": {"data": request("hello", language="en")}})
    assert [m["type"] for m in early.sent] == ["catalog", "state"]  # nothing verified yet
    last_verify.remember(verify_report())
    notice = early.sent[-1]
    assert notice["type"] == "verify" and notice["ok"] is False
    assert [(n["node"], n["state"], n["ok"], n["mismatch"]) for n in notice["nodes"]] == [
        ("node_a", "ok", 2, 0), ("node_b", "mismatch", 0, 2), ("node_c", "lost", 0, 0)]
    b_dtr, b_key = notice["nodes"][1]["variables"]
    assert (b_dtr["expected"], b_dtr["seen"], b_dtr["arrived"], b_dtr["imported_before"]) == (
        "5368709120", "5", "after_start", ["megengine"])
    assert (b_key["secret"], b_key["matches"], b_key["expected"], b_key["seen"]) == (True, False, None, None)
    late = RecordingComm()
    SidebarComm(late, fresh_session)
    late.on_message({"content": {"data": request("hello", language="zh")}})
    assert [m["type"] for m in late.sent] == ["catalog", "state", "verify"]
    assert late.sent[-1] == notice  # the same result, made at the same time
    late.on_message({"content": {"data": request("refresh")}})
    assert late.sent[-1]["type"] == "state"  # only a hello brings it again
    early.on_closed()
    before = len(early.sent)
    last_verify.remember(verify_report())
    assert len(early.sent) == before and late.sent[-1]["type"] == "verify"  # a closed sidebar is told nothing
    late.on_closed()


def test_verify_request_runs_verify_only_where_ray_is_initialised(handler, fresh_session, monkeypatch):
    """The sidebar's button is a JSON request, never code: without Ray connected in the kernel it says how, in the
    sidebar's language; with it, the kernel runs cluster.verify() with its session (stubbed here: no Ray in this
    tier; tests/ray_cluster runs the real one)."""
    import importlib
    import sys
    import types

    verify_module = importlib.import_module("mgenv_jupyter.cluster._verify")  # the package exports the function
    calls: list[dict] = []
    monkeypatch.setattr(verify_module, "verify", lambda **kwargs: calls.append(kwargs))
    monkeypatch.delitem(sys.modules, "ray", raising=False)
    [reply] = handler.handle(request("verify"))
    assert reply["type"] == "error" and reply["message"].startswith("Ray is not initialised in this kernel")
    handler.handle(request("hello", language="zh"))
    ray = types.ModuleType("ray")
    ray.is_initialized = lambda: False  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ray", ray)
    [reply] = handler.handle(request("verify"))
    assert reply["type"] == "error" and reply["message"].startswith("此内核中尚未初始化 Ray") and calls == []
    ray.is_initialized = lambda: True  # type: ignore[attr-defined]
    msg = request("verify")
    [reply] = handler.handle(msg)
    assert reply == {"v": PROTOCOL_VERSION, "type": "result", "reply_to": msg["id"], "changes": [],
                     "status": None, "restart": False}
    assert calls == [{"session": fresh_session, "timeout": 30.0}]

    def lost(**kwargs):
        raise ConnectionError("the cluster went away")

    monkeypatch.setattr(verify_module, "verify", lost)
    [reply] = handler.handle(request("verify"))
    assert reply["type"] == "error" and reply["message"] == "verify() failed: ConnectionError: the cluster went away"


def test_every_reply_carries_its_request_id_even_for_an_internal_error(handler, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom with sk-proj-abcdefghijklmnopqrstu inside")

    monkeypatch.setattr(handler.env, "history_window", broken)
    msg = request("refresh")
    [reply] = handler.handle(msg)
    assert reply == {"v": PROTOCOL_VERSION, "type": "error", "reply_to": msg["id"],
                     "message": "internal error (RuntimeError); nothing was changed", "field": None,
                     "code": "internal"}


def test_lone_surrogates_and_oversize_values_change_nothing_and_every_reply_has_its_id(handler, fresh_session):
    """Fuzzing: lone surrogates (which no environment can encode), NULs and values past the per-variable cap, mixed
    into otherwise valid batches. Each request is answered with its id, and nothing is ever half applied."""
    rng = random.Random(8)
    before = dict(os.environ)
    surrogates = ["\ud800", "\udbff", "a\ud800b", "\ud83d"]  # \udc80-\udcff are bytes (surrogateescape): allowed
    bad_values = [*surrogates, "x\x00y", "v" * (33 * 1024), "w" * 140_000]
    for _ in range(2000):
        good = {f"FUZZ_GOOD_{i}": "ok" for i in range(rng.randrange(0, 4))}
        bad_name = rng.choice(["FUZZ_BAD", "MGE_DEFAULT_DEVICE", "FUZZ_\ud800", "x" * 300])
        batch = {**good, bad_name: rng.choice(bad_values)}
        items = list(batch.items())
        rng.shuffle(items)
        msg = request("set", assignments=dict(items), source="sidebar")
        [reply] = handler.handle(msg)
        assert reply["type"] == "error" and reply["reply_to"] == msg["id"]
        assert len(reply["message"]) < 2000
    assert dict(os.environ) == before and fresh_session.history == []


def test_history_is_a_window_not_everything(handler, fresh_session):
    for i in range(260):
        fresh_session.set({"WINDOW_TEST": str(i)})
    hello = handler.handle(request("hello", language="en"))
    state = hello[1]
    assert state["history_total"] == 260 and len(state["history"]) == 100
    assert [c["seq"] for c in state["history"]] == list(range(161, 261))
    [older] = handler.handle(request("history", before=161, limit=50))
    assert older["type"] == "history" and [c["seq"] for c in older["changes"]] == list(range(111, 161))
    assert older["total"] == 260
    [bad] = handler.handle(request("history", before=None, limit=100_000))
    assert bad["type"] == "error" and "'limit'" in bad["message"]


def test_invalid_value_is_an_error_reply_and_changes_nothing(handler):
    before = dict(os.environ)
    msg = request("set", assignments={"MGE_DEFAULT_DEVICE": "gpu0", "FLAGS_allocator_strategy": "fastest"})
    [reply] = handler.handle(msg)
    assert reply["type"] == "error" and reply["reply_to"] == msg["id"] and "naive_best_fit" in reply["message"]
    assert dict(os.environ) == before


def test_an_error_reply_names_its_field_and_its_code_for_the_sidebar_to_act_on(handler):
    """The sidebar puts an error under the editor of the variable it is about: the reply says which (`field`) and
    what kind of error (`code`), so that nothing reads the message's words."""
    cases = [
        ({"FLAGS_allocator_strategy": "fastest"}, "FLAGS_allocator_strategy", "bad_value"),
        ({"FLAGS_alocator_strategy": "naive_best_fit"}, "FLAGS_alocator_strategy", "near_miss"),
        ({"MGE_DEFAULT_DEVICE": "cpu0", "FLAGS_allocator_strategy": "fastest"}, "FLAGS_allocator_strategy",
         "bad_value"),
        ({"1BAD": "x"}, None, "bad_name"),
    ]
    for assignments, field, code in cases:
        [reply] = handler.handle(request("set", assignments=assignments, source="sidebar"))
        assert (reply["type"], reply["field"], reply["code"]) == ("error", field, code), (assignments, reply)
    [bad] = handler.handle(request("set", assignments=[], source="sidebar"))
    assert (bad["field"], bad["code"]) == (None, "bad_request")


def test_code_like_names_are_only_data(handler):
    before = dict(os.environ)
    [reply] = handler.handle(request("set", assignments={"__import__('os').system('touch /tmp/x')": "1"}))
    assert reply["type"] == "error" and "not a valid variable name" in reply["message"]
    assert dict(os.environ) == before


VALID = [
    lambda: request("hello", language="en"),
    lambda: request("set", assignments={"MGE_DEFAULT_DEVICE": "cpu0"}, source="sidebar", force=False, env_only=False),
    lambda: request("unset", names=["MGE_DEFAULT_DEVICE"], source="sidebar"),
    lambda: request("refresh"),
]
JUNK = [None, True, 0, -1, 1.5, "", "x" * 300, [], {}, [1, 2], {"a": 1}, "gpu0", "\x00", float("nan")]


def malformed(rng: random.Random) -> dict | object:
    """A message broken in at least one way the protocol forbids."""
    choice = rng.randrange(9)
    if choice == 0:
        return rng.choice(JUNK)
    msg = rng.choice(VALID)()
    if choice == 1:
        msg.pop(rng.choice(["v", "id", "type"]))
    elif choice == 2:
        msg["v"] = rng.choice([0, 2, 99, "1", None, True, 1.0])
    elif choice == 3:
        msg["type"] = rng.choice(["", "SET", "exec", "execute", "set ", None, 7, "hello\x00"])
    elif choice == 4:
        msg["id"] = rng.choice([None, 5, [], "x" * 1000])
    elif choice == 5:
        msg = request("set", assignments=rng.choice([{}, [], "A=1", {"A": 1}, {"A": None}, {"1A": "x"},
                                                       {"": "x"}, {"MGE_DEFAULT_DEVICE": "tpu9"},
                                                       {"FLAGS_alocator_strategy": "auto_growth"},
                                                       {"MEGENGINE_DTR_EVICTION_THRESHOLD": "5 GiBs"}]))
    elif choice == 6:
        msg = request("set", assignments={"MGE_DEFAULT_DEVICE": "cpu0"},
                      **rng.choice([{"source": "magic"}, {"source": 3}, {"force": "yes"}, {"env_only": 1}]))
    elif choice == 7:
        msg = request("unset", names=rng.choice([[], "A", [1], [None], ["NEVER_SET_X"], ["bad name"]]))
    else:
        msg = request("memory", **rng.choice([{}, {"on": "yes"}, {"on": True, "interval": 0},
                                              {"on": True, "interval": "fast"}, {"on": True, "interval": 1e9}]))
    return msg


def test_ten_thousand_malformed_messages(handler, fresh_session):
    rng = random.Random(20261122)
    before = dict(os.environ)
    for _ in range(10_000):
        message = malformed(rng)
        replies = handler.handle(message)
        assert len(replies) == 1 and replies[0]["type"] == "error", message
        assert replies[0]["message"]
    assert dict(os.environ) == before and fresh_session.history == []


@pytest.mark.slow
@pytest.mark.kernel
def test_comm_in_a_real_kernel():
    """Open the comm from outside as JupyterLab does, over a real kernel's channels."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    try:
        client.execute_interactive("%load_ext mgenv_jupyter", timeout=60)
        comm_id = uuid.uuid4().hex
        client.session.send(client.shell_channel.socket, client.session.msg(
            "comm_open", {"comm_id": comm_id, "target_name": "mgenv_jupyter", "data": {}}))

        def send(data):
            client.session.send(client.shell_channel.socket,
                                client.session.msg("comm_msg", {"comm_id": comm_id, "data": data}))

        def receive(kind, timeout=30):
            deadline = time.time() + timeout
            while time.time() < deadline:
                msg = client.get_iopub_msg(timeout=deadline - time.time())
                data = msg["content"].get("data", {})
                if msg["msg_type"] == "comm_msg" and msg["content"]["comm_id"] == comm_id and data["type"] == kind:
                    return data
            raise TimeoutError(kind)

        send(request("hello", language="en"))
        assert len(receive("catalog")["entries"]) > 100
        send(request("set", assignments={"MXNET_ENGINE_TYPE": "NaiveEngine"}, source="sidebar"))
        assert receive("result")["changes"][0]["source"] == "sidebar"
        during = []  # messages caused by the cell (the kernel's "changed" notice among them) go to the output hook
        client.execute_interactive("%envset MGE_DEFAULT_DEVICE=gpu1", timeout=30, output_hook=during.append)
        changed = next(m["content"]["data"] for m in during
                       if m["msg_type"] == "comm_msg" and m["content"]["data"]["type"] == "changed")
        assert changed["variables"]["MGE_DEFAULT_DEVICE"]["value"] == "gpu1"
        send({"v": 1, "id": "x", "type": "exec", "code": "import os"})
        assert "unknown request type" in receive("error")["message"]
        outputs = []
        client.execute_interactive("import os; print(os.environ['MXNET_ENGINE_TYPE'])", timeout=30,
                                   output_hook=lambda m: outputs.append(m["content"].get("text", "")))
        assert "NaiveEngine" in "".join(outputs)
        targets = "from comm import get_comm_manager; print(sorted(get_comm_manager().targets))"
        seen = []
        client.execute_interactive("%unload_ext mgenv_jupyter\n" + targets, timeout=30,
                                   output_hook=lambda m: seen.append(m["content"].get("text", "")))
        client.execute_interactive("%load_ext mgenv_jupyter\n%reload_ext mgenv_jupyter\n" + targets, timeout=30,
                                   output_hook=lambda m: seen.append(m["content"].get("text", "")))
        unloaded, reloaded = [text for text in seen if text.startswith("[")]
        assert "'mgenv_jupyter'" not in unloaded and reloaded.count("'mgenv_jupyter'") == 1
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_a_sweep_cell_request_gets_a_cell_to_insert_and_changes_nothing(fresh_session):
    from mgenv_jupyter.comms._requests import RequestHandler

    handler = RequestHandler(fresh_session)
    before = dict(os.environ)
    (reply,) = handler.handle(request("sweep_cell", name="FLAGS_allocator_strategy"))
    assert reply["type"] == "sweep_cell" and reply["reply_to"]
    first, *rest = reply["code"].splitlines()
    assert first == "%%envsweep FLAGS_allocator_strategy=auto_growth,naive_best_fit,thread_local"
    assert rest and rest[-1].startswith("# Replace this line with the code to measure")
    (refused,) = handler.handle(request("sweep_cell", name="NOT_A_CATALOG_NAME"))
    assert refused["type"] == "error" and dict(os.environ) == before and fresh_session.history == []


def test_after_memfree_the_report_offers_nothing_twice_and_its_button_says_what_was_given_back(ip, fresh_session,
                                                                                             monkeypatch):
    """Issue 29, point 6, as demo.ipynb does it: a call holding a 256 MiB array fails, the report offers to free it,
    %memfree frees it. The open sidebar hears of the report again, with no offer and what was given back; the
    report's button then frees nothing twice (it answers with that free, and marks nothing on the chart), and a
    second %memfree does not claim to have freed a failed cell. (It printed "Freed what the failed cell held"
    above "no failed cell is held", and marked "freed 1.54 MiB".)"""
    from mgenv_jupyter.comms._requests import SidebarComm
    from mgenv_jupyter.memory._shared import kernel_sampler
    from mgenv_jupyter.oom import _report as oom_report

    monkeypatch.setattr(reports(), "_value", None)
    sidebar = RecordingComm()
    SidebarComm(sidebar, fresh_session)
    sidebar.on_message({"content": {"data": request("hello", language="en")}})
    assert [m["last_report"] for m in sidebar.sent if m["type"] == "state"] == [None]  # none yet, said so
    try:
        ip.run_cell("import numpy as np\n\ndef step():\n    activations = np.ones(256 * 1024**2, dtype=np.uint8)\n"
                    "    raise MemoryError('stand-in: the next allocation did not fit')\n\nstep()", store_history=True)
        report = oom_report.last_report()
        assert report is not None
        offered = sidebar.sent[-1]
        # A panel that says hello now is told which report is the kernel's last: another one shown is stale.
        (_, state) = RequestHandler(fresh_session).handle(request("hello", language="en"))
        assert state["last_report"] == report.key
        assert offered["type"] == "oom" and offered["report"]["free"] is not None and not offered["report"].get("freed")
        marks = len(kernel_sampler().marks)
        ip.run_line_magic("memfree", "")
        told = sidebar.sent[-1]
        assert told["type"] == "oom" and told["report"]["id"] == report.key, told["type"]
        assert told["report"]["free"] is None and told["report"]["freed"]["summary"].startswith("Given back at ")
        assert len(kernel_sampler().marks) == marks + 1
        # The report's button, clicked where the offer was still shown (a notebook whose panel was closed meanwhile).
        (answer,) = RequestHandler(fresh_session).handle(request("free", report_id=report.key))
        assert answer["type"] == "freed" and answer["result"]["headline"].startswith("Given back already at "), answer
        assert "nothing freed again" in answer["result"]["headline"]
        assert len(kernel_sampler().marks) == marks + 1  # nothing freed, nothing marked
        (stale,) = RequestHandler(fresh_session).handle(request("free", report_id="0" * 16))
        assert stale["type"] == "error" and "nothing was freed" in stale["message"]
        again = repr(ip.run_line_magic("memfree", ""))
        assert again.startswith("No failed cell was held any more, so none was freed; memory now: "), again
        shown = "\n".join(OomText(report, "en").lines())
        assert "Given back at " in shown and "%memfree — Free what the failed cell holds" not in shown
    finally:
        sidebar.on_closed()  # its observers leave with it
