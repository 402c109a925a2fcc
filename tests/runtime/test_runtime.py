"""The kernel's one session (runtime/__init__.py): made on first use, with an import watcher that follows every
module the catalog says reads a variable, and the same object for every front end and every thread."""

from __future__ import annotations

import importlib
import sys
import threading

import pytest

import mgenv_jupyter.runtime as runtime
from mgenv_jupyter import AlreadyReadWarning
from mgenv_jupyter.base._kernel_state import kernel_state
from mgenv_jupyter.catalog import ReadWhen, catalog


def test_the_kernel_has_one_session_made_on_first_use(monkeypatch):
    monkeypatch.setitem(kernel_state().values, runtime.SESSION, None)
    monkeypatch.setitem(kernel_state().values, runtime.WATCHER, None)
    made = []
    threads = [threading.Thread(target=lambda: made.append(runtime.session())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 8 and all(session is made[0] for session in made)
    assert runtime.session() is made[0]


def test_its_import_watcher_follows_every_reader_in_the_catalog(monkeypatch):
    monkeypatch.setitem(kernel_state().values, runtime.SESSION, None)
    monkeypatch.setitem(kernel_state().values, runtime.WATCHER, None)
    session = runtime.session()
    assert session.catalog is catalog()
    assert session.watcher.watched == {module for entry in catalog() for module in entry.readers}
    assert {"megengine", "paddle", "mxnet", "npu_bridge"} <= session.watcher.watched
    assert sys.meta_path[0] is session.watcher  # installed first, so it sees imports before any other finder


def test_a_framework_imported_after_loading_and_before_the_first_magic_is_seen(monkeypatch, probe_module):
    # `%load_ext` installs only the watcher (no catalog, no session); the session the first magic makes reads the
    # import the watcher saw in between, with its time and the value it read
    monkeypatch.setitem(kernel_state().values, runtime.SESSION, None)
    monkeypatch.setitem(kernel_state().values, runtime.WATCHER, None)
    name = "MXNET_CPU_WORKER_NTHREADS"
    assert catalog().get(name).readers == ("mxnet",) and catalog().get(name).when is ReadWhen.IMPORT
    monkeypatch.delenv(name, raising=False)
    watcher = runtime.watcher()
    try:
        assert sys.meta_path[0] is watcher and watcher.record("mxnet") is None
        importlib.import_module(probe_module("mxnet", [name]))
        session = runtime.session()
        assert session.watcher is watcher and runtime.watcher() is watcher
        record = watcher.record("mxnet")
        assert record is not None and not record.before_load and record.value(name) is None
        with pytest.warns(AlreadyReadWarning, match="mxnet"):
            session.set({name: "2"})
    finally:
        watcher.uninstall()
        sys.modules.pop("mxnet", None)
