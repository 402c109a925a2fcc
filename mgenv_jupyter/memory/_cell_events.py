"""`CellFollower`: the package's one listener of IPython's cell events, and the one meaning of "the running cell".

IPython tells `pre_run_cell` and `post_run_cell`. The follower is the only part of the package that registers with
IPython (once on the kernel's shell, while anyone subscribes; it is the kernel state's `_FOLLOWER` slot); every other
part subscribes to it and hears the *user's cells*, as `Cell`s, in the order `Order` fixes.

What a user's cell is, decided here and nowhere else:

- a run IPython announces: a silent request is announced to no one (a front end's own, such as the sidebar's
  `%load_ext` or a sweep probe's calls), and neither is a blank one;
- code run inside the running cell (`%rerun`, user code calling `run_cell`) is part of that cell, not a cell of its
  own: the cell keeps its number, its id and its start, and an error of that run is the cell's, as its traceback is
  shown under the cell;
- an end IPython tells without a start is no cell when its code is blank: IPython ends an empty request it never
  started, such as the culling notice's "Keep the kernel" (labextension/src/culling/notices.ts), which must not
  count as a run of the cell before it. One that is not blank is the cell that was running when following began
  (the cell that loads the extension): its subscribers hear that it ended, its start being the moment following
  began.

A subscriber that raises is logged, and the others are still told: IPython would print the error under the user's
cell and record it as the user's last error.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import Any

from ..base._kernel_state import Slot, kernel_state

log = logging.getLogger(__name__)

MAX_CELL_ID = 100  # characters of a front end's cell id; a longer one is taken as none


class Order(IntEnum):
    """Who hears a cell first, at its start and at its end alike (subscribers of one rank in the order they
    subscribed). Each rank is after those whose results it reads."""

    MARKERS = 1  # the sampler's cell markers (memory/_cells.py): every later one reads the cell's marker and peaks
    RECORDS = 2  # each cell's memory record (memory/_cell_records.py): its peak is the marker's
    OOM = 3  # the out-of-memory report (oom/_hook.py): the markers' timeline, the sites while still recorded
    SITES = 4  # the allocation sites' recording (memory/_memtrace.py): ends after the report read the failure's
    PROBE = 5  # a sweep point's probe (sweeps/_child.py): each cell's outcome and seconds
    VIEWS = 6  # the widgets (widgets/): drawn again from what the others changed


@dataclass(frozen=True)
class Cell:
    """A user's cell (the module's help says which runs are). `execution_count` is its `In [n]` when IPython keeps
    it in the history (`stored`); a cell it does not keep has no number of its own and carries the count IPython
    stands at, as IPython 9's own result does. `cell_id` is the id the front end gave it (None without one),
    `raw_cell` its code, `started` and `ended` seconds since the epoch (`ended` None while it runs), `duration` its
    seconds by a monotonic clock, `error` what failed it (before or during its execution, or in a run inside it)."""

    execution_count: int
    stored: bool
    cell_id: str | None
    raw_cell: str
    started: float
    ended: float | None = None
    duration: float | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


CellCallback = Callable[[Cell], None]


class CellSubscription:
    """One subscriber's place with the follower; `close()` (idempotent) ends it."""

    def __init__(self, follower: CellFollower, order: Order, started: CellCallback | None,
                 ended: CellCallback | None) -> None:
        self.follower = follower
        self.order = order
        self.started = started
        self.ended = ended
        self.closed = False

    def close(self) -> None:
        self.follower._unsubscribe(self)


