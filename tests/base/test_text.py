"""The language of every description (base/_text.py): Chinese or English, from `set_language()` (%envlang), else
MGENV_LANG, else the language of the JupyterLab whose sidebar or chart connected, else the locale; anything but "zh" or
"en" is refused."""

from __future__ import annotations

import locale
import uuid
from collections.abc import Iterator

import pytest
from waiting import wait_until

from mgenv_jupyter.base import _text as text
from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.base._kernel_state import kernel_state
from mgenv_jupyter.base._text import (
    CHOSEN_LANGUAGE,
    FRONT_END_LANGUAGE,
    Text,
    current_language,
    learn_language,
    set_language,
)
from mgenv_jupyter.comms._requests import RequestHandler
from mgenv_jupyter.protocol import PROTOCOL_VERSION

LOCALE_VARIABLES = ("MGENV_LANG", "LC_ALL", "LC_MESSAGES", "LANG")
GREETING = Text("hello", "你好")


@pytest.fixture(autouse=True)
def no_language_chosen(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No language chosen, no locale variables: each test says what the user's machine has."""
    monkeypatch.setitem(kernel_state().values, CHOSEN_LANGUAGE, None)
    monkeypatch.setitem(kernel_state().values, FRONT_END_LANGUAGE, None)
    text._language_from_locale.cache_clear()
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(locale, "getlocale", lambda *args: (None, None))
    yield
    text._language_from_locale.cache_clear()  # the machine's own locale is read again after the test


@pytest.mark.parametrize(("variables", "language"), [
    ({"MGENV_LANG": "zh"}, "zh"),
    ({"MGENV_LANG": "zh_CN.UTF-8"}, "zh"),
    ({"MGENV_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),  # MGENV_LANG wins over the locale
    ({"LANG": "zh_TW.UTF-8"}, "zh"),
    ({"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),  # LC_ALL before LANG, as the C library reads them
    ({"LC_MESSAGES": "zh_CN.UTF-8"}, "zh"),
    ({"LANG": "de_DE.UTF-8"}, "en"),  # neither Chinese nor English: English
    ({}, "en"),
])
def test_the_language_comes_from_mgenv_lang_then_the_locale(monkeypatch, variables, language):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert current_language() == language
    assert GREETING.get() == ("你好" if language == "zh" else "hello")


def test_the_locale_of_the_process_counts_when_no_variable_says(monkeypatch):
    monkeypatch.setattr(locale, "getlocale", lambda *args: ("zh_CN", "UTF-8"))
    assert current_language() == "zh"


def test_a_malformed_locale_does_not_break_loading(monkeypatch):
    def malformed(*args):
        raise ValueError("unknown locale: xx")

    monkeypatch.setattr(locale, "getlocale", malformed)
    assert current_language() == "en"


def test_set_language_wins_until_it_is_given_none(monkeypatch):
    monkeypatch.setenv("MGENV_LANG", "en")
    assert set_language("zh") == "zh" and GREETING.get() == "你好"
    monkeypatch.setenv("MGENV_LANG", "en_GB")
    assert current_language() == "zh"  # the user's choice stands whatever the environment says
    assert set_language(None) == "en"  # back to MGENV_LANG


def test_a_language_other_than_chinese_or_english_is_refused_and_changes_nothing():
    set_language("zh")
    with pytest.raises(InvalidValueError, match="unknown language 'fr': use one of en, zh"):
        set_language("fr")
    assert current_language() == "zh"


def test_a_text_can_be_asked_for_in_either_language_whatever_is_chosen():
    set_language("zh")
    assert (GREETING.get("en"), GREETING.get("zh"), GREETING.get()) == ("hello", "你好", "你好")


def test_the_front_ends_language_counts_unless_the_user_chose_one(monkeypatch):
    """A JupyterLab set to 中文 makes the kernel speak Chinese when its sidebar or a chart connects; %envlang and
    MGENV_LANG are explicit choices and stay; an English JupyterLab keeps English."""
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert learn_language("zh") == "zh" and GREETING.get() == "你好"
    assert learn_language("en") == "en"
    learn_language("zh")
    monkeypatch.setenv("MGENV_LANG", "en")
    assert current_language() == "en"  # MGENV_LANG chose
    monkeypatch.delenv("MGENV_LANG")
    set_language("en")
    assert current_language() == "en"  # %envlang en chose
    assert set_language(None) == "zh"  # %envlang auto: the front end's again
    with pytest.raises(InvalidValueError, match="unknown language"):
        learn_language("fr")
    assert current_language() == "zh"


# The kernel learns the front end's language from the sidebar's hello and a chart's: one language on one screen.
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
        wait_until(lambda: chart.sampler.history.count >= 2, what="the chart's first samples (its sources' states)")
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
    from mgenv_jupyter.base._text import set_language
    from mgenv_jupyter.memory._overlays import overlays
    from mgenv_jupyter.memory._sample import DeviceId

    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "8GB"}, source="api")
    set_language(language)
    gpu0 = {DeviceId("gpu0"): 40 * 1024**3}
    try:
        [dtr] = [o for o in overlays(fresh_session, gpu0, gpu0) if o.kind == "dtr_threshold"]
    finally:
        set_language(None)
    assert dtr.label == {"en": "DTR eviction threshold (8 GiB)", "zh": "DTR 释放阈值(8 GiB)"}[language]
