"""The two exceptions users see; every layer raises these and nothing else for bad input."""

from __future__ import annotations


class InvalidValueError(ValueError):
    """A name or value was rejected. The message says what was wrong and what is allowed; nothing was changed."""


class AlreadyReadWarning(UserWarning):
    """A variable was set after the framework had already read it, so the running framework will not see it."""
