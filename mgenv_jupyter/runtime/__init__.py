"""The kernel's state: the import watcher and the one `EnvSession` every front end shares."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from .._lazy_names import lazy_names
from ._import_watcher import ImportRecord, ImportWatcher

if TYPE_CHECKING:
    from ._outcome import Change, SetReport
    from ._session import EnvSession, VariableState
    from ._status import Status

__all__ = ["Change", "EnvSession", "ImportRecord", "ImportWatcher", "SetReport", "Status", "VariableState", "session",
           "watcher"]

# The session and what it returns are imported with the first `session()`: `%load_ext` installs only the watcher.
__getattr__, __dir__ = lazy_names(__name__, {"Change": "_outcome", "SetReport": "_outcome", "EnvSession": "_session",
                                             "VariableState": "_session", "Status": "_status"}, globals())

_kernel_session: EnvSession | None = None
_kernel_watcher: ImportWatcher | None = None
_lock = threading.Lock()


def watcher() -> ImportWatcher:
    """The kernel's import watcher (the session's, once there is one), created and installed on first call. It
    follows the catalog's reader modules (`catalog._frameworks.READER_MODULES`), so installing it builds no catalog:
    `%load_ext` installs it, and the session the first magic makes reads from it."""
    global _kernel_watcher
    with _lock:
        if _kernel_session is not None:
            return _kernel_session.watcher
        if _kernel_watcher is None:
            from ..catalog._frameworks import READER_MODULES

            _kernel_watcher = ImportWatcher(READER_MODULES)
            _kernel_watcher.install()
        return _kernel_watcher


def session() -> EnvSession:
    """The kernel's `EnvSession`, created on first call (with the catalog), reading the kernel's import watcher."""
    global _kernel_session
    if _kernel_session is not None:  # every magic asks: no lock once it exists
        return _kernel_session
    imports = watcher()
    with _lock:
        if _kernel_session is None:
            from ._session import EnvSession

            _kernel_session = EnvSession(imports)
        return _kernel_session
