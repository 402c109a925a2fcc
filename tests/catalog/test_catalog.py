"""The catalog as a collection: lookup and near-miss suggestions (mgenv_jupyter/catalog/__init__.py)."""

from __future__ import annotations

import random
import re

import pytest

from mgenv_jupyter.catalog import catalog

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
