"""mgenv_jupyter: set MegEngine, MXNet, Paddle, PyTorch, JAX, TensorFlow and Ascend variables safely from
notebooks, and watch GPU memory.

`%load_ext mgenv_jupyter` loads the magics; `mgenv_jupyter.session()` is the kernel's EnvSession; `DTRWidget()`,
`AllocatorWidget(framework=...)` and `ConfigWidget(...)` edit the same variables with ipywidgets; `MemoryChart()`
(or `%memchart`) charts the kernel's GPU memory live; when a cell runs out of memory a report says why and which
setting fixes it (`%oom` shows it again, `last_oom()` returns it); `%memfree` (`free_memory()`) gives back what a
failed cell holds and `%memholders` (`memory_holders()`) says which variables hold the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._errors import AlreadyReadWarning, InvalidValueError, MayBeLatchedWarning
from ._lazy_names import lazy_names
from ._text import set_language

if TYPE_CHECKING:
    from ._version import __version__
    from .runtime import session
    from .widgets import AllocatorWidget, ConfigWidget, DTRWidget, MemoryChart

__all__ = ["AllocatorWidget", "AlreadyReadWarning", "ConfigWidget", "DTRWidget", "InvalidValueError",
           "MayBeLatchedWarning", "MemoryChart", "__version__", "free_memory", "last_oom", "memory_holders",
           "load_ipython_extension", "session", "set_language", "unload_ipython_extension"]

# Imported on first use, so `import mgenv_jupyter` stays cheap: widgets pull in ipywidgets, and the session builds the
# catalog (`%load_ext` needs it; a bare import does not).
_LAZY = {"AllocatorWidget": "widgets", "ConfigWidget": "widgets", "DTRWidget": "widgets", "MemoryChart": "widgets",
         "session": "runtime", "__version__": "_version"}  # the version is read from the installed metadata


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())


def last_oom() -> Any:
    """The latest out-of-memory report of this kernel as data (an `OomReport`: `.findings`, `.remedies`,
    `.to_json()`), or None when no cell has run out of memory since the extension was loaded."""
    from .oom import last_report

    return last_report()


def memory_holders() -> Any:
    """The notebook's variables holding framework tensors or arrays, largest first, with their size per device
    (shared storage counted once; `%memholders` shows the same). `.holders` is the data."""
    from ._memory_magics import holders

    return holders()


def free_memory(outputs: bool = False) -> Any:
    """Give back what the last failed cell holds without touching your variables (`%memfree`; `outputs=True` also
    clears the output cache). Returns what was freed, before and after."""
    from ._memory_magics import free

    return free(outputs=outputs)


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext mgenv_jupyter`: register the magics and completers; loading twice is harmless."""
    from ._magics import register
    from ._memory_magics import MemoryMagics

    register(ipython)
    ipython.register_magics(MemoryMagics)  # %memfree, %memholders (they use the magics' line parser)


def unload_ipython_extension(ipython: Any) -> None:
    from ._magics import unregister

    unregister(ipython)
