"""MegEngine's live APIs (runtime/frameworks/_megengine.py): each call written out with the value as MegEngine takes
it; applied only while megengine is loaded; read back from the interpreter's C++ options, not megengine.dtr's Python
cache; the DTR switch is dtr.enable()/disable(). A real module object stands for megengine here; real MegEngine is
checked in tests/frameworks/."""

from __future__ import annotations

import logging
import sys
import types
from typing import Any

import pytest

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.runtime.frameworks import group_api, live_api
from mgenv_jupyter.runtime.frameworks._megengine import GROUP_APIS, LIVE_APIS

GiB = 1024**3


def entry(name: str):
    found = catalog().get(name)
    assert found is not None, name
    return found


def module(name: str, **attributes: Any) -> types.ModuleType:
    made = types.ModuleType(name)
    vars(made).update(attributes)
    return made


class Interpreter:
    """What megengine's C++ interpreter and its Python wrappers hold, and every call made to them."""

    def __init__(self) -> None:
        self.options: dict[str, int] = {"dtr_eviction_threshold": 0, "enable_drop": 0}
        self.calls: list[tuple[str, Any]] = []
        self.device = "xpux"


@pytest.fixture
def megengine(monkeypatch) -> Interpreter:
    """A loaded "megengine" with the attributes the adapters use, gone after the test."""
    state = Interpreter()

    def record(what: str):
        return lambda *args: state.calls.append((what, args))

    def set_option(name: str, value: int) -> None:
        state.options[name] = value
        state.calls.append(("set_option", (name, value)))

    def set_device(device: str) -> None:
        state.device = device

    core2 = module("megengine.core._imperative_rt.core2", get_option=state.options.__getitem__, set_option=set_option)
    dtr = module("megengine.dtr", eviction_threshold=0, enable=record("dtr.enable"), disable=record("dtr.disable"))
    logger = module("megengine.logger", set_mgb_log_level=record("set_mgb_log_level"), _default_level=logging.INFO)
    mge = module("megengine", dtr=dtr, logger=logger, config=types.SimpleNamespace(async_level=2),
                 set_default_device=set_device, get_default_device=lambda: state.device,
                 set_log_level=record("set_log_level"))
    monkeypatch.setitem(sys.modules, "megengine", mge)
    monkeypatch.setitem(sys.modules, "megengine.core._imperative_rt", module("megengine.core._imperative_rt",
                                                                             core2=core2))
    return state


@pytest.mark.parametrize(("name", "raw", "call"), [
    ("MGE_DEFAULT_DEVICE", "GPU1", "megengine.set_default_device('gpu1')"),
    ("MEGENGINE_LOGGING_LEVEL", "DEBUG",
     "megengine.set_log_level('DEBUG'); megengine.logger.set_mgb_log_level('DEBUG')"),
    ("MEGENGINE_INTERP_ASYNC_LEVEL", "0", "megengine.config.async_level = 0"),
    ("MEGENGINE_DTR_EVICTION_THRESHOLD", "5GB", "megengine.dtr.eviction_threshold = 5368709120"),
    ("MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE", "2MB", "megengine.dtr.evictee_minimum_size = 2097152"),
    ("MEGENGINE_DTR_SQRT_SAMPLING", "1", "megengine.dtr.enable_sqrt_sampling = True"),
    ("MEGENGINE_ENABLE_DROP", "on", "megengine.core.set_option('enable_drop', 1)"),
    ("MEGENGINE_CATCH_WORKER_EXEC", "1", "megengine.core.set_option('catch_worker_execption', 1)"),
])
def test_the_call_is_written_with_the_value_as_megengine_takes_it(name, raw, call):
    variable = entry(name)
    assert variable.live_api is not None
    assert LIVE_APIS[variable.live_api].call(variable, variable.type.parse(raw).value) == call


def test_the_dtr_switch_is_written_as_enable_or_disable():
    switch = GROUP_APIS["megengine.dtr.enable"]
    assert (switch.call(True), switch.call(False)) == ("megengine.dtr.enable()", "megengine.dtr.disable()")


def test_nothing_is_offered_until_megengine_is_loaded(monkeypatch):
    monkeypatch.delitem(sys.modules, "megengine", raising=False)
    assert live_api(entry("MEGENGINE_DTR_EVICTION_THRESHOLD")) is None and group_api("megengine.dtr.enable") is None
    assert "megengine" not in sys.modules


def test_the_threshold_is_read_back_from_the_interpreter_not_the_python_cache(megengine):
    threshold = entry("MEGENGINE_DTR_EVICTION_THRESHOLD")
    api = live_api(threshold)
    assert api is not None
    megengine.options["dtr_eviction_threshold"] = 3 * GiB  # what the environment gave the interpreter at import
    assert sys.modules["megengine"].dtr.eviction_threshold == 0  # megengine.dtr's getter would say 0
    assert api.read(threshold) == str(3 * GiB)
    api.apply(threshold, 5 * GiB)
    assert sys.modules["megengine"].dtr.eviction_threshold == 5 * GiB


def test_interpreter_options_are_set_and_read_as_integers(megengine):
    drop = entry("MEGENGINE_ENABLE_DROP")
    api = live_api(drop)
    assert api is not None
    api.apply(drop, True)
    assert megengine.calls == [("set_option", ("enable_drop", 1))] and api.read(drop) == "1"


def test_the_log_level_is_set_on_both_loggers_as_the_environment_variable_does(megengine):
    level = entry("MEGENGINE_LOGGING_LEVEL")
    api = live_api(level)
    assert api is not None
    api.apply(level, "ERROR")
    assert megengine.calls == [("set_log_level", ("ERROR",)), ("set_mgb_log_level", ("ERROR",))]
    assert api.read(level) == "INFO"  # read back from megengine's own logger


def test_the_default_device_and_async_level_go_through_megengines_api(megengine):
    device, level = entry("MGE_DEFAULT_DEVICE"), entry("MEGENGINE_INTERP_ASYNC_LEVEL")
    device_api, level_api = live_api(device), live_api(level)
    assert device_api is not None and level_api is not None
    device_api.apply(device, "gpu1")
    level_api.apply(level, 0)
    assert (device_api.read(device), level_api.read(level)) == ("gpu1", "0")


def test_the_dtr_switch_calls_enable_and_disable(megengine):
    switch = group_api("megengine.dtr.enable")
    assert switch is not None and switch.available()
    switch.switch(True)
    switch.switch(False)  # disable() also clears the eviction candidates, which setting the options would not
    assert megengine.calls == [("dtr.enable", ()), ("dtr.disable", ())]
