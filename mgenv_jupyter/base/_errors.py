"""The exception and the warnings users see; every layer raises `InvalidValueError` and nothing else for bad input."""

from __future__ import annotations


class InvalidValueError(ValueError):
    """A name or value was rejected. The message says what was wrong and what is allowed; nothing was changed.

    For code, not people: `field` names the variable the error is about (None: none in particular) and `code` says
    what kind of error it is ("bad_value", "near_miss", "refused", ...; "invalid" when nobody said). A front end acts
    on these, never on the message's words (the sidebar shows an error under the editor of its `field`)."""

    def __init__(self, message: str = "", *, field: str | None = None, code: str = "invalid") -> None:
        super().__init__(message)
        self.field = field
        self.code = code


class AlreadyReadWarning(UserWarning):
    """A variable was set after the framework had already read it, so the running framework will not see it."""


class MayBeLatchedWarning(AlreadyReadWarning):
    """A variable read at a first use (the first allocation, the first operation) was set after its framework was
    imported, and nothing can tell whether that first use has happened: the running framework may not see it.
    A subclass of `AlreadyReadWarning`, so filters and tests written for that one catch it too."""


class CodeLoadingWarning(UserWarning):
    """A variable that makes programs load or run code (LD_PRELOAD, PYTHONPATH, BASH_ENV, …) was set; the message says
    what it can do."""


class EnvironmentSizeWarning(UserWarning):
    """The environment is getting close to the size at which no program can be started from the kernel."""
