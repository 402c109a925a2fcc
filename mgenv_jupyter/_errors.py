"""The exception and the warnings users see; every layer raises `InvalidValueError` and nothing else for bad input."""

from __future__ import annotations


class InvalidValueError(ValueError):
    """A name or value was rejected. The message says what was wrong and what is allowed; nothing was changed."""


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
