"""mgenv_jupyter: set MegEngine, MXNet, Paddle, PyTorch, JAX, TensorFlow and Ascend variables safely from
notebooks, and watch GPU memory.

`%load_ext mgenv_jupyter` loads the magics; `mgenv_jupyter.session()` is the kernel's EnvSession; `DTRWidget()`,
`AllocatorWidget(framework=...)` and `ConfigWidget(...)` edit the same variables with ipywidgets; `MemoryChart()`
(or `%memchart`) charts the kernel's GPU memory live; when a cell runs out of memory a report says why and which
setting fixes it (`%oom` shows it again, `last_oom()` returns it); `%memfree` (`free_memory()`) gives back what a
failed cell holds and `%memholders` (`memory_holders()`) says which variables hold the rest; `%%envsweep`
(`sweep(code, {"NAME": [values]})`) measures a cell under several settings, each in a fresh kernel, and recommends one
(`last_sweep()` returns the last).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base._errors import AlreadyReadWarning, InvalidValueError, MayBeLatchedWarning
from .base._lazy_names import lazy_names
from .base._text import set_language
from .magics._result_views import register as _show_results_as_their_views

if TYPE_CHECKING:
    from ._version import __version__
    from .runtime import session
    from .widgets import AllocatorWidget, ConfigWidget, DTRWidget, MemoryChart

__all__ = ["AllocatorWidget", "AlreadyReadWarning", "ConfigWidget", "DTRWidget", "InvalidValueError",
           "MayBeLatchedWarning", "MemoryChart", "__version__", "free_memory", "last_oom", "last_sweep",
           "memory_holders", "load_ipython_extension", "session", "set_language", "sweep",
           "unload_ipython_extension"]

# Imported on first use, so `import mgenv_jupyter` stays cheap: widgets pull in ipywidgets, and the session builds the
# catalog (`%load_ext` needs it; a bare import does not).
_LAZY = {"AllocatorWidget": "widgets", "ConfigWidget": "widgets", "DTRWidget": "widgets", "MemoryChart": "widgets",
         "session": "runtime", "__version__": "_version"}  # the version is read from the installed metadata


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
_show_results_as_their_views()  # before any result exists: every one shows as its view (base/_display.py)


def last_oom() -> Any:
    """The latest out-of-memory report of this kernel as data (an `OomReport`: `.findings`, `.remedies`,
    `.to_json()`), or None when no cell has run out of memory since the extension was loaded."""
    from .oom import last_report

    return last_report()


def memory_holders() -> Any:
    """The notebook's variables holding framework tensors or arrays, largest first, with their size per device
    (shared storage counted once; `%memholders` shows the same). `.holders` is the data."""
    from .magics._memory import holders

    return holders()


def free_memory(outputs: bool = False) -> Any:
    """Give back what the last failed cell holds without touching your variables (`%memfree`; `outputs=True` also
    clears the output cache). Returns what was freed, before and after."""
    from .magics._memory import free

    return free(outputs=outputs)


def sweep(code: str, values: Any, setup: Any = None, repeat: int = 1, timeout: float | None = 600.0,
          budget: int | str | None = None, **options: Any) -> Any:
    """Run `code` once per point of `values` ({"NAME": [value, …], …}; several names make a grid), each point in a
    fresh kernel of this kernel's kernelspec with its variables in the environment before it starts; returns a
    `SweepResult` (`.frame()`, `.best`, `.apply()`). `%%envsweep` is the same as a cell magic; see
    `mgenv_jupyter.magics._sweep.sweep` for every option."""
    from .magics._sweep import sweep as run

    return run(code, values, setup, repeat, timeout, budget, **options)


def last_sweep() -> Any:
    """The latest sweep of this kernel (an interrupted one included, with the points that finished), or None."""
    from .sweeps._result import last_sweep as last

    return last()


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext mgenv_jupyter`: register the magics and completers; loading twice is harmless."""
    from .magics._env import register
    from .magics._memory import MemoryMagics
    from .magics._sweep import register_sweep

    register(ipython)
    ipython.register_magics(MemoryMagics)  # %memfree, %memholders (they use the magics' line parser)
    register_sweep(ipython)  # %%envsweep, and how a SweepResult is shown


def unload_ipython_extension(ipython: Any) -> None:
    from .magics._env import unregister
    from .magics._sweep import register_sweep

    unregister(ipython)
    register_sweep(ipython, on=False)
