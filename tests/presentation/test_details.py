"""The facts shown beside a variable (presentation/_details.py): when and where the framework reads it in words, its
default as an editor shows it, and the live call written out with the value in effect, or as a labelled example."""

from __future__ import annotations

import pytest

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.catalog import Entry, ReadWhen, catalog
from mgenv_jupyter.catalog._values import FreeText
from mgenv_jupyter.presentation._details import PRESENCE_NOTE, default_text, details, live_text, reading


def entry(name: str) -> Entry:
    found = catalog().get(name)
    assert found is not None, name
    return found


@pytest.mark.parametrize(("name", "english", "chinese"), [
    ("MGE_DEFAULT_DEVICE", "read at `import megengine`", "在 `import megengine` 时读取"),
    ("FLAGS_allocator_strategy", "read at `import paddle`; fixed at the first tensor allocation",
     "在 `import paddle` 时读取;在第一次分配张量内存时固定"),
    ("MXNET_ENGINE_TYPE", "read at the first NDArray operation (engine start)", "NDArray"),
    ("MEGENGINE_INPLACE_UPDATE", "read on every use", "每次使用时读取"),
    ("MXNET_KVSTORE_BIGARRAY_BOUND", "read each time the object is created", "每次创建对象时读取"),
    ("precision_mode", "NPURunConfig keyword", "NPURunConfig 关键字参数"),
    ("MXNET_EXEC_MATCH_RANGE", "no longer read; use NNVM_EXEC_MATCH_RANGE", "请改用 NNVM_EXEC_MATCH_RANGE"),
])
def test_when_a_variable_is_read_in_words_in_both_languages(name, english, chinese):
    assert reading(entry(name), "en") == english
    assert chinese in reading(entry(name), "zh")


def test_npu_run_config_defaults_are_shown_as_values_not_python_literals():
    assert entry("jit_compile").default == "'auto'" and default_text(entry("jit_compile")) == "auto"
    assert entry("precision_mode").default == "None" and default_text(entry("precision_mode")) is None
    assert default_text(entry("MGE_DEFAULT_DEVICE")) == "xpux"  # environment defaults are text already
    assert default_text(entry("CUDA_VISIBLE_DEVICES")) is None


def test_the_live_call_carries_the_value_in_effect_or_the_default_as_an_example():
    device = entry("MGE_DEFAULT_DEVICE")
    assert live_text(device, "gpu1") == ("megengine.set_default_device('gpu1')", False)
    assert live_text(device, None) == ("megengine.set_default_device('xpux')", True)
    assert live_text(entry("FLAGS_initial_gpu_memory_in_mb"), "2GB") == (
        "paddle.set_flags({'FLAGS_initial_gpu_memory_in_mb': 2048})", False)  # the parsed value, as Paddle takes it
    assert live_text(device, "tpu0") == (None, False)  # a value the framework would refuse is never written out
    assert live_text(entry("MXNET_ENGINE_TYPE"), "NaiveEngine") == (None, False)  # no live API


def test_a_secret_is_never_written_into_a_live_call():
    text = Text("probe", "探针")
    token = Entry(name="FLAGS_probe_token", framework="paddle", category=text, type=FreeText(), default=None,
                  when=ReadWhen.IMPORT, readers=("paddle",), read_at="probe", description=text,
                  live_api="paddle.set_flags")
    assert live_text(token, "abc") == (None, False)


def test_details_in_the_chosen_language():
    english = details(entry("MGE_DATALOADER_PLASMA_DEBUG"), None, "en")
    chinese = details(entry("MGE_DATALOADER_PLASMA_DEBUG"), None, "zh")
    assert english.note == PRESENCE_NOTE.en and chinese.note == PRESENCE_NOTE.zh  # a presence flag says 0 is on
    assert english.description != chinese.description and chinese.reading.startswith("在")
    threshold = details(entry("MEGENGINE_DTR_EVICTION_THRESHOLD"), "5368709120", "en")
    assert threshold.live == "megengine.dtr.eviction_threshold = 5368709120" and not threshold.live_example
    assert any("sscanf" in caveat for caveat in threshold.caveats) and threshold.note is None
    assert set(threshold.to_json()) == {"description", "reading", "read_at", "default", "allowed", "live",
                                        "live_example", "caveats", "replaced_by", "note"}
    assert details(entry("MXNET_EXEC_NUM_TEMP"), None).replaced_by == "NNVM_EXEC_NUM_TEMP"
