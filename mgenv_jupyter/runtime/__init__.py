"""The kernel's state: the import watcher and the one `EnvSession` every front end shares."""

from __future__ import annotations

import threading

from ._import_watcher import ImportRecord, ImportWatcher
from ._outcome import Change, SetReport
from ._session import EnvSession, VariableState
from ._status import Status

__all__ = ["Change", "EnvSession", "ImportRecord", "ImportWatcher", "SetReport", "Status", "VariableState", "session"]

_kernel_session: EnvSession | None = None
_lock = threading.Lock()


def session() -> EnvSession:
    """The kernel's `EnvSession`, created (and its import watcher installed) on first call."""
    global _kernel_session
    with _lock:
        if _kernel_session is None:
            from ..catalog import catalog

            readers = {module for entry in catalog() for module in entry.readers}
            watcher = ImportWatcher(readers)
            watcher.install()
            _kernel_session = EnvSession(watcher)
        return _kernel_session
