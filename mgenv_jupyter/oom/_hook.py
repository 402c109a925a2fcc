"""The IPython side: after every user's cell, an out-of-memory error is recognised and explained under the cell,
the normal traceback left exactly as IPython shows it.

Why the end of a cell (IPython's `post_run_cell`, through the one cell follower, memory/_cell_events.py) and not
`set_custom_exc`: a custom exception handler replaces IPython's traceback display for the classes it names (the
handler must print it again itself), and a shell holds only one, so installing ours would silently remove another
extension's. The cell's end comes after the traceback has been shown, carries the exception, and what it displays
lands under the same cell. The follower tells the hook after the cell's marker and record are made and while its
allocation sites are still recorded (`Order`).

The hook (kept in the kernel's state, base/_kernel_state.py) makes the report and keeps it (`report.last_report()`); how
it is shown is the front end's: `install` is given the function that displays it (the magics pass the presentation
layer's view), so nothing here knows a view.

The user's error stays the last one: whatever happens while the report is made and shown, `sys.last_type`,
`sys.last_value`, `sys.last_traceback`, `sys.last_exc` and IPython's traceback formatter's hold (what `%debug` and
`%tb` open) are the user's when the hook returns. A display that fails inside IPython's formatters is shown by IPython
with a traceback of its own, which would otherwise take the user's place there.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..base._kernel_state import Slot
from ..catalog._frameworks import GPU_MODULES
from ..memory._cell_events import Cell, CellSubscription, Order, cell_follower, made_follower
from ._recorder import Recorder

if TYPE_CHECKING:
    from ._report import OomReport

log = logging.getLogger(__name__)

_LAST_ERROR = ("last_type", "last_value", "last_traceback", "last_exc")  # Python's record of the last error


# Frameworks whose first import must not overlap a sampler tick: the sampler's overlays and framework sources read a
# framework found in sys.modules, and doing so from the sampler's thread while the cell is still importing it broke
# `import megengine` ("cannot import name 'set_option' from partially initialized module 'megengine.core'", seen in
# the megengine venv). Until the sampler skips modules still initialising, the recorder pauses for a cell that names
# a framework not imported yet.
_NAMES = re.compile(r"\b(" + "|".join(GPU_MODULES) + r")\b")


class OomHook:
    """The listeners at each user's cell's start and end (memory/_cell_events.py), the recorder they read from, and
    `show`, the front end's way to display a report under the failing cell."""

    def __init__(self, recorder: Recorder, show: Callable[[OomReport], None], shell: Any = None) -> None:
        self.recorder = recorder
        self.show = show
        self.shell = shell
        self.subscription: CellSubscription | None = None

    def before(self, cell: Cell) -> None:
        if any(name not in sys.modules for name in _NAMES.findall(cell.raw_cell)):
            self.recorder.pause()

    def after(self, cell: Cell) -> None:
        error = cell.error
        kept = _last_error(self.shell) if error is not None else None
        try:
            sampler = self.recorder.ensure()
            if error is None:
                return
            # Imported on the first failure, not at `%load_ext`: tens of milliseconds, once, well within the report's
            # 300 ms (bench/oom_bench.py measures it).
            from ._recognise import recognise

            event = recognise(error)
            if event is None:
                return
            from ..runtime import session
            from ._report import build_report, remember

            report = build_report(event, sampler, session(), *_sites(cell), cell_code=cell.raw_cell)
            remember(report)
            self.show(report)
        except Exception:  # the user's cell already failed; the report must never add a second traceback
            log.exception("mgenv_jupyter could not explain an out-of-memory error")
        finally:
            if kept is not None:
                _restore_last_error(self.shell, kept)


def _sites(cell: Cell) -> tuple[Any, tuple[str, ...]]:
    """Where the memory was allocated at the failure of `cell` (memory/_memtrace.py), never a reason for no report."""
    try:
        from IPython import get_ipython

        from ..memory._memtrace import failure_sites

        shell = get_ipython()
        return failure_sites(shell, cell.execution_count) if shell is not None else (None, ())
    except Exception:
        log.exception("mgenv_jupyter could not read where the memory was allocated")
        return None, ()


# The out-of-memory recorder and the listeners around each cell.
_HOOK: Slot[OomHook] = Slot("the out-of-memory recorder and its cell listeners")


def installed_hook() -> OomHook | None:
    """The kernel's hook if `install` made one."""
    return _HOOK.get()


def install(shell: Any, show: Callable[[OomReport], None], interval: float | None = None) -> OomHook:
    """Start the recorder and listen at every user's cell of `shell`, displaying each report with `show` (the front
    end's); installing again keeps the one there."""
    found = _HOOK.get()
    if found is not None:
        return found
    recorder = Recorder() if interval is None else Recorder(interval)
    hook = OomHook(recorder.start(), show, shell)
    follower = cell_follower(shell)
    if follower is not None:
        hook.subscription = follower.subscribe(Order.OOM, started=hook.before, ended=hook.after)
    _HOOK.set(hook)
    # Nothing is imported ahead in the background: a report reads the history as plain lists (no pandas), so what it
    # imports on the first failure takes tens of milliseconds, and no thread holds the GIL behind the user's cells.
    return hook


def _last_error(shell: Any) -> dict[str, Any]:
    """The record of the last error: Python's (`sys.last_*`, those set) and IPython's formatter's traceback."""
    kept = {name: getattr(sys, name) for name in _LAST_ERROR if hasattr(sys, name)}
    formatter = getattr(shell, "InteractiveTB", None)
    kept["formatter"] = getattr(formatter, "tb", None)
    return kept


def _restore_last_error(shell: Any, kept: dict[str, Any]) -> None:
    """Put the record of the user's error back where anything replaced it."""
    for name in _LAST_ERROR:
        if name in kept:
            if getattr(sys, name, None) is not kept[name]:
                setattr(sys, name, kept[name])
        elif hasattr(sys, name):
            delattr(sys, name)
    formatter = getattr(shell, "InteractiveTB", None)
    if formatter is not None and getattr(formatter, "tb", None) is not kept["formatter"]:
        try:
            formatter.tb = kept["formatter"]
        except Exception:  # a formatter that keeps no traceback
            log.debug("IPython's traceback formatter", exc_info=True)


def uninstall(shell: Any) -> None:
    """Stop listening and recording; idempotent."""
    hook = _HOOK.take()
    if hook is None:
        return
    if hook.subscription is not None:
        hook.subscription.close()
    hook.recorder.stop()


def installed(shell: Any) -> int:
    """How many out-of-memory hooks follow `shell`'s cells (for tests of loading and unloading)."""
    follower = made_follower()
    if follower is None or follower.shell is not shell:
        return 0
    return sum(isinstance(getattr(s.ended, "__self__", None), OomHook) for s in follower.subscriptions())
