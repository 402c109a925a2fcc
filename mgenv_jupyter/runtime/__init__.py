"""The kernel's state: the import watcher and the one `EnvSession` every front end shares."""

from __future__ import annotations

import threading

from .import_watcher import ImportRecord, ImportWatcher
from .outcome import Change, SetReport
from .session import EnvSession, VariableState
from .status import Status

__all__ = ["Change", "EnvSession", "ImportRecord", "ImportWatcher", "SetReport", "Status", "VariableState", "session"]

_session: EnvSession | None = None
_lock = threading.Lock()


def session() -> EnvSession:
    """The kernel's `EnvSession`, created (and its import watcher installed) on first call."""
    global _session
    with _lock:
        if _session is None:
            from ..catalog import catalog

            readers = {module for entry in catalog() for module in entry.readers}
            watcher = ImportWatcher(readers)
            watcher.install()
            _session = EnvSession(watcher)
        return _session
