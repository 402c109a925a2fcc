"""The catalog as a collection (mgenv_jupyter/catalog/__init__.py): lookup, selection by framework, category and
name, the frameworks in their order, and near-miss suggestions."""

from __future__ import annotations

import random
import re

import pytest

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.base._text import Text
from mgenv_jupyter.catalog import Catalog, Entry, ReadWhen, catalog
from mgenv_jupyter.catalog._values import Switch

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def single_typos(name: str, rng: random.Random) -> list[str]:
    """Every kind of single typo at random places: a letter dropped, changed, added, or two neighbours swapped."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz0123456789"
    out = set()
    for _ in range(6):
        i = rng.randrange(len(name))
        out.add(name[:i] + name[i + 1:])
        out.add(name[:i] + rng.choice(letters) + name[i + 1:])
        out.add(name[:i] + rng.choice(letters) + name[i:])
        if i + 1 < len(name):
            out.add(name[:i] + name[i + 1] + name[i] + name[i + 2:])
    return [v for v in out if v != name and v not in catalog() and _NAME.fullmatch(v)]


def test_every_single_typo_of_every_catalog_name_is_a_near_miss():
    """Found: 24% of single-typo variants passed without --force, typos in the prefix among them."""
    rng = random.Random(2026)
    missed = [(name, typo) for entry in catalog() for name in [entry.name] for typo in single_typos(name, rng)
              if catalog().near_miss(typo) is None]
    assert missed == []


@pytest.mark.parametrize("name", ["HOME", "PATH", "LANG", "TERM", "MY_VAR", "OMP_NUM_THREADS", "NCCL_DEBUG",
                                  "CUDA_DEVICE_ORDER", "HF_HOME", "WANDB_MODE", "PYTHONHASHSEED"])
def test_unrelated_names_are_not_near_misses(name):
    assert catalog().near_miss(name) is None


def test_near_misses_name_the_variable_meant():
    assert catalog().near_miss("MEGENGNE_DTR_EVICTION_THRESHOLD") == "MEGENGINE_DTR_EVICTION_THRESHOLD"
    assert catalog().near_miss("FLAG_alocator_strategy") == "FLAGS_allocator_strategy"  # two typos in a long name
    assert catalog().near_miss("mge_default_device") == "MGE_DEFAULT_DEVICE"


MEMORY = Text("Memory", "显存")


def entry(name: str, framework: str) -> Entry:
    return Entry(name=name, framework=framework, category=MEMORY, type=Switch(), default="0", when=ReadWhen.IMPORT,
                 readers=(framework,), read_at=framework, description=MEMORY)


def test_a_name_declared_twice_is_refused():
    with pytest.raises(ValueError, match="PROBE_A is declared twice"):
        Catalog((entry("PROBE_A", "paddle"), entry("PROBE_A", "mxnet")))


def test_known_frameworks_come_in_their_order_and_others_after_them():
    known = Catalog((entry("Z_ONE", "zeta"), entry("P_ONE", "paddle"), entry("M_ONE", "megengine"),
                     entry("A_ONE", "alpha")))
    assert known.frameworks() == ["megengine", "paddle", "zeta", "alpha"]


def test_select_keeps_the_names_in_the_order_given_and_applies_every_filter():
    known = catalog()
    chosen = known.select(names=["MGE_DEFAULT_DEVICE", "FLAGS_allocator_strategy", "MGE_DEFAULT_DEVICE"])
    assert [e.name for e in chosen] == ["MGE_DEFAULT_DEVICE", "FLAGS_allocator_strategy"]
    assert [e.name for e in known.select("paddle", names=["MGE_DEFAULT_DEVICE", "FLAGS_allocator_strategy"])] == [
        "FLAGS_allocator_strategy"]
    assert known.select(names="MGE_DEFAULT_DEVICE")[0].name == "MGE_DEFAULT_DEVICE"  # one name as a string
    memory = known.select("megengine", category="显存")  # a category matches its Chinese name too
    assert memory and {e.category.en for e in memory} == {"GPU memory"}
    assert len(known.select()) == len(known)


def test_select_refuses_an_unknown_framework_or_name_and_says_what_was_meant():
    with pytest.raises(InvalidValueError, match="unknown framework 'caffe': use one of megengine, mxnet, paddle"):
        catalog().select(framework="caffe")
    with pytest.raises(InvalidValueError, match="MGE_DEFAULT_DEVICEE is not a catalog variable; did you mean "
                                                "MGE_DEFAULT_DEVICE"):
        catalog().select(names=["MGE_DEFAULT_DEVICEE"])
    with pytest.raises(InvalidValueError, match="^HOME is not a catalog variable$"):
        catalog().select(names=["HOME"])


def test_the_catalog_is_built_once():
    assert catalog() is catalog()
    assert "MGE_DEFAULT_DEVICE" in catalog() and "HOME" not in catalog() and catalog().get("HOME") is None