class CellFollower:
    """Follows one shell's cells for every subscriber (see the module's help). Registered with IPython from the
    first subscription to the last one's end; `close()` unregisters and ends every subscription."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.last: Cell | None = None  # the last user's cell that ended
        self._lock = threading.Lock()
        self._subscriptions: list[CellSubscription] = []
        self._registered = False
        self._running: Cell | None = None
        self._began = 0.0  # time.perf_counter() at the running cell's start
        self._inside = 0  # runs started inside the running cell and not ended yet
        self._inner_error: BaseException | None = None
        self._following_since = time.time()
        self._ahead: int | None = None  # how far execution_count runs ahead of a stored cell's number at its start

    @property
    def running(self) -> Cell | None:
        """The user's cell running now; None between cells, or while nobody follows cells."""
        return self._running

    # ---- subscriptions -------------------------------------------------------------------------------------------

    def subscribe(self, order: Order, *, started: CellCallback | None = None,
                  ended: CellCallback | None = None) -> CellSubscription:
        """Call `started(cell)` as each user's cell starts and `ended(cell)` as it ends, in `order`'s rank."""
        subscription = CellSubscription(self, order, started, ended)
        with self._lock:
            # sorted is stable: within a rank, in the order of subscribing
            self._subscriptions = sorted([*self._subscriptions, subscription], key=lambda s: s.order)
            register = not self._registered
            self._registered = True
        if register:
            self._register(self.shell)
        return subscription

    def subscriptions(self) -> list[CellSubscription]:
        """The open subscriptions, in the order they are told."""
        with self._lock:
            return list(self._subscriptions)

    @property
    def registered(self) -> bool:
        """Registered with IPython now (while anyone subscribes)."""
        return self._registered

    def _unsubscribe(self, subscription: CellSubscription) -> None:
        with self._lock:
            subscription.closed = True
            if subscription not in self._subscriptions:
                return
            self._subscriptions = [s for s in self._subscriptions if s is not subscription]
            unregister = self._registered and not self._subscriptions
            self._registered = self._registered and not unregister
        if unregister:
            self._unregister(self.shell)

    def follow(self, shell: Any) -> None:
        """Follow `shell` from now on (the subscriptions stay), where another was followed."""
        if shell is self.shell:
            return
        with self._lock:
            old, self.shell = self.shell, shell
            registered = self._registered
        if registered:
            self._unregister(old)
            self._register(shell)

    def close(self) -> None:
        """Unregister from IPython and end every subscription (idempotent)."""
        with self._lock:
            subscriptions, self._subscriptions = self._subscriptions, []
            registered, self._registered = self._registered, False
            for subscription in subscriptions:
                subscription.closed = True
        if registered:
            self._unregister(self.shell)

    def _register(self, shell: Any) -> None:
        self._following_since = time.time()
        shell.events.register("pre_run_cell", self._pre_run_cell)
        shell.events.register("post_run_cell", self._post_run_cell)

    def _unregister(self, shell: Any) -> None:
        # What runs now is no longer followed: its end will not be heard.
        self._running, self._inside, self._inner_error = None, 0, None
        for event, callback in (("pre_run_cell", self._pre_run_cell), ("post_run_cell", self._post_run_cell)):
            try:
                shell.events.unregister(event, callback)
            except ValueError:  # already removed by someone else
                pass

    # ---- IPython's events ----------------------------------------------------------------------------------------

    def _pre_run_cell(self, info: Any) -> None:
        try:
            if self._running is not None:  # a run inside the running cell is part of it
                self._inside += 1
                return
            self._begin(info)
        except Exception:  # never IPython's "Error in callback" under the user's cell
            log.exception("mgenv_jupyter could not follow the cell's start")
            return
        self._tell("started", self._running)

    def _post_run_cell(self, result: Any) -> None:
        try:
            cell = self._end(result)
        except Exception:
            log.exception("mgenv_jupyter could not follow the cell's end")
            return
        if cell is not None:
            self.last = cell
            self._tell("ended", cell)

    def _begin(self, info: Any) -> None:
        stored = bool(getattr(info, "store_history", False))
        count = int(getattr(self.shell, "execution_count", 0) or 0)
        if self._ahead is None:
            self._ahead = _count_ahead()
        self._running = Cell(count - self._ahead if stored else count, stored, _cell_id(info),
                             str(getattr(info, "raw_cell", "") or ""), time.time())
        self._began = time.perf_counter()
        self._inside, self._inner_error = 0, None

    def _end(self, result: Any) -> Cell | None:
        error = getattr(result, "error_before_exec", None) or getattr(result, "error_in_exec", None)
        running = self._running
        if running is not None and self._inside:  # a run inside the cell ended; the cell goes on
            self._inside -= 1
            self._inner_error = self._inner_error or error
            return None
        info = getattr(result, "info", None)
        number = getattr(result, "execution_count", None)
        if running is None:
            raw = str(getattr(info, "raw_cell", "") or "")
            if not raw.strip():  # an empty request, ended by IPython without a start: no cell
                return None
            # The cell that was running when following began: its start was not seen.
            stored = bool(getattr(info, "store_history", False))
            count = int(getattr(self.shell, "execution_count", 0) or 0)
            running = Cell(number if isinstance(number, int) else count, stored, _cell_id(info), raw,
                           self._following_since)
            self._began = time.perf_counter() - (time.time() - self._following_since)
        elif isinstance(number, int) and running.stored:
            # IPython 9 counts a stored cell before its start is told, IPython 8 after: the result tells which.
            self._ahead = max(0, min(1, running.execution_count + (self._ahead or 0) - number))
        self._running = None
        if isinstance(number, int) and running.stored:
            running = replace(running, execution_count=number)
        return replace(running, ended=time.time(), duration=time.perf_counter() - self._began,
                       error=error or self._inner_error)

    def _tell(self, moment: str, cell: Cell | None) -> None:
        if cell is None:
            return
        for subscription in self.subscriptions():
            callback = subscription.started if moment == "started" else subscription.ended
            if callback is None or subscription.closed:
                continue
            try:
                callback(cell)
            except Exception:
                log.exception("a follower of the cell's %s failed", moment)


def _count_ahead() -> int:
    """The first guess, before a finished cell has told: IPython 9 counts a stored cell before pre_run_cell."""
    try:
        from IPython import version_info
    except ImportError:
        return 0
    return 1 if version_info[0] >= 9 else 0


def _cell_id(info: Any) -> str | None:
    """The id the front end gave the cell (JupyterLab and Notebook 7 send one); anything but a short text is none."""
    cell_id = getattr(info, "cell_id", None)
    return cell_id if isinstance(cell_id, str) and 0 < len(cell_id) <= MAX_CELL_ID else None


_FOLLOWER: Slot[CellFollower] = Slot("the one follower of IPython's cell events")


def cell_follower(shell: Any = None) -> CellFollower | None:
    """The kernel's follower of `shell`'s cells (the running IPython's when None); None outside IPython."""
    if shell is None:
        shell = _shell()
        if shell is None:
            return None
    with kernel_state().lock:
        follower = _FOLLOWER.get()
        if follower is None:
            follower = CellFollower(shell)
            _FOLLOWER.set(follower)
        else:
            follower.follow(shell)
        return follower


def made_follower() -> CellFollower | None:
    """The kernel's follower of cells if one is made, without making one."""
    return _FOLLOWER.get()


def running_cell() -> Cell | None:
    """The user's cell running now (None between cells, or when nothing follows cells)."""
    follower = _FOLLOWER.get()
    return follower.running if follower is not None else None


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()
