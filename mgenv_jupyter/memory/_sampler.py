"""`Sampler`: reads memory sources on a background thread, keeps the history, and pushes batches to subscribers.

    sampler = Sampler(default_sources(), interval=0.1).start()
    sampler.attach(get_ipython())          # cell markers
    sampler.subscribe(lambda batch: ...)   # JSON-ready batches (see protocol.py), a few per second
    sampler.history.frame()                # everything so far, as a DataFrame
    sampler.close()

Consumers each ask for a rate: `subscribe(callback, interval=0.5)` returns a `Subscription`; the sampler samples at
the fastest rate any open subscription asks for, and falls back when subscriptions close. An on-demand sampler (the
kernel's, `shared.kernel_sampler()`) runs only while someone subscribes.

The thread is a daemon and holds the sampler only weakly: a sampler that is dropped without `close()` stops by
itself. Nothing a source or subscriber does can kill the thread; a source that raises shows the error as its state
and the other sources go on.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..base._source_state import State
from ..base._text import page_language
from ..protocol import Batch, BatchMeta, SeriesInfo, Snapshot, SourceState, checked_interval
from ..protocol._memory import MarkInfo, MarkKind
from ._cells import CellTracker, per_cell
from ._history import History
from ._nvml_source import NvmlSource
from ._proc_figures import kernel_started
from ._sample import QUANTITIES, DeviceId, MemorySource, Sample, series_key

if TYPE_CHECKING:
    from ..runtime import EnvSession
    from ._overlays import Overlay

log = logging.getLogger(__name__)

Subscriber = Callable[[Batch], None]


class Subscription:
    """One consumer of a sampler: its rate (`interval`, seconds between samples it wants) and, optionally, the
    callback that receives batches. `close()` (or calling the subscription) ends it; both are idempotent."""

    def __init__(self, sampler: Sampler, callback: Subscriber | None, interval: float) -> None:
        self._sampler = sampler
        self.callback = callback
        self._interval = interval
        self.closed = False

    @property
    def interval(self) -> float:
        return self._interval

    @interval.setter
    def interval(self, value: float) -> None:
        self._interval = checked_interval(value)
        self._sampler._rates_changed()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._sampler._remove(self)
# Once a second: ask idle sources (framework not imported, host fallback unused) whether they still are, and redraw
# the overlays once something has asked for them (they read the session and the frameworks).
_HOUSEKEEPING_SECONDS = 1.0
_MARKS = 100  # moments kept for the charts (frees); older ones drop off
_JOIN_SECONDS = 5.0
_PLAIN_SLEEP_SECONDS = 0.05


class Sampler:
    """Samples `sources` every `interval` seconds (10 Hz by default) and pushes batches at most `pushes_per_second`.

    `start`, `stop` and `close` are idempotent; after `close()` (which also closes the sources, unregisters the cell
    hooks and drops the subscribers) the sampler cannot be started again. Subscribers are called on the sampler's
    thread with one `Batch` each; they should hand the data on quickly (a widget's `send`, a queue). The overlays
    read `session`, or the one `session_factory` makes when they are first asked for (the kernel's sampler: the
    out-of-memory recorder alone never asks, so loading the extension builds no catalog).

    `clock` gives the time of each row and cell marker (seconds since the epoch; a test replays a long session through
    it in seconds); `started` is the moment charts count their time axis from (default: when the kernel's process
    started).
    """

    def __init__(
        self,
        sources: Iterable[MemorySource] | None = None,
        *,
        interval: float = 0.1,
        pushes_per_second: float = 4.0,
        history: History | None = None,
        session: EnvSession | None = None,
        session_factory: Callable[[], EnvSession] | None = None,
        on_demand: bool = False,
        clock: Callable[[], float] = time.time,
        started: float | None = None,
    ) -> None:
        if sources is None:
            from ._sources import default_sources

            sources = default_sources()
        self.sources: list[MemorySource] = list(sources)
        self.history = history if history is not None else History()
        self.clock = clock
        self.cells = CellTracker(clock=clock)
        self.session = session  # the overlays (DTR threshold, Paddle's cap) read what it and the frameworks say
        self._session_factory = session_factory  # or the session made when the overlays are first wanted
        self._meta_wanted = False  # overlays and worded states, once a chart, a snapshot or a reader asks (_want_meta)
        self.pushes_per_second = pushes_per_second
        self._interval = self._idle_interval = checked_interval(interval)
        self.on_demand = on_demand  # run only while a subscription is open
        self._subscriptions: list[Subscription] = []
        self._subscribers: dict[Subscriber, int] = {}  # callback → meta version it has seen
        self._pending: list[tuple[float, dict[str, int]]] = []
        self._series: dict[str, SeriesInfo] = {}
        self._keys: dict[DeviceId, list[tuple[str, str]]] = {}  # device → (quantity, series key), formatted once
        self._errors: dict[int, State] = {}  # id(source) → what it raised
        self._active: list[MemorySource] = []  # sources that were not idle at the last housekeeping
        self._states: list[SourceState] = []
        self._overlays: list[Overlay] = []
        self._totals: dict[DeviceId, int] = {}
        self._gpu_totals: dict[DeviceId, int] = {}
        self._meta_version = 0
        self._marks: deque[MarkInfo] = deque(maxlen=_MARKS)
        self._created = clock()
        self._started = started  # None: read on first use (psutil is not imported with the package)
        self._seq = 0
        self._last_flush = 0.0
        self._last_housekeeping = -float("inf")
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = _Wakeup()
        self._closed = False
        self._lock = threading.RLock()
        self._sampling = threading.Lock()
        self._flush_lock = threading.Lock()

    # ---- lifecycle -----------------------------------------------------------------------------------------------

    @property
    def interval(self) -> float:
        """Seconds between samples; changing it takes effect at once."""
        return self._interval

    @interval.setter
    def interval(self, value: float) -> None:
        """Without subscriptions that ask for a rate, the interval used; with them, their fastest rate wins."""
        self._idle_interval = checked_interval(value)
        self._rates_changed()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> Sampler:
        """Start sampling on the sampler's thread. The first sample is taken here, by the caller: what the sources
        import on first use (psutil, NVML's binding) is imported before `start()` returns, never on the sampler's
        thread behind the user's back."""
        if not self.running and self.history.count == 0 and not self._closed:
            self.sample_once()
        with self._lock:
            if self._closed:
                raise RuntimeError("this Sampler is closed; create a new one")
            if self.running:
                return self
            self._stop = threading.Event()
            self._wake = _Wakeup()
            self._thread = threading.Thread(target=_run, args=(weakref.ref(self), self._stop, self._wake),
                                            name="mgenv-memory-sampler", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
            self._stop.set()
            self._wake.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join(_JOIN_SECONDS)

    def close(self) -> None:
        """Stop, stop marking cells, drop subscribers and close the sources. Idempotent."""
        self.stop()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self.cells.unregister()
            self._subscribers.clear()
            for subscription in self._subscriptions:
                subscription.closed = True
            self._subscriptions.clear()
            self._pending.clear()
        for source in self.sources:
            try:
                source.close()
            except Exception:
                log.exception("closing memory source %r failed", source)

    def __enter__(self) -> Sampler:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def attach(self, shell: Any) -> None:
        """Mark the user's cells of `shell` (the kernel's InteractiveShell) on the chart and in `per_cell()`."""
        self.cells.register(shell)

    # ---- subscribers ---------------------------------------------------------------------------------------------

    def subscribe(self, callback: Subscriber | None = None, *, interval: float | None = None) -> Subscription:
        """Call `callback(batch)` with every batch from now on (None: only keep the history going), sampling at least
        every `interval` seconds while subscribed (None: no rate of its own). An on-demand sampler starts now."""
        subscription = Subscription(self, callback, checked_interval(interval) if interval is not None else 0.0)
        if callback is not None:  # batches carry the overlays and the process's start
            self._want_meta()
            _ = self.started  # here, in the caller's thread: it may import psutil
        with self._lock:
            if self._closed:
                raise RuntimeError("this Sampler is closed; create a new one")
            self._subscriptions.append(subscription)
            if callback is not None:
                self._subscribers[callback] = -1
        self._rates_changed()
        if self.on_demand:
            self.start()
        return subscription

    @property
    def subscriptions(self) -> list[Subscription]:
        with self._lock:
            return list(self._subscriptions)

    def _remove(self, subscription: Subscription) -> None:
        with self._lock:
            if subscription in self._subscriptions:
                self._subscriptions.remove(subscription)
            if subscription.callback is not None and not any(
                    s.callback is subscription.callback for s in self._subscriptions):
                self._subscribers.pop(subscription.callback, None)
            idle = self.on_demand and not self._subscriptions
        if idle:
            self.stop()
        else:
            self._rates_changed()

    def _rates_changed(self) -> None:
        with self._lock:
            asked = [s.interval for s in self._subscriptions if s.interval > 0]
            interval = min(asked) if asked else self._idle_interval
            changed = interval != self._interval
            self._interval = interval
        if changed:
            self._wake.set()

    # ---- sampling ------------------------------------------------------------------------------------------------

    def sample_once(self) -> dict[str, int]:
        """Take one sample now, as the thread does each tick, and return the row: series → bytes. Idle sources (see
        `MemorySource`) are asked only once a second."""
        # Sources are never read by two threads at once (a sample taken by hand while the thread runs would initialise
        # NVML twice); the state lock is not held meanwhile, so readers of the history never wait for a driver.
        with self._sampling:
            t, now = self.clock(), time.monotonic()
            # Once a second every source is asked (and idle ones are set aside); in between only the active ones.
            housekeeping = now - self._last_housekeeping >= _HOUSEKEEPING_SECONDS
            samples: list[Sample] = []
            for source in self.sources if housekeeping else self._active:
                samples.extend(self._read(source))
            if housekeeping:
                self._last_housekeeping = now
                self._active = [source for source in self.sources if not getattr(source, "idle", False)]
        row: dict[str, int] = {}
        with self._lock:
            for sample in samples:
                self._take(sample, row)
            if row:
                self.history.append(t, row)
                self.cells.observe(row)
                if self._subscribers:
                    self._pending.append((t, row))
            if housekeeping and self._meta_wanted:
                self._refresh_overlays()
        return row

    def sample_devices(self, fresh: bool = False) -> dict[DeviceId, dict[str, int]]:
        """Take one sample now (as `sample_once`) and return it by device: each device's fields → quantity → bytes.
        For readers that tell devices apart (an out-of-memory report, a free): a series key is a name for people.
        `fresh`: NVML's process lists are read for this sample, however recently they were (the sample lands in the
        history as any other, so the chart and the reader see the same figure)."""
        if fresh:
            for source in self.sources:
                if isinstance(source, NvmlSource):
                    source.refresh_processes()
        row = self.sample_once()
        devices: dict[DeviceId, dict[str, int]] = {}
        with self._lock:
            for key, value in row.items():
                info = self._series[key]  # every key of a row was recorded by `_take` as it was made
                devices.setdefault(DeviceId.of(info), {})[info["quantity"]] = value
        return devices

    def _read(self, source: MemorySource) -> list[Sample]:
        try:
            samples = source.sample()
        except Exception as exc:  # sources promise not to raise; one that does stays visible with its error
            self._errors[id(source)] = State("source_error", error=f"{type(exc).__name__}: {exc}")
            return []
        self._errors.pop(id(source), None)
        return samples

    def _take(self, sample: Sample, row: dict[str, int]) -> None:
        device = sample.device_id
        keys = self._keys.get(device)
        if keys is None:
            label = device.label
            keys = self._keys[device] = [(q, series_key(label, q)) for q in QUANTITIES]
        for quantity, key in keys:
            value = getattr(sample, quantity)
            if value is None:
                continue
            row[key] = value
            if key not in self._series:
                self._series[key] = device.series(quantity, sample.source)
                self._meta_version += 1
        if sample.total is not None:
            self._totals[device] = sample.total
            if sample.source.startswith("nvml"):
                self._gpu_totals[device] = sample.total

    def _refresh_states(self) -> None:
        # Read when a batch goes out or someone asks, not every tick: at 100 Hz the difference shows. Its words are
        # imported by the first to ask (`_want_meta`), in that caller's thread.
        from ._state_words import lead, state_text

        language = page_language()  # a chart's words are the page's, whatever %envlang chose for outputs
        states: list[SourceState] = []
        for s in self.sources:
            state = self._errors.get(id(s), s.state)
            states.append({"name": s.name, "state": state.wire(), "text": state_text(state, language),
                           "lead": lead(state, language),
                           "simulated": bool(getattr(s, "simulated", 0)), "simulation": getattr(s, "simulation", None),
                           "node": getattr(s, "node", None)})
        if states != self._states:
            self._states = states
            self._meta_version += 1

    def _want_meta(self) -> None:
        """Keep what batches carry besides the samples from now on: the overlays, and the sources' states in words.
        The overlays read the session, the catalog and the frameworks' live APIs, which the always-on recorder never
        needs: the first chart, snapshot or reader to ask computes both here, in its own thread (importing what they
        read there, never on the sampler's thread), and the sampler's housekeeping keeps them current after that."""
        if self._meta_wanted:
            return
        if self.session is None and self._session_factory is not None:
            self.session = self._session_factory()
        with self._lock:
            self._refresh_overlays()
            self._refresh_states()
            self._meta_wanted = True

    def _refresh_overlays(self) -> None:
        from ._overlays import overlays

        lines = overlays(self.session, self._totals, self._gpu_totals)
        if lines != self._overlays:
            self._overlays = lines
            self._meta_version += 1

    def states(self) -> list[SourceState]:
        """Each source's name and state in words (after the last sample)."""
        with self._lock:
            self._refresh_states()
            return list(self._states)

    @property
    def overlays(self) -> list[Overlay]:
        self._want_meta()
        with self._lock:
            return list(self._overlays)

    # ---- batches -------------------------------------------------------------------------------------------------

    def flush(self) -> None:
        """Push what is pending to the subscribers now (the thread does this `pushes_per_second` times a second)."""
        with self._flush_lock:
            with self._lock:
                subscribers = dict(self._subscribers)
                rows, self._pending = self._pending, []
                cells = self.cells.drain()
                if not subscribers:  # the recorder alone: its samples are in the history, nobody reads states
                    return
                self._refresh_states()
                version = self._meta_version
                if not rows and not cells and all(v == version for v in subscribers.values()):
                    return
                batch = self._batch(rows, cells)
                meta = self._meta()
                self._last_flush = time.monotonic()
            for callback, seen in subscribers.items():
                payload: Batch = batch if seen == version else {**batch, **meta}
                try:
                    callback(payload)
                except Exception:  # one broken chart must not stop the others or the sampler
                    log.exception("memory subscriber %r failed", callback)
                with self._lock:
                    if callback in self._subscribers:
                        self._subscribers[callback] = version

    def per_cell(self) -> Any:
        """Peak and delta per device for each finished cell, as a DataFrame (see `cells.per_cell`)."""
        return per_cell(self.history, self.cells.markers, self.series_infos(self.history.series))

    def series_info(self, key: str) -> SeriesInfo | None:
        """What the sampler recorded of series `key` when it first saw it (device, quantity, source, simulated,
        node), so a reader never has to parse it back out of the key; None for a series it never had."""
        with self._lock:
            info = self._series.get(key)
            return None if info is None else {**info}

    def series_infos(self, keys: Iterable[str]) -> list[SeriesInfo]:
        """The fields of each series of `keys` the sampler has had, once each, in the order of `keys` (a key it never
        had is left out): for readers of a history or a row, which name series by key only."""
        with self._lock:
            return [{**self._series[key]} for key in dict.fromkeys(keys) if key in self._series]

    def snapshot(self) -> Snapshot:
        """The whole history, with the series, states and overlays: the first message for a chart that opens while
        the sampler is already running. The recent rows come at full resolution, the older past one row per bucket
        (each series' maximum there), so that the chart can show everything since the first sample."""
        self._want_meta()
        with self._lock:
            # plain lists: a chart opening imports neither numpy nor pandas
            past, older = self.history.past()
            recent, values = self.history.window()
            times = [round(t, 3) for t in past + recent]
            columns: dict[str, list[int | float | None]] = {
                key: [None if v is None else int(v) for v in older.get(key, [None] * len(past)) + column]
                for key, column in values.items()}
            cells = [marker.to_json() for marker in self.cells.markers]
            self._refresh_states()
            return {"type": "memory.snapshot", "seq": self._seq, "interval": self._interval, "t": times,
                    "columns": columns, "cells": cells, **self._meta()}

    def _batch(self, rows: list[tuple[float, dict[str, int]]], cells: list[Any]) -> Batch:
        keys = list(dict.fromkeys(key for _, row in rows for key in row))
        self._seq += 1
        return {"type": "memory.batch", "seq": self._seq, "interval": self._interval,
                "t": [round(t, 3) for t, _ in rows],
                "columns": {key: [row.get(key) for _, row in rows] for key in keys},
                "cells": [marker.to_json() for marker in cells]}

    @property
    def started(self) -> float:
        """When this process (the kernel) started, in seconds since the epoch: charts count time from it."""
        if self._started is None:
            found = kernel_started()  # None where neither /proc nor psutil can say: the sampler's own start will do
            self._started = found if found is not None else self._created
        return self._started

    def _meta(self) -> BatchMeta:
        return {"series": list(self._series.values()), "sources": list(self._states),
                "overlays": [line.to_json() for line in self._overlays], "started": self.started,
                "marks": list(self._marks)}

    def mark(self, kind: MarkKind, label: str, note: str, at: float | None = None) -> MarkInfo:
        """Mark a moment on the chart (drawn like a cell marker): every chart gets it with its next batch, and a chart
        opened later with its snapshot. The last `_MARKS` are kept."""
        info: MarkInfo = {"kind": kind, "time": round(self.clock() if at is None else at, 3), "label": label,
                          "note": note}
        with self._lock:
            self._marks.append(info)
            self._meta_version += 1
        return info

    @property
    def marks(self) -> list[MarkInfo]:
        with self._lock:
            return list(self._marks)

    def _due(self) -> bool:
        return time.monotonic() - self._last_flush >= 1.0 / self.pushes_per_second


class _Wakeup:
    """Wakes the sampler thread early (stop, new interval). A bare lock rather than an Event: Event.wait runs some
    forty lines of Python per tick, which at 100 Hz is a visible share of the sampler's cost."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()  # held = nothing to say; released = wake up

    def set(self) -> None:
        try:
            self._lock.release()
        except RuntimeError:  # already released: a wake-up is pending
            pass

    def wait(self, timeout: float) -> bool:
        """Sleep up to `timeout` seconds; True (and the wake-up consumed) if woken early. Short waits (fast sampling)
        use a plain sleep, which costs less per tick than a timed lock; a wake-up then waits at most that long."""
        if timeout <= _PLAIN_SLEEP_SECONDS:
            if timeout > 0:
                time.sleep(timeout)
            return self._lock.acquire(blocking=False)
        return self._lock.acquire(timeout=timeout)


def _run(ref: weakref.ref[Sampler], stop: threading.Event, wake: _Wakeup) -> None:
    """The sampler thread. It holds the sampler only during a tick, so a forgotten sampler is collected and stops."""
    next_tick = time.monotonic()
    while not stop.is_set():
        sampler = ref()
        if sampler is None:
            return
        try:
            sampler.sample_once()
            if sampler._due():
                sampler.flush()
        except Exception:  # belt and braces: nothing may end the thread but stop()
            log.exception("memory sampler tick failed")
        interval = sampler.interval
        del sampler
        next_tick += interval
        delay = next_tick - time.monotonic()
        if delay < 0:  # fell behind (a slow source): carry on from now rather than bursting to catch up
            next_tick, delay = time.monotonic(), 0.0
        if wake.wait(delay):
            next_tick = time.monotonic()
