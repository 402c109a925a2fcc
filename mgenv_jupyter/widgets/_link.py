"""How a displayed widget follows the kernel: session changes (from any front end, any thread) and the user's finished
cells (memory/_cell_events.py).

The link holds the widget weakly, so a widget that is dropped without `close()` does not stay alive through the
session's observer list; `close()` stops both subscriptions at once.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from ..memory._cell_events import Cell, Order, cell_follower
from ..runtime import EnvSession, SetReport


class SessionLink:
    """Calls `on_change(report)` after every session change and `on_cell()` after every cell the shell runs."""

    def __init__(
        self, session: EnvSession, on_change: Callable[[SetReport], None], on_cell: Callable[[], None]
    ) -> None:
        self._session = session
        self._on_change = weakref.WeakMethod(on_change)  # type: ignore[arg-type]
        self._on_cell = weakref.WeakMethod(on_cell)  # type: ignore[arg-type]
        self.closed = False
        session.observe(self)
        # A cell may import a framework; the import itself tells no one, so statuses are refreshed after cells.
        follower = cell_follower()
        self._cells = follower.subscribe(Order.VIEWS, ended=self._cell_done) if follower is not None else None

    def __call__(self, report: SetReport) -> None:
        method = self._on_change()
        if method is None:
            self.close()
            return
        method(report)

    def _cell_done(self, cell: Cell) -> None:
        method = self._on_cell()
        if method is None:
            self.close()
            return
        method()

    def close(self) -> None:
        """Stop observing; harmless to call twice."""
        self.closed = True
        self._session.unobserve(self)
        if self._cells is not None:
            self._cells.close()
