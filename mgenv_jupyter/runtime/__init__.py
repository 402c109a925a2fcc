"""The kernel's import watcher and the one `EnvSession` every front end shares, both kept in the kernel's state
(_kernel_state.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._kernel_state import kernel_state
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

def watcher() -> ImportWatcher:
    """The kernel's import watcher (the session's, once there is one), created and installed on first call. It
    follows the catalog's reader modules (`catalog._frameworks.READER_MODULES`), so installing it builds no catalog:
    `%load_ext` installs it, and the session the first magic makes reads from it."""
    state = kernel_state()
    with state.lock:
        if state.session is not None:
            return state.session.watcher
        if state.watcher is None:
            from ..catalog._frameworks import READER_MODULES

            state.watcher = ImportWatcher(READER_MODULES)
            state.watcher.install()
        return state.watcher


def session() -> EnvSession:
    """The kernel's `EnvSession`, created on first call (with the catalog), reading the kernel's import watcher."""
    state = kernel_state()
    if state.session is not None:  # every magic asks: no lock once it exists
        return state.session
    imports = watcher()
    with state.lock:
        if state.session is None:
            from ._session import EnvSession

            state.session = EnvSession(imports)
        return state.session
