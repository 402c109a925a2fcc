"""Code acts on codes, never on sentences (issue 30): with every English (and Chinese) text of the memory sources'
states and of the errors reworded — each wrapped in «…», the way a translator or an editor might change them — the
chart's data (the kernel's sampler's batches), the kernel's self-report for its server, the server's GPU view, the out-
of-memory recorder and the sidebar's error replies behave exactly as they do with the words as written.

The words are reworded where they are chosen: the state words' table (memory/_state_words.py `WORDS`, the frameworks'
own included, and how a part names its device) and the message of every `InvalidValueError`. The front end's side (the
chart's status line and legend, the sidebar's error handling) is labextension/tests/rewording.test.ts."""

from __future__ import annotations

import json
import os
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.base._source_state import STATE_OK
from mgenv_jupyter.base._text import Text
from mgenv_jupyter.comms._requests import RequestHandler
from mgenv_jupyter.memory import _state_words
from mgenv_jupyter.memory._framework_sources import framework_sources
from mgenv_jupyter.memory._gpu_processes import GpuProcessReader
from mgenv_jupyter.memory._host_source import HostSource
from mgenv_jupyter.memory._nvml_source import NvmlSource
from mgenv_jupyter.memory._sample import Sample
from mgenv_jupyter.memory._sampler import Sampler
from mgenv_jupyter.memory._self_report import report_path
from mgenv_jupyter.memory.simulated._fake_nvml import FakeDevice, FakeNvml, FakeProcess
from mgenv_jupyter.oom._recorder import Recorder
from mgenv_jupyter.protocol import PROTOCOL_VERSION
from mgenv_jupyter.server._attribution import attribute

GiB = 1024**3
FOREIGN = (1 << 22) + os.getpid()  # above any pid_max: a host pid seen from a container's own namespace


def _reword(text: Text) -> Text:
    return Text(f"«{text.en}»", f"«{text.zh}»")



def _forget_words() -> None:
    _state_words.state_text.cache_clear()
    _state_words.lead.cache_clear()


class Allocator:
    """A framework allocator's reading, as PyTorch's source gives it: what the kernel reserved on gpu0."""

    name = "torch"
    state = STATE_OK
    simulated = False

    def sample(self) -> list[Sample]:
        return [Sample(time.time(), "torch", "gpu0", framework="torch", reserved=3 * GiB, allocated=2 * GiB)]

    def close(self) -> None:
        pass


def chart(fake: FakeNvml) -> tuple[list[Any], list[str]]:
    """What the chart is sent about its sources (their states) by the kernel's sampler, and the words it shows."""
    with fake:
        nvml = NvmlSource()
        sampler = Sampler([nvml, *framework_sources(), HostSource(gpus=nvml)], interval=0.05)
        sampler.sample_once()
        sources = sampler.snapshot()["sources"]
        sampler.close()
    return [(s["name"], s["state"]) for s in sources], [s["text"] for s in sources]


def recorder(tmp_path: Path) -> tuple[bool, dict[str, Any] | None]:
    """Whether the out-of-memory recorder tells the server what the kernel holds (NVML's pids are another namespace's)
    and what its self-report file says."""
    tmp_path.mkdir()
    with FakeNvml([FakeDevice(total=40 * GiB, processes=[FakeProcess(FOREIGN, 4 * GiB)])]):
        sampler = Sampler([NvmlSource(), Allocator()], interval=0.05)
        watch = Recorder(interval=0.05, sampler_factory=lambda: sampler)
        watch._self_report.runtime_dir = str(tmp_path)
        watch._self_report.interval = 0
        path = report_path(tmp_path, os.getpid())
        try:
            watch.start()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not path.exists():
                sampler.sample_once()
                watch.ensure()
                sampler.flush()  # the batch goes to the subscribers: the self-report among them once it reports
                time.sleep(0.05)
            reporting = watch._reporting is not None
            report = json.loads(path.read_text()) if path.exists() else None
        finally:
            watch.stop()
            sampler.close()
    return reporting, None if report is None else report["devices"]


def server_view() -> list[tuple[str | None, str | None]]:
    """The server's GPU view's state code for each case NVML can be in (and whether it has a detail)."""
    views = []
    for fake in (FakeNvml(library=False), FakeNvml(driver=False), FakeNvml([]),
                 FakeNvml([FakeDevice(total=16 * GiB, processes=[FakeProcess(FOREIGN, GiB)])])):
        reader = GpuProcessReader()
        with fake:
            view = attribute(reader.read(), [], datetime.now(timezone.utc))
            reader.close()
        views.append((view["state"], view["namespace"]))
    return views


