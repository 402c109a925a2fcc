"""mgenv_jupyter: set MegEngine, MXNet, Paddle and Ascend variables safely from notebooks, and watch GPU memory.

`%load_ext mgenv_jupyter` loads the magics; `mgenv_jupyter.session()` is the kernel's EnvSession.
"""

from __future__ import annotations

from typing import Any

from ._version import __version__
from .errors import AlreadyReadWarning, InvalidValueError
from .runtime import session
from .text import set_language

__all__ = ["AlreadyReadWarning", "InvalidValueError", "__version__", "load_ipython_extension", "session",
           "set_language", "unload_ipython_extension"]


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext mgenv_jupyter`: register the magics and completers; loading twice is harmless."""
    from .magics import register

    register(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from .magics import unregister

    unregister(ipython)
