"""The two exceptions users see; every layer raises these and nothing else for bad input."""

from __future__ import annotations


class InvalidValueError(ValueError):
    """A name or value was rejected. The message says what was wrong and what is allowed; nothing was changed."""


class AlreadyReadWarning(UserWarning):
    """A variable was set after the framework had already read it, so the running framework will not see it."""


class CodeLoadingWarning(UserWarning):
    """A variable that makes programs load or run code (LD_PRELOAD, PYTHONPATH, BASH_ENV, …) was set; the message says
    what it can do."""


class EnvironmentSizeWarning(UserWarning):
    """The environment is getting close to the size at which no program can be started from the kernel."""