def errors(handler: RequestHandler) -> list[tuple[str, str | None, str]]:
    """What the sidebar is told of each refused request: the reply's type, field and code."""
    replies = []
    for assignments in ({"FLAGS_allocator_strategy": "fastest"}, {"FLAGS_alocator_strategy": "naive_best_fit"},
                        {"MGE_DEFAULT_DEVICE": "cpu0", "FLAGS_allocator_strategy": "fastest"}, {"1BAD": "x"},
                        {"MGE_DEFAULT_DEVICE": "tpu9"}):
        [reply] = handler.handle({"v": PROTOCOL_VERSION, "id": "r", "type": "set", "assignments": assignments,
                                  "source": "sidebar"})
        replies.append((reply["type"], reply["field"], reply["code"]))
    return replies


def behaviour(tmp_path: Path, handler: RequestHandler) -> dict[str, Any]:
    states, words = {}, {}
    for case, fake in (("no driver", FakeNvml(library=False)),
                       ("foreign pids", FakeNvml([FakeDevice(total=40 * GiB,
                                                             processes=[FakeProcess(FOREIGN, 4 * GiB)])])),
                       ("two devices", FakeNvml([FakeDevice(total=40 * GiB),
                                                 FakeDevice(total=40 * GiB, mig=True)]))):
        states[case], words[case] = chart(fake)
    return {"chart": states, "words": words, "recorder": recorder(tmp_path), "server": server_view(),
            "errors": errors(handler)}


@pytest.fixture
def handler(fresh_session: Any) -> RequestHandler:
    return RequestHandler(fresh_session)


def test_rewording_every_state_and_error_changes_no_behaviour(tmp_path: Path, handler: RequestHandler,
                                                             monkeypatch: pytest.MonkeyPatch):
    _forget_words()
    as_written = behaviour(tmp_path / "written", handler)
    monkeypatch.setattr(_state_words, "WORDS", {code: _reword(t) for code, t in _state_words.WORDS.items()})
    monkeypatch.setattr(_state_words, "_WHERE", _reword(_state_words._WHERE))  # "gpu1: <a part's words>"
    original = InvalidValueError.__init__

    def init(self: InvalidValueError, message: str = "", **codes: Any) -> None:
        original(self, f"«{message}»", **codes)

    monkeypatch.setattr(InvalidValueError, "__init__", init)
    _forget_words()
    try:
        reworded = behaviour(tmp_path / "reworded", handler)
        [refused] = handler.handle({"v": PROTOCOL_VERSION, "id": "r", "type": "set", "source": "sidebar",
                                    "assignments": {"FLAGS_allocator_strategy": "fastest"}})
    finally:
        monkeypatch.undo()
        _forget_words()
    # The rewording took effect: every state the chart is sent reads differently, and so does an error.
    for case, texts in reworded["words"].items():
        assert all(text.startswith("«") for text in texts), (case, texts)
        assert texts != as_written["words"][case]
    assert refused["message"].startswith("«")
    # And nothing acts differently.
    for part in ("chart", "recorder", "server", "errors"):
        assert reworded[part] == as_written[part], part
    # What the behaviour is, so that "the same" is not "the same nothing".
    chart_states = as_written["chart"]
    assert [state["code"] for _, state in chart_states["no driver"]][:2] == ["no_library", "not_imported"]
    assert chart_states["foreign pids"][0][1]["code"] == "foreign_pids"
    assert as_written["recorder"] == (True, {"0": {"bytes": 3 * GiB, "source": "torch"}})
    assert as_written["server"] == [("no_driver", "unknown"), ("no_driver", "unknown"), ("no_gpu", "unknown"),
                                    ("ok", "foreign")]
    assert as_written["errors"] == [("error", "FLAGS_allocator_strategy", "bad_value"),
                                    ("error", "FLAGS_alocator_strategy", "near_miss"),
                                    ("error", "FLAGS_allocator_strategy", "bad_value"),
                                    ("error", None, "bad_name"), ("error", "MGE_DEFAULT_DEVICE", "bad_value")]
