"""What the frameworks' catalog homes say about running out of memory (catalog/_out_of_memory.py): every remedy sets
variables of its own framework's catalog to values the catalog takes, names causes the report knows, and works out
its values from what is set and from the GPU's figures."""

from __future__ import annotations

import pytest

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.catalog._homes import declared
from mgenv_jupyter.catalog._out_of_memory import (
    BytesOfRoom,
    ConfigKey,
    Fixed,
    Room,
    ShareOfRoom,
    Unless,
    name_in_use,
)
from mgenv_jupyter.oom._causes import Cause

GiB = 1024**3
NOTHING_SET: dict[str, str] = {}


def test_every_remedy_sets_its_own_frameworks_variables_to_values_the_catalog_takes():
    known = catalog()
    facts = declared(lambda each: each.out_of_memory)
    assert set(facts) == {"megengine", "mxnet", "paddle", "torch", "jax", "tensorflow"}
    for framework, declared_facts in facts.items():
        for remedy in declared_facts.remedies:
            assert {Cause(cause) for cause in remedy.causes}  # codes the report knows
            for setting in remedy.settings:
                names = getattr(setting, "names", None) or (setting.name,)
                for name in names:
                    assert known.get(name) is not None and known.get(name).framework == framework, name
                resolved = setting.resolve(known, NOTHING_SET.get, Room(40 * GiB, 8 * GiB))
                if resolved is None:  # the framework's default is the remedy already (Paddle's auto_growth)
                    assert isinstance(setting, Fixed) and setting.unless is Unless.READ
                    assert known.get(setting.name).default == setting.value
                    continue
                known.get(resolved.name).type.parse(resolved.value)  # the catalog takes it
        for own in declared_facts.causes:
            assert Cause(own.cause) and 0 < own.score <= 1
            assert (own.label is not None) == (own.cause not in ("cap",))  # a cause only it has is worded by it


def test_a_fixed_setting_is_left_out_as_the_framework_reads_what_is_set():
    known = catalog()
    mxnet = Fixed("MXNET_GPU_MEM_POOL_TYPE", "Round", Unless.SET)  # MXNet compares as written
    assert mxnet.resolve(known, {"MXNET_GPU_MEM_POOL_TYPE": "Round"}.get, Room(None, None)) is None
    assert mxnet.resolve(known, {"MXNET_GPU_MEM_POOL_TYPE": "round"}.get, Room(None, None)) is not None
    paddle = Fixed("FLAGS_allocator_strategy", "auto_growth", Unless.READ)  # auto_growth is Paddle's default
    assert paddle.resolve(known, NOTHING_SET.get, Room(None, None)) is None
    jax = Fixed("XLA_PYTHON_CLIENT_PREALLOCATE", "false", Unless.READ_ANY_CASE)
    assert jax.resolve(known, {"XLA_PYTHON_CLIENT_PREALLOCATE": "False"}.get, Room(None, None)) is None
    assert jax.resolve(known, NOTHING_SET.get, Room(None, None)).value == "false"  # the default preallocates


def test_values_worked_out_from_what_is_set_and_the_gpus_room():
    known = catalog()
    conf = ConfigKey(("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"), "expandable_segments", "True")
    kept = conf.resolve(known, {"PYTORCH_ALLOC_CONF": "max_split_size_mb:128"}.get, Room(None, None))
    assert kept is not None and kept.name == "PYTORCH_ALLOC_CONF"
    assert kept.value == "max_split_size_mb:128,expandable_segments:True"
    assert conf.resolve(known, {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:true"}.get, Room(None, None)) is None
    share = ShareOfRoom(("XLA_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_MEM_FRACTION"), 0.95, 0.05)
    assert share.resolve(known, NOTHING_SET.get, Room(40 * GiB, 20 * GiB)).value == "0.47"
    assert share.resolve(known, NOTHING_SET.get, Room(None, None)).value == "0.95"
    assert share.resolve(known, NOTHING_SET.get, Room(40 * GiB, 40 * GiB)).value == "0.05"
    threshold = BytesOfRoom("MEGENGINE_DTR_EVICTION_THRESHOLD", 0.8, 256 * 1024**2)
    worked = threshold.resolve(known, NOTHING_SET.get, Room(40 * GiB, 8 * GiB))
    assert worked is not None and int(worked.value) == int(32 * GiB * 0.8) // (256 * 1024**2) * (256 * 1024**2)
    assert worked.figures == {"threshold": int(worked.value), "share": 0.8, "spare": 32 * GiB}
    assert threshold.resolve(known, NOTHING_SET.get, Room(None, None)) is None and threshold.optional


@pytest.mark.parametrize(("set_names", "in_use"), [((), "XLA_PYTHON_CLIENT_MEM_FRACTION"),
                                                    (("XLA_CLIENT_MEM_FRACTION",), "XLA_CLIENT_MEM_FRACTION")])
def test_the_name_in_use_is_the_newest_set_else_the_oldest(set_names, in_use):
    values = {name: "0.5" for name in set_names}
    assert name_in_use(("XLA_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_MEM_FRACTION"), values.get) == in_use
