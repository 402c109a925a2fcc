"""PyTorch's allocator config as a typed key:value grammar (catalog/_allocator_config.py, keys in catalog/_torch.py):
what torch 2.13.0's parser accepts is accepted and written back normalised, and what it refuses — or would misread —
is refused with what is allowed. The differential check against torch's own parser is in tests/frameworks/."""

from __future__ import annotations

import re

import pytest

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.catalog._torch import ALLOCATOR_CONFIG


@pytest.mark.parametrize(("raw", "text"), [
    ("expandable_segments:True", "expandable_segments:True"),
    ("expandable_segments:true", "expandable_segments:True"),  # torch itself refuses "true"
    (" max_split_size_mb : 128 , expandable_segments : on ", "expandable_segments:True,max_split_size_mb:128"),
    ("roundup_power2_divisions:4", "roundup_power2_divisions:4"),
    ("roundup_power2_divisions:[256:1, 512:2, >:4]", "roundup_power2_divisions:[256:1,512:2,>:4]"),
    ("roundup_power2_divisions:[256:0]", "roundup_power2_divisions:[256:0]"),
    ("garbage_collection_threshold:.5", "garbage_collection_threshold:0.5"),
    ("backend:cudamallocasync,pinned_num_register_threads:8", "backend:cudaMallocAsync,pinned_num_register_threads:8"),
    ("per_process_memory_fraction:1", "per_process_memory_fraction:1.0"),
    ("max_split_size_mb:15,large_segment_size_mb:11", "max_split_size_mb:15,large_segment_size_mb:11"),
    ("", ""),
])
def test_accepted_settings_are_written_back_in_torchs_spelling_and_a_fixed_order(raw, text):
    assert ALLOCATOR_CONFIG.parse(raw).text == text


def test_the_value_is_each_key_with_its_normalised_text():
    parsed = ALLOCATOR_CONFIG.parse("max_split_size_mb:128,expandable_segments:yes")
    assert parsed.value == {"expandable_segments": "True", "max_split_size_mb": "128"}
    assert any("'yes' normalised to 'True'" in note for note in parsed.notes)


@pytest.mark.parametrize(("raw", "said"), [
    ("bogus:1", "unknown key 'bogus': use one of backend, expandable_segments"),
    ("max_split_size_mb:19", "max_split_size_mb: 19 is not allowed: expected at least large_segment_size_mb (20)"),
    ("large_segment_size_mb:64,max_non_split_rounding_mb:32", "expected at least large_segment_size_mb (64)"),
    ("max_split_size_mb:20.5", "expected a whole number from 11"),  # torch's stoull would read 20
    ("max_split_size_mb:30abc", "expected a whole number from 11"),  # ... and 30
    ("max_split_size_mb:-5", "expected a whole number from 11"),  # ... and 2**64 - 5
    ("garbage_collection_threshold:1.0", "strictly between 0 and 1"),
    ("garbage_collection_threshold:0", "strictly between 0 and 1"),
    ("roundup_power2_divisions:3", "a power of two for every size"),
    ("roundup_power2_divisions:[3:2]", "sizes are powers of two"),
    ("roundup_power2_divisions:[>:3]", "divisions are 0 or a power of two"),
    ("roundup_power2_divisions:[256:1", "has no closing ]"),
    ("expandable_segments:maybe", "expected True or False"),
    ("backend:foo", "expected one of native, cudaMallocAsync"),
    ("pinned_num_register_threads:256", "a power of two from 1 up to 128"),
    ("pinned_num_register_threads:3", "a power of two from 1 up to 128"),
    ("large_segment_size_mb:10", "a whole number from 11"),
    ("max_split_size_mb:100,max_split_size_mb:200", "max_split_size_mb is given twice"),
    ("max_split_size_mb", "'max_split_size_mb' needs a value"),
    ("max_split_size_mb:100:200", "expected a comma"),
    (",max_split_size_mb:100", "expected key:value pairs separated by commas"),
])
def test_what_torch_refuses_or_would_misread_is_refused_with_what_is_allowed(raw, said):
    with pytest.raises(InvalidValueError, match=re.escape(said)):
        ALLOCATOR_CONFIG.parse(raw)


def test_every_key_describes_itself_for_one_control_each():
    described = ALLOCATOR_CONFIG.describe()
    assert described["kind"] == "keyvalue"
    keys = {key["name"]: key for key in described["keys"]}
    assert keys["expandable_segments"]["type"]["choices"] == ["True", "False"]
    assert keys["backend"]["type"]["choices"] == ["native", "cudaMallocAsync"] and keys["backend"]["device_only"]
    assert keys["max_split_size_mb"]["at_least"] == "large_segment_size_mb"
    assert keys["garbage_collection_threshold"]["type"]["open"] is True
    assert all(key["description"] for key in described["keys"])


def test_a_dict_of_key_values_joins_into_the_normalised_string():
    assert ALLOCATOR_CONFIG.parse({"max_split_size_mb": 64, "expandable_segments": True,
                                   "garbage_collection_threshold": None}).text == \
        "expandable_segments:True,max_split_size_mb:64"
