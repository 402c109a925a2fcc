"""Which input a variable gets (presentation/_editor.py), decided once from its value type, so every front end draws
the same editor with the same choices, bounds and units."""

from __future__ import annotations

import pytest

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.presentation._editor import EditorSpec, editor_spec

MiB, GiB, TiB = 1024**2, 1024**3, 1024**4

def spec(name: str) -> EditorSpec:
    entry = catalog().get(name)
    assert entry is not None, name
    return editor_spec(entry)


def test_a_choice_offers_the_frameworks_values():
    strategy = spec("FLAGS_allocator_strategy")
    assert strategy.kind == "choice" and "naive_best_fit" in strategy.choices and not strategy.optional


def test_an_optional_npu_run_config_choice_offers_none_first():
    precision = spec("precision_mode")
    assert precision.kind == "choice" and precision.optional and precision.choices[0] == "None"
    assert "allow_mix_precision" in precision.choices


def test_an_optional_keyword_that_is_not_a_choice_is_text_where_empty_means_none():
    device = spec("session_device_id")
    assert (device.kind, device.optional, device.placeholder) == ("text", True, "None")


def test_switches_and_presence_flags():
    switch = spec("MEGENGINE_INPLACE_UPDATE")
    assert (switch.kind, switch.on, switch.off) == ("switch", "1", "0")
    presence = spec("MGE_DATALOADER_PLASMA_DEBUG")  # on whenever it exists: unchecked means unset, not "0"
    assert (presence.kind, presence.on, presence.off) == ("presence", "1", None)


def test_a_bounded_real_number_is_a_fraction_and_an_integer_range_a_number():
    fraction = spec("FLAGS_fraction_of_gpu_memory_to_use")
    assert (fraction.kind, fraction.minimum, fraction.maximum) == ("fraction", 0.0, 1.0)
    reserve = spec("MXNET_GPU_MEM_POOL_RESERVE")
    assert (reserve.kind, reserve.minimum, reserve.maximum, reserve.integer) == ("number", 0, 100, True)
    timeout = spec("MGB_CONV_PROFILING_TIMEOUT")  # a real number without an upper bound
    assert (timeout.kind, timeout.integer, timeout.maximum) == ("number", False, None)


@pytest.mark.parametrize(("name", "unit_bytes", "units"), [
    ("MEGENGINE_DTR_EVICTION_THRESHOLD", 1, ["B", "KiB", "MiB", "GiB", "TiB"]),
    ("FLAGS_initial_gpu_memory_in_mb", MiB, ["MiB", "GiB", "TiB"]),  # Paddle counts in MiB: nothing smaller is offered
])
def test_a_size_offers_only_units_the_framework_can_hold(name, unit_bytes, units):
    size = spec(name)
    assert size.kind == "size" and size.unit_bytes == unit_bytes and [unit for unit, _ in size.units] == units
    assert dict(size.units)["GiB"] == GiB and dict(size.units)["TiB"] == TiB


def test_a_number_without_a_default_is_text_so_not_set_can_be_shown():
    assert (spec("MGB_DEBUG_VAR_SANITY_CHECK_LOG").kind, spec("MGB_DEBUG_VAR_SANITY_CHECK_LOG").placeholder) == (
        "text", "not set")
    assert spec("MGE_DEFAULT_DEVICE").placeholder == "xpux"  # text shows the default when empty


def test_every_catalog_variable_gets_an_editor_whose_choices_its_type_accepts():
    for entry in catalog():
        editor = editor_spec(entry)
        for choice in editor.choices:
            entry.type.parse(choice)  # raises if a front end could offer a value the kernel refuses
        if editor.kind == "switch":
            assert entry.type.parse(editor.on).text == editor.on and entry.type.parse(editor.off).text == editor.off


def test_a_key_value_config_gets_one_typed_control_per_key_in_its_order():
    from mgenv_jupyter.presentation._editor import key_specs

    keys = {key.name: key for key in key_specs(catalog().get("PYTORCH_ALLOC_CONF").type)}
    assert list(keys)[:3] == ["backend", "expandable_segments", "max_split_size_mb"]
    assert (keys["expandable_segments"].editor.kind, keys["expandable_segments"].editor.on) == ("switch", "True")
    assert (keys["max_split_size_mb"].editor.kind, keys["max_split_size_mb"].editor.integer) == ("number", True)
    assert keys["max_split_size_mb"].editor.minimum == 11 and keys["max_split_size_mb"].default is None
    assert (keys["garbage_collection_threshold"].editor.kind, keys["garbage_collection_threshold"].editor.integer) \
        == ("number", False)
    assert keys["backend"].editor.choices == ("native", "cudaMallocAsync") and keys["backend"].default == "native"
    assert keys["roundup_power2_divisions"].editor.kind == "text"
    assert key_specs(catalog().get("FLAGS_allocator_strategy").type) == ()


def test_a_key_value_config_is_edited_key_by_key_in_every_front_end():
    """The kind is decided here, once: the widgets and the sidebar both get "key_value" with the keys above."""
    for name in ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"):
        conf = spec(name)
        assert conf.kind == "key_value" and [key.name for key in conf.keys][:2] == ["backend", "expandable_segments"]
    assert all(not spec(entry.name).keys for entry in catalog() if spec(entry.name).kind != "key_value")
