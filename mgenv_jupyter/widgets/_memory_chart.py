"""`MemoryChart`: the live memory chart of the running kernel, inline in a notebook (an anywidget).

The ES module is built from labextension/src/chart (uPlot, the same component as the sidebar's memory panel) into
mgenv_jupyter/static/. Samples travel as custom messages in the sampler's batch format (a few per second, never one
per sample); a view that opens late asks for the snapshot. Its output carries a picture of the chart too
(presentation's `MemoryPicture`, kept current after each cell: `_static_view.py`), which a saved notebook shows.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from ..base._text import LANGUAGES, Text, learn_language
from ..comms._routing import handle_where_sent
from ..memory import Sampler
from ..memory._cell_events import Cell, Order, cell_follower
from ..memory._shared import kernel_sampler
from ..presentation._chart_picture import MemoryPicture
from ..protocol import Batch
from ._static_view import StaticView

TITLE = Text("Memory of this kernel", "本内核的内存")

if TYPE_CHECKING:
    from ..cluster._node_memory import ClusterMemory

log = logging.getLogger(__name__)
STATIC = Path(__file__).resolve().parent.parent / "static"


def _read_static(name: str) -> str:
    """A built front-end file, or "" when it is missing (a copy installed without its front end): the module must
    still import, since the other widgets and the magics do not need the chart."""
    try:
        return (STATIC / name).read_text(encoding="utf-8")
    except OSError:
        return ""


class FrontEndMissing(RuntimeError):
    """The chart's built front end is not installed; the message says what is missing and how to get it."""


class MemoryChart(StaticView, anywidget.AnyWidget):
    """Live memory of this kernel: every visible GPU (the kernel's process tree and the device), the frameworks'
    allocators, host memory as the fallback, with the device total, DTR threshold and allocator caps as lines and
    each executed cell marked. Drag to zoom, double-click to reset, CSV to export.

    Every chart, the sidebar's memory panel and the out-of-memory recorder share the kernel's one sampler: a chart
    asks it for its rate (10 Hz by default; `interval=` to change) and leaves on `close()`; the sampler runs at the
    fastest rate asked for while anyone watches. Pass `sampler=` to chart another one. `.history` is the data as a
    pandas DataFrame, `.per_cell()` the peak and delta per cell.
    Set `MGENV_SIMULATE_GPU=<preset or scenario file>` in the kernel's environment to chart a simulated GPU.
    """

    # The module's text, read from the built file: anywidget would watch a Path for hot reloading and keep every
    # chart alive through that watcher's signal.
    _esm = _read_static("memory_chart.js")
    _css = _read_static("memory_chart.css")
    title = traitlets.Unicode("Memory of this kernel").tag(sync=True)
    height = traitlets.Int(260).tag(sync=True)

    def __init__(
        self, sampler: Sampler | None = None, *, interval: float = 0.1, title: str | None = None,
        shell: Any = None, **kwargs: Any,
    ) -> None:
        if not self._esm:
            raise FrontEndMissing(
                f"the memory chart's front end ({STATIC / 'memory_chart.js'}) is missing: this copy of mgenv_jupyter "
                "was installed without its built front end. Install a wheel (pip install mgenv_jupyter), or build "
                "from source with Node.js 18+ (pip install . builds it). The magics and the other widgets work "
                "without it.")
        self._closed_callbacks: list[Callable[[], None]] = []
        self._own_title = title is None  # ours follows the language the front end tells; the user's stays
        kwargs["title"] = TITLE.get() if title is None else title
        super().__init__(**kwargs)
        self.sampler = sampler if sampler is not None else kernel_sampler()
        if shell is not None:
            self.sampler.attach(shell)
        self._subscription = self.sampler.subscribe(self._push, interval=interval)
        self.on_msg(self._on_front_end_message)
        follower = cell_follower(shell)  # the saved picture follows the session, cell by cell
        self._cells = follower.subscribe(Order.VIEWS, ended=self._cell_done) if follower is not None else None
        self.sampler.start()

    @classmethod
    def for_cluster(cls, watch: ClusterMemory, **kwargs: Any) -> MemoryChart:
        """An inline chart of the sampler a cluster watch feeds (`mgenv_jupyter.cluster.watch()`: every node grouped
        under its label), at the watch's rate; closing the chart ends the watch. `kwargs` go to `MemoryChart`."""
        kwargs.setdefault("title", "Memory of the kernel and its Ray cluster")
        chart = cls(watch.sampler, interval=watch.interval, **kwargs)
        watch.close_with(chart)
        return chart

    @property
    def history(self) -> Any:
        """Everything sampled so far as a pandas DataFrame: a time index (UTC) to the millisecond, one column per
        series in integer bytes, a series sampled less often carried forward from its last reading (see
        `History.frame`). A notebook shows the sizes in binary units (GiB, MiB); the data stay bytes."""
        from ..presentation._tables import memory_table

        return memory_table(self.sampler.history.frame())

    def per_cell(self) -> Any:
        """Peak and delta per device for each executed cell, as a DataFrame of integer bytes (shown in GiB, MiB)."""
        from ..presentation._tables import memory_table

        return memory_table(self.sampler.per_cell())

    def on_close(self, callback: Callable[[], None]) -> None:
        """Call `callback()` once when this chart closes (a cluster watch started for it ends with it)."""
        self._closed_callbacks.append(callback)

    def close(self) -> None:
        subscription = getattr(self, "_subscription", None)  # absent when the constructor failed
        if subscription is not None:
            subscription.close()
        cells = getattr(self, "_cells", None)  # see _subscription
        if cells is not None:
            cells.close()
        self._stop_static()
        self.layout.close()  # ipywidgets keeps a DOMWidget's Layout registered until it is closed itself
        super().close()
        callbacks, self._closed_callbacks = getattr(self, "_closed_callbacks", []), []  # see _subscription
        for callback in callbacks:
            try:
                callback()
            except Exception:  # one consumer's failure must not keep the others open
                log.exception("a callback on closing the memory chart failed")

    @traitlets.observe("comm")
    def _route_messages(self, change: dict[str, Any]) -> None:
        # a reloaded page's hello must reach the kernel's handler (see _comm_routing)
        if change["new"] is not None:
            handle_where_sent(change["new"])

    def _static_view(self) -> MemoryPicture:
        return MemoryPicture(self.sampler.snapshot(), self.title)

    def _cell_done(self, cell: Cell) -> None:
        self.refresh_static()

    def _push(self, batch: Batch) -> None:
        if self.comm is not None:
            self.send(batch)

    def _on_front_end_message(self, widget: Any, content: Any, buffers: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "memory.hello":
            if content.get("hosted") is not True:  # a front end without the output host (or an older one)
                self._static_seen_outside_host()
            language = content.get("language")
            if language in LANGUAGES:  # anything else (an older front end sends none) leaves the language alone
                learn_language(language)
                if self._own_title:
                    self.title = TITLE.get()
            self.send(self.sampler.snapshot())

