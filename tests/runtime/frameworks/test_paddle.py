"""Paddle's live API (runtime/frameworks/_paddle.py): `paddle.set_flags` written out with the value as Paddle takes it,
applied and read back with `paddle.get_flags` only when Paddle is loaded. A real module object stands for Paddle here;
real Paddle is checked in tests/frameworks/."""

from __future__ import annotations

import sys
import types

import pytest

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.runtime.frameworks import live_api
from mgenv_jupyter.runtime.frameworks._paddle import LIVE_APIS

SET_FLAGS = LIVE_APIS["paddle.set_flags"]


def entry(name: str):
    found = catalog().get(name)
    assert found is not None, name
    return found


@pytest.mark.parametrize(("name", "raw", "call"), [
    ("FLAGS_allocator_strategy", "naive_best_fit", "paddle.set_flags({'FLAGS_allocator_strategy': 'naive_best_fit'})"),
    ("FLAGS_fraction_of_gpu_memory_to_use", "0.5", "paddle.set_flags({'FLAGS_fraction_of_gpu_memory_to_use': 0.5})"),
    ("FLAGS_initial_gpu_memory_in_mb", "1GB", "paddle.set_flags({'FLAGS_initial_gpu_memory_in_mb': 1024})"),
    ("FLAGS_init_allocated_mem", "1", "paddle.set_flags({'FLAGS_init_allocated_mem': True})"),
])
def test_the_call_is_written_with_the_value_as_paddle_takes_it(name, raw, call):
    variable = entry(name)
    assert SET_FLAGS.call(variable, variable.type.parse(raw).value) == call


def test_apply_is_offered_only_while_paddle_is_loaded_and_reads_back_what_paddle_holds(monkeypatch):
    strategy = entry("FLAGS_allocator_strategy")
    monkeypatch.delitem(sys.modules, "paddle", raising=False)
    assert live_api(strategy) is None
    flags = {"FLAGS_allocator_strategy": "auto_growth"}
    paddle = types.ModuleType("paddle")
    vars(paddle).update(set_flags=flags.update, get_flags=lambda names: {name: flags[name] for name in names})
    monkeypatch.setitem(sys.modules, "paddle", paddle)
    api = live_api(strategy)
    assert api is SET_FLAGS
    api.apply(strategy, "naive_best_fit")
    assert flags == {"FLAGS_allocator_strategy": "naive_best_fit"} and api.read(strategy) == "naive_best_fit"
