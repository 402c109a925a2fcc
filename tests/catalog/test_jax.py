"""The JAX catalog data (catalog/_jax.py): `JAX_*` options read into jax.config at import and changed live with
jax.config.update; XLA_FLAGS and the XLA client's memory settings read when the backend initialises; values as
jaxlib reads them."""

from __future__ import annotations

import re

import pytest

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.base._text import localised
from mgenv_jupyter.catalog import Catalog, ReadWhen
from mgenv_jupyter.catalog import _jax as jax
from mgenv_jupyter.runtime import EnvSession

CATALOG = Catalog(jax.ENTRIES)
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_entry_says_where_and_when_jax_reads_it_in_both_languages():
    for entry in CATALOG:
        assert entry.framework == "jax" and entry.readers == ("jax",), entry.name
        assert "0.10.2" in localised(entry.read_at, "en"), entry.name
        assert entry.description.en and CJK.search(entry.description.zh), entry.name
        if entry.name.startswith("JAX_"):
            assert entry.when is ReadWhen.IMPORT and entry.live_api == "jax.config.update", entry.name
        else:
            assert entry.when is ReadWhen.FIRST_USE and entry.latch == "jax.backends", entry.name


@pytest.mark.parametrize(("name", "raw", "text"), [
    ("XLA_PYTHON_CLIENT_PREALLOCATE", "off", "false"),  # jaxlib would read "off" as ON
    ("XLA_PYTHON_CLIENT_PREALLOCATE", "0", "false"),
    ("XLA_PYTHON_CLIENT_ALLOCATOR", "Platform", "platform"),
    ("JAX_ENABLE_X64", "1", "true"),
    ("JAX_PLATFORMS", "CPU", "cpu"),
    ("XLA_FLAGS", "--xla_force_host_platform_device_count=4", "--xla_force_host_platform_device_count=4"),
])
def test_values_are_written_as_jax_reads_them(name, raw, text):
    assert CATALOG.get(name).type.parse(raw).text == text  # type: ignore[union-attr]


def test_xla_flags_must_be_flags():
    with pytest.raises(InvalidValueError, match="space-separated XLA flags"):
        CATALOG.get("XLA_FLAGS").type.parse("xla_force_host_platform_device_count=4")  # type: ignore[union-attr]


def test_both_memory_fractions_at_once_are_refused_as_jax_would_fail():
    session = EnvSession(environ={})
    session.set({"XLA_CLIENT_MEM_FRACTION": "0.5"})
    with pytest.raises(InvalidValueError, match="cannot both be set: .*fail with ValueError"):
        session.set({"XLA_PYTHON_CLIENT_MEM_FRACTION": "0.4"})
    assert session.environ == {"XLA_CLIENT_MEM_FRACTION": "0.5"}
