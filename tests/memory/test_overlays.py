"""The lines drawn over the memory chart (memory/_overlays.py): each device's total, MegEngine's DTR eviction threshold
and Paddle's first-chunk cap, from the framework when it is loaded, else from what the kernel's session will hand it."""

from __future__ import annotations

import sys
import types
from typing import get_type_hints

from mgenv_jupyter.memory._nvml_source import NvmlSource
from mgenv_jupyter.memory._overlays import Overlay, overlays
from mgenv_jupyter.memory._sample import DeviceId
from mgenv_jupyter.memory._sampler import Sampler
from mgenv_jupyter.memory.simulated._fake_nvml import FakeDevice, FakeNvml
from mgenv_jupyter.protocol import OverlayInfo
from mgenv_jupyter.runtime.frameworks._paddle import PADDLE_FLAGS

GiB = 1024**3


def test_dtr_threshold_and_paddle_cap_overlays_follow_the_session(fresh_session):
    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB", "MEGENGINE_DTR_AUTO_DROP": "1",
                       "FLAGS_allocator_strategy": "naive_best_fit", "FLAGS_fraction_of_gpu_memory_to_use": "0.5"})
    with FakeNvml([FakeDevice(total=40 * GiB), FakeDevice(total=16 * GiB)]):
        s = Sampler([NvmlSource()], session=fresh_session)
        s.sample_once()
        lines = {line.key: line for line in s.overlays}
        s.close()
    assert lines["dtr_threshold:*"].bytes == 5 * GiB and "environment" in lines["dtr_threshold:*"].note
    assert lines["paddle_cap:gpu0 (simulated)"].bytes == 20 * GiB
    assert lines["paddle_cap:gpu1 (simulated)"].bytes == 8 * GiB
    assert "naive_best_fit" in lines["paddle_cap:gpu0 (simulated)"].note
    assert lines["total:gpu1 (simulated)"].bytes == 16 * GiB


def test_no_paddle_cap_under_auto_growth_and_no_dtr_line_at_zero(fresh_session):
    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "0", "FLAGS_allocator_strategy": "auto_growth"})
    with FakeNvml([FakeDevice(total=40 * GiB)]):
        s = Sampler([NvmlSource()], session=fresh_session)
        s.sample_once()
        kinds = {line.kind for line in s.overlays}
        s.close()
    assert kinds == {"total"}


def test_an_overlay_is_sent_with_exactly_the_wires_fields():
    """The line the sampler keeps and the wire's OverlayInfo (schema.ts is generated from it) declare the same fields
    with the same types, the key aside; to_json() sends them all, the key first."""
    assert get_type_hints(OverlayInfo) == {"key": str, **get_type_hints(Overlay)}
    line = Overlay("dtr_threshold", None, 5 * GiB, "DTR eviction threshold (5 GiB)", "DTR", "from the environment")
    assert line.to_json() == {"key": "dtr_threshold:*", "kind": "dtr_threshold", "device": None, "bytes": 5 * GiB,
                              "label": "DTR eviction threshold (5 GiB)", "short": "DTR", "note": "from the environment",
                              "series": None, "node": None}
    assert list(line.to_json()) == list(get_type_hints(OverlayInfo))


# ---- overlays() itself, with stand-ins for the frameworks' own APIs ---------------------------------------------

def loaded(monkeypatch, name: str, **attributes: object) -> types.ModuleType:
    """A real module object standing for a loaded framework (only what overlays read), gone after the test."""
    module = types.ModuleType(name)
    for key, value in attributes.items():
        setattr(module, key, value)
    monkeypatch.setitem(sys.modules, name, module)
    return module


def loaded_megengine(monkeypatch, options: dict[str, int]) -> None:
    """megengine with its interpreter's C++ options, as megengine.core._imperative_rt.core2 exposes them."""
    loaded(monkeypatch, "megengine")
    core2 = loaded(monkeypatch, "megengine.core._imperative_rt.core2", get_option=options.__getitem__)
    loaded(monkeypatch, "megengine.core._imperative_rt", core2=core2)


GPU0 = DeviceId("gpu0")


def by_key(lines) -> dict[str, Overlay]:
    return {line.key: line for line in lines}


def test_without_a_session_only_the_device_totals_are_drawn(fresh_session):
    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB"})
    lines = overlays(None, {GPU0: 40 * GiB, DeviceId("host"): 64 * GiB}, {GPU0: 40 * GiB})
    assert [(line.key, line.bytes, line.label, line.short) for line in lines] == [
        ("total:gpu0", 40 * GiB, "gpu0 total (40 GiB)", "gpu0 total"),
        ("total:host", 64 * GiB, "host total (64 GiB)", "host total")]
    assert lines[0].to_json() == {"key": "total:gpu0", "kind": "total", "device": "gpu0", "bytes": 40 * GiB,
                                  "label": "gpu0 total (40 GiB)", "short": "gpu0 total",
                                  "note": "the device's memory", "series": "gpu0 total", "node": None}


def test_short_labels_name_the_device_only_when_there_are_several(fresh_session):
    fresh_session.set({"FLAGS_allocator_strategy": "naive_best_fit", "FLAGS_fraction_of_gpu_memory_to_use": "0.5"})
    one = {DeviceId("gpu0", simulated=True): 40 * GiB}
    assert [(line.short, line.label) for line in overlays(fresh_session, one, one)] == [
        ("total", "gpu0 (simulated) total (40 GiB)"), ("Paddle", "Paddle first chunk (20 GiB)")]
    two = {DeviceId("gpu0", simulated=True): 16 * GiB, DeviceId("gpu1", simulated=True): 16 * GiB}
    assert [line.short for line in overlays(fresh_session, two, two)] == [
        "gpu0 total", "gpu1 total", "Paddle gpu0", "Paddle gpu1"]


