"""MegEngine's run-time APIs: default device, log level, async level, DTR, and the interpreter's C++ options.

Read-backs go to the C++ option (`core2.get_option`) where one exists: `megengine.dtr`'s getters return a Python-side
cache that ignores what the environment set at import.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from ...catalog import Entry
from . import GroupApi, LiveApi


def _mge() -> Any:
    return sys.modules["megengine"]


def _core2() -> Any:
    from megengine.core._imperative_rt import core2  # already loaded with megengine

    return core2


def _option(name: str) -> LiveApi:
    def apply(entry: Entry, value: Any) -> None:
        _core2().set_option(name, int(value))

    def read(entry: Entry) -> str:
        return str(_core2().get_option(name))

    return LiveApi("megengine", apply, read, lambda entry, value: f"megengine.core.set_option({name!r}, {int(value)})")


def _dtr_size(attribute: str, option: str) -> LiveApi:
    def apply(entry: Entry, value: Any) -> None:
        setattr(_mge().dtr, attribute, int(value))

    def read(entry: Entry) -> str:
        return str(_core2().get_option(option))

    return LiveApi("megengine", apply, read, lambda entry, value: f"megengine.dtr.{attribute} = {int(value)}")


def _set_sqrt_sampling(entry: Entry, value: Any) -> None:
    _mge().dtr.enable_sqrt_sampling = bool(value)


def _set_device(entry: Entry, value: Any) -> None:
    _mge().set_default_device(str(value))


def _set_log_level(entry: Entry, value: Any) -> None:
    mge = _mge()
    mge.set_log_level(value)
    mge.logger.set_mgb_log_level(value)  # the environment variable sets both, so the live change does too


def _set_async_level(entry: Entry, value: Any) -> None:
    _mge().config.async_level = int(value)


LIVE_APIS: dict[str, LiveApi] = {
    "megengine.set_default_device": LiveApi(
        "megengine", _set_device, lambda e: str(_mge().get_default_device()),
        lambda e, value: f"megengine.set_default_device({str(value)!r})",
    ),
    "megengine.set_log_level": LiveApi(
        "megengine", _set_log_level, lambda e: logging.getLevelName(_mge().logger._default_level),
        lambda e, value: f"megengine.set_log_level({value!r}); megengine.logger.set_mgb_log_level({value!r})",
    ),
    "megengine.config.async_level": LiveApi(
        "megengine", _set_async_level, lambda e: str(_mge().config.async_level),
        lambda e, value: f"megengine.config.async_level = {int(value)}",
    ),
    "megengine.dtr.eviction_threshold": _dtr_size("eviction_threshold", "dtr_eviction_threshold"),
    "megengine.dtr.evictee_minimum_size": _dtr_size("evictee_minimum_size", "dtr_evictee_minimum_size"),
    "megengine.dtr.enable_sqrt_sampling": LiveApi(
        "megengine", _set_sqrt_sampling, lambda e: str(_core2().get_option("enable_dtr_sqrt_sampling")),
        lambda e, value: f"megengine.dtr.enable_sqrt_sampling = {bool(value)}",
    ),
    **{
        f"megengine.option:{name}": _option(name)
        for name in (
            "enable_host_compute",
            "catch_worker_execption",  # MegEngine's own spelling
            "record_computing_path",
            "enable_drop",
            "enable_dtr_auto_drop",
        )
    },
}


def _dtr_switch(on: bool) -> None:
    dtr = _mge().dtr
    if on:
        dtr.enable()
    else:
        dtr.disable()  # also clears the eviction candidates, which setting the three options does not


GROUP_APIS: dict[str, GroupApi] = {
    "megengine.dtr.enable": GroupApi(
        "megengine", _dtr_switch, lambda on: "megengine.dtr.enable()" if on else "megengine.dtr.disable()"),
}
