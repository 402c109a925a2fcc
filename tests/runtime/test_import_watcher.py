"""The import watcher (runtime/import_watcher.py): which watched modules this kernel imported, when, and what the
environment held at that moment, proven with real modules (see conftest.probe_module)."""

from __future__ import annotations

import importlib

import pytest

from mgenv_jupyter.runtime import ImportWatcher


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
