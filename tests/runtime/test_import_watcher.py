"""The import watcher (runtime/_import_watcher.py): which watched modules this kernel imported, when, and what the
environment held at that moment, proven with real modules (see conftest.probe_module)."""

from __future__ import annotations

import importlib
import os
import sys
import time

import pytest

from mgenv_jupyter.runtime import ImportWatcher
from mgenv_jupyter.runtime._import_watcher import process_start_environ


def test_failed_import_does_not_count_as_read(tmp_path, monkeypatch):
    (tmp_path / "mgenv_probe_broken.py").write_text("raise ImportError('broken on purpose')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    watcher = ImportWatcher(["mgenv_probe_broken"])
    watcher.install()
    try:
        with pytest.raises(ImportError):
            importlib.import_module("mgenv_probe_broken")
        assert watcher.record("mgenv_probe_broken") is None
    finally:
        watcher.uninstall()


@pytest.fixture
def watching(probe_module):
    """A watcher of two probe modules, installed for the test."""
    first, second = probe_module("mgenv_probe_first", ["PROBE_SIZE"]), probe_module("mgenv_probe_second", [])
    watcher = ImportWatcher([first, second])
    watcher.install()
    yield watcher, first, second
    watcher.uninstall()


def test_an_import_is_recorded_with_its_moment_and_the_environment_it_saw(watching):
    watcher, first, _ = watching
    assert watcher.record(first) is None  # not imported yet
    os.environ["PROBE_SIZE"] = "1024"
    started = time.time()
    module = importlib.import_module(first)
    os.environ["PROBE_SIZE"] = "2048"  # changed afterwards: the record keeps what the import saw
    record = watcher.record(first)
    assert record is not None and record.module == first and not record.before_load
    assert record.time is not None and started <= record.time <= time.time()
    assert record.value("PROBE_SIZE") == module.SEEN["PROBE_SIZE"] == "1024"
    assert record.when_text().startswith("at ") and [r.module for r in watcher.imported()] == [first]


def test_unwatched_imports_are_not_recorded(watching, probe_module):
    watcher, _, _ = watching
    other = probe_module("mgenv_probe_unwatched", [])
    importlib.import_module(other)
    assert watcher.record(other) is None and watcher.imported() == []


def test_the_first_reader_of_a_variable_is_the_earliest_import(watching):
    watcher, first, second = watching
    importlib.import_module(second)
    importlib.import_module(first)
    earliest = watcher.first_reader([first, second])
    assert earliest is not None and earliest.module == second
    assert watcher.first_reader(["mgenv_probe_never"]) is None


def test_modules_imported_before_the_watcher_are_said_to_be_so(probe_module):
    early = probe_module("mgenv_probe_early_import", [])
    importlib.import_module(early)
    watcher = ImportWatcher([early])
    watcher.install()
    try:
        record = watcher.record(early)
        assert record is not None and record.before_load and record.time is None
        assert record.when_text() == "before mgenv_jupyter was loaded"
        assert record.environ == process_start_environ()  # what the kernel started with: all that can be known
    finally:
        watcher.uninstall()


def test_installing_twice_puts_one_watcher_first_and_uninstalling_removes_it():
    watcher = ImportWatcher(["mgenv_probe_any"])
    watcher.install()
    watcher.install()
    try:
        assert sys.meta_path[0] is watcher and sys.meta_path.count(watcher) == 1
    finally:
        watcher.uninstall()
    assert watcher not in sys.meta_path
    watcher.uninstall()  # harmless


def test_the_start_environment_is_what_the_process_started_with():
    os.environ["MGENV_PROBE_SET_LATER"] = "1"
    started_with = process_start_environ()
    assert "MGENV_PROBE_SET_LATER" not in started_with
    assert started_with.get("PATH") is not None