def test_the_dtr_line_says_when_auto_drop_is_off(fresh_session):
    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "6GB"})
    line = by_key(overlays(fresh_session, {}, {}))["dtr_threshold:*"]
    assert line.bytes == 6 * GiB and line.label == "DTR eviction threshold (6 GiB)" and line.short == "DTR"
    assert "reads it at import" in line.note and "auto drop is off" in line.note


def test_a_loaded_megengine_is_asked_instead_of_the_environment(fresh_session, monkeypatch):
    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "6GB", "MEGENGINE_DTR_AUTO_DROP": "1"})
    loaded_megengine(monkeypatch, {"dtr_eviction_threshold": 3 * GiB, "enable_dtr_auto_drop": 0})
    line = by_key(overlays(fresh_session, {}, {}))["dtr_threshold:*"]
    assert line.bytes == 3 * GiB and "megengine's live option" in line.note and "auto drop is off" in line.note
    loaded_megengine(monkeypatch, {"dtr_eviction_threshold": 0, "enable_dtr_auto_drop": 1})
    assert "dtr_threshold:*" not in by_key(overlays(fresh_session, {}, {}))  # 0: DTR evicts only when out of memory


def test_paddles_first_chunk_is_its_initial_size_when_one_is_set(fresh_session):
    fresh_session.set({"FLAGS_allocator_strategy": "naive_best_fit", "FLAGS_initial_gpu_memory_in_mb": "2048",
                       "FLAGS_fraction_of_gpu_memory_to_use": "0.5"})
    line = by_key(overlays(fresh_session, {}, {GPU0: 40 * GiB}))["paddle_cap:gpu0"]
    assert line.bytes == 2 * GiB and "FLAGS_initial_gpu_memory_in_mb=2048" in line.note


def test_a_loaded_paddle_is_asked_for_its_flags(fresh_session, monkeypatch):
    flags = {"FLAGS_allocator_strategy": "naive_best_fit", "FLAGS_fraction_of_gpu_memory_to_use": 0.25,
             "FLAGS_initial_gpu_memory_in_mb": 0}
    loaded(monkeypatch, "paddle", get_flags=lambda names: {name: flags[name] for name in names})
    line = by_key(overlays(fresh_session, {}, {GPU0: 16 * GiB}))["paddle_cap:gpu0"]  # nothing set in the session
    assert line.bytes == 4 * GiB and "0.25 × total" in line.note


def test_a_framework_that_fails_to_answer_just_gives_no_line(fresh_session, monkeypatch):
    def broken(names):
        raise RuntimeError("paddle is in a bad state")

    loaded(monkeypatch, "paddle", get_flags=broken)
    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "1GB"})
    assert set(by_key(overlays(fresh_session, {GPU0: 16 * GiB}, {GPU0: 16 * GiB}))) == {
        "total:gpu0", "dtr_threshold:*"}


def test_paddles_cap_is_drawn_exactly_where_the_catalogs_rule_says_its_pool_size_applies(fresh_session):
    """The overlay asks the catalog's `applies_when` (Paddle's pool sizes only matter under naive_best_fit) rather
    than restating it: for every strategy, and with either flag sizing the chunk, a cap is drawn exactly when the
    presentation layer says the sizing flag applies (the row every front end does not grey out), for the same reason."""
    from mgenv_jupyter.presentation import present

    strategy = fresh_session.catalog.get("FLAGS_allocator_strategy")
    assert strategy is not None
    checked = 0
    for choice in strategy.type.choices():
        for sizing, values in (("FLAGS_fraction_of_gpu_memory_to_use", {"FLAGS_fraction_of_gpu_memory_to_use": "0.5"}),
                               ("FLAGS_initial_gpu_memory_in_mb", {"FLAGS_initial_gpu_memory_in_mb": "2048"})):
            fresh_session.unset(list(PADDLE_FLAGS))
            fresh_session.set({"FLAGS_allocator_strategy": choice, **values})
            rule = present(fresh_session, sizing, "en").applicability
            caps = [line for line in overlays(fresh_session, {}, {GPU0: 40 * GiB}) if line.kind == "paddle_cap"]
            assert bool(caps) == rule.applies, (choice, sizing)
            if caps:
                assert rule.reason and rule.reason in caps[0].note
            checked += rule.applies
    assert checked == 2  # naive_best_fit, with each sizing flag: the rule does hold somewhere


def test_the_lines_speak_the_pages_language_whatever_envlang_chose_for_outputs(fresh_session):
    """Issue 38, point 7: a chart is drawn by the page, so its lines' words follow the language the page told (the
    sidebar or a chart said hello in English), not `%envlang zh`, which is for what the kernel writes into outputs."""
    from mgenv_jupyter.base import _text

    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB"})
    one = {DeviceId("gpu0", simulated=True): 40 * GiB}
    try:
        _text.learn_language("en")
        _text.set_language("zh")
        english = [(line.label, line.short) for line in overlays(fresh_session, one, one)]
        _text.learn_language("zh")
        chinese = [line.short for line in overlays(fresh_session, one, one)]
    finally:
        _text.set_language(None)
        _text.learn_language(None)
    assert english[0] == ("gpu0 (simulated) total (40 GiB)", "total") and english[1][0].startswith("DTR"), english
    assert chinese[0] == "总量", chinese
