"""The TensorFlow catalog data (catalog/_tensorflow.py): logging and oneDNN read at import, thread pools at the eager
context's initialisation (live through tf.config.threading until then), GPU allocator settings at each GPU's first
use."""

from __future__ import annotations

import re

import pytest

from mgenv_jupyter.catalog import Catalog, ReadWhen
from mgenv_jupyter.catalog import _tensorflow as tensorflow

CATALOG = Catalog(tensorflow.ENTRIES)
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_entry_says_where_and_when_tensorflow_reads_it_in_both_languages():
    for entry in CATALOG:
        assert entry.framework == "tensorflow" and entry.readers == ("tensorflow",) and entry.read_at, entry.name
        assert entry.description.en and CJK.search(entry.description.zh), entry.name
        if entry.when is ReadWhen.FIRST_USE:
            assert entry.latch == "tensorflow.context" and entry.first_use is not None, entry.name


def test_the_reading_moments_follow_the_source():
    when = {e.name: e.when for e in CATALOG}
    assert when["TF_CPP_MIN_LOG_LEVEL"] is when["TF_ENABLE_ONEDNN_OPTS"] is ReadWhen.IMPORT
    assert when["TF_NUM_INTRAOP_THREADS"] is when["TF_NUM_INTEROP_THREADS"] is ReadWhen.FIRST_USE
    assert CATALOG.get("TF_NUM_INTRAOP_THREADS").live_api == "tensorflow.threading:intra_op"  # type: ignore[union-attr]


@pytest.mark.parametrize(("name", "raw", "text"), [
    ("TF_FORCE_GPU_ALLOW_GROWTH", "1", "true"),  # TensorFlow ignores "1" (only true/false)
    ("TF_FORCE_GPU_ALLOW_GROWTH", "False", "false"),
    ("TF_CPP_MIN_LOG_LEVEL", "ERROR", "2"),
    ("TF_GPU_HOST_MEM_LIMIT_IN_MB", "2GB", "2048"),
])
def test_values_are_written_as_tensorflow_reads_them(name, raw, text):
    assert CATALOG.get(name).type.parse(raw).text == text  # type: ignore[union-attr]
