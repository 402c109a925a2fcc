"""The kernel's import watcher and the one `EnvSession` every front end shares, both kept in the kernel's state
(base/_kernel_state.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base._kernel_state import Slot
from ..base._lazy_names import lazy_names
from ._import_watcher import ImportRecord, ImportWatcher

if TYPE_CHECKING:
    from ._outcome import Change, SetReport
    from ._session import EnvSession, VariableState
    from ._status import Status

# The kernel's import watcher, installed at `%load_ext`, and the session the first magic makes on it.
WATCHER: Slot[ImportWatcher] = Slot("the import watcher")
SESSION: Slot[EnvSession] = Slot("the session")

__all__ = ["Change", "EnvSession", "ImportRecord", "ImportWatcher", "SetReport", "Status", "VariableState", "session",
           "watcher"]

# The session and what it returns are imported with the first `session()`: `%load_ext` installs only the watcher.
__getattr__, __dir__ = lazy_names(__name__, {"Change": "_outcome", "SetReport": "_outcome", "EnvSession": "_session",
                                             "VariableState": "_session", "Status": "_status"}, globals())

def watcher() -> ImportWatcher:
    """The kernel's import watcher (the session's, once there is one), created and installed on first call. It
    follows the catalog's reader modules (`catalog._frameworks.READER_MODULES`), so installing it builds no catalog:
    `%load_ext` installs it, and the session the first magic makes reads from it."""
    made = SESSION.get()
    if made is not None:
        return made.watcher
    return WATCHER.get_or_make(_installed_watcher)


def _installed_watcher() -> ImportWatcher:
    from ..catalog._frameworks import READER_MODULES

    found = ImportWatcher(READER_MODULES)
    found.install()
    return found


def session() -> EnvSession:
    """The kernel's `EnvSession`, created on first call (with the catalog), reading the kernel's import watcher."""
    made = SESSION.get()
    if made is not None:  # every magic asks: no lock once it exists
        return made
    imports = watcher()

    def make() -> EnvSession:
        from ._session import EnvSession

        return EnvSession(imports)

    return SESSION.get_or_make(make)
