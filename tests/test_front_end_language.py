"""One language on one screen: the kernel speaks the language of the JupyterLab its sidebar or a chart connects
from, unless the user chose one (%envlang, MGENV_LANG); an English JupyterLab keeps English."""

from __future__ import annotations

import time
import uuid

import pytest

from mgenv_jupyter.comm import RequestHandler
from mgenv_jupyter.protocol import PROTOCOL_VERSION
from mgenv_jupyter.text import current_language


def hello(language: str) -> dict:
    return {"v": PROTOCOL_VERSION, "id": uuid.uuid4().hex, "type": "hello", "language": language}


def test_the_sidebars_hello_sets_the_language_of_the_magics(ip, fresh_session, monkeypatch):
    monkeypatch.delenv("MGENV_LANG", raising=False)
    ip.run_line_magic("envlang", "auto")
    RequestHandler(fresh_session).handle(hello("zh"))
    assert current_language() == "zh"
    report = ip.run_line_magic("envset", "MEGENGINE_DTR_EVICTION_THRESHOLD=5GB")
    assert "导入时生效" in repr(report)  # %envset's report under the cell, in Chinese
    RequestHandler(fresh_session).handle(hello("en"))
    assert "takes effect at import" in repr(ip.run_line_magic("envset", "MEGENGINE_DTR_EVICTION_THRESHOLD=6GB"))


def test_an_explicit_choice_outlives_the_front_ends_language(ip, fresh_session, monkeypatch):
    monkeypatch.delenv("MGENV_LANG", raising=False)
    ip.run_line_magic("envlang", "en")
    try:
        RequestHandler(fresh_session).handle(hello("zh"))
        assert current_language() == "en"
    finally:
        ip.run_line_magic("envlang", "auto")
    assert current_language() == "zh"  # auto: the front end's again
    monkeypatch.setenv("MGENV_LANG", "en")
    assert current_language() == "en"


def test_a_bad_language_in_a_hello_is_refused_and_changes_nothing(fresh_session, monkeypatch):
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.delenv("MGENV_LANG", raising=False)
    [reply] = RequestHandler(fresh_session).handle(hello("fr"))
    assert reply["type"] == "error" and current_language() == "en"


def test_a_charts_hello_tells_its_language_and_the_sources_states_follow(monkeypatch):
    from mgenv_jupyter.widgets import MemoryChart

    monkeypatch.setenv("MGENV_SIMULATE_GPU", "a100-40gb")
    monkeypatch.delenv("MGENV_LANG", raising=False)
    chart = MemoryChart(interval=0.05)
    try:
        time.sleep(0.3)
        sent: list[dict] = []
        chart.send = sent.append  # type: ignore[method-assign]
        chart._on_front_end_message(chart, {"type": "memory.hello", "language": "zh"}, [])
        assert current_language() == "zh"
        [snapshot] = [m for m in sent if m["type"] == "memory.snapshot"]
        texts = {s["name"]: s["text"] for s in snapshot["sources"]}
        assert texts["paddle"] == "paddle 未导入" and snapshot["sources"][0]["state"]  # words for people, in Chinese
        chart._on_front_end_message(chart, {"type": "memory.hello", "language": "klingon"}, [])
        assert current_language() == "zh"  # not a language we speak: left alone
    finally:
        chart.close()


@pytest.mark.parametrize("language", ["en", "zh"])
def test_overlay_labels_come_in_the_kernels_language(fresh_session, language, monkeypatch):
    from mgenv_jupyter.memory.overlays import overlays
    from mgenv_jupyter.text import set_language

    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "8GB"}, source="api")
    set_language(language)
    try:
        [dtr] = [o for o in overlays(fresh_session, {"gpu0": 40 * 1024**3}, {"gpu0": 40 * 1024**3})
                 if o.kind == "dtr_threshold"]
    finally:
        set_language(None)
    assert dtr.label == {"en": "DTR eviction threshold (8 GiB)", "zh": "DTR 释放阈值(8 GiB)"}[language]
