"""How a displayed widget follows the kernel: session changes (from any front end, any thread) and finished cells.

The link holds the widget weakly, so a widget that is dropped without `close()` does not stay alive through the
session's observer list; `close()` stops both subscriptions at once.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from ..runtime import EnvSession, SetReport


class SessionLink:
    """Calls `on_change(report)` after every session change and `on_cell()` after every cell the shell runs."""

    def __init__(
        self, session: EnvSession, on_change: Callable[[SetReport], None], on_cell: Callable[[], None]
    ) -> None:
        self._session = session
        self._on_change = weakref.WeakMethod(on_change)  # type: ignore[arg-type]
        self._on_cell = weakref.WeakMethod(on_cell)  # type: ignore[arg-type]
        self._shell = _shell()
        self.closed = False
        session.observe(self)
        if self._shell is not None:
            # A cell may import a framework; the import itself tells no one, so statuses are refreshed after cells.
            self._shell.events.register("post_run_cell", self._cell_done)

    def __call__(self, report: SetReport) -> None:
        method = self._on_change()
        if method is None:
            self.close()
            return
        method(report)

    def _cell_done(self, result: Any = None) -> None:
        method = self._on_cell()
        if method is None:
            self.close()
            return
        method()

    def close(self) -> None:
        """Stop observing; harmless to call twice."""
        self.closed = True
        self._session.unobserve(self)
        if self._shell is not None:
            try:
                self._shell.events.unregister("post_run_cell", self._cell_done)
            except ValueError:  # already unregistered
                pass


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()
