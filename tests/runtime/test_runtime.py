"""The kernel's one session (runtime/__init__.py): made on first use, with an import watcher that follows every
module the catalog says reads a variable, and the same object for every front end and every thread."""

from __future__ import annotations

import sys
import threading

import mgenv_jupyter.runtime as runtime
from mgenv_jupyter.catalog import catalog


def test_the_kernel_has_one_session_made_on_first_use(monkeypatch):
    monkeypatch.setattr(runtime, "_kernel_session", None)
    made = []
    threads = [threading.Thread(target=lambda: made.append(runtime.session())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 8 and all(session is made[0] for session in made)
    assert runtime.session() is made[0]


def test_its_import_watcher_follows_every_reader_in_the_catalog(monkeypatch):
    monkeypatch.setattr(runtime, "_kernel_session", None)
    session = runtime.session()
    assert session.catalog is catalog()
    assert session.watcher.watched == {module for entry in catalog() for module in entry.readers}
    assert {"megengine", "paddle", "mxnet", "npu_bridge"} <= session.watcher.watched
    assert sys.meta_path[0] is session.watcher  # installed first, so it sees imports before any other finder
