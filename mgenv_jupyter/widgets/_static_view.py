"""What a saved notebook keeps of a widget: every chart and widget output carries a static view beside the live one.

A widget of ours is displayed (as a cell's last line or through `display()`) as one output whose bundle holds the
widget's view, its static view (text, HTML, and for the memory chart a picture: presentation's `MemoryPicture` and
`EditorSummary`), and OUTPUT_MIME for the labextension's output host (protocol/_output.py), with a display id of its
own. JupyterLab and Notebook 7 show the live widget while its kernel has it and the static view otherwise; nbconvert,
nbviewer and GitHub, which keep no widget state, show the HTML or the picture.

The static view is kept current by the kernel: after each cell, at most every REFRESH_SECONDS (a late cell's end is
caught up once the gap has passed), the output is updated in place through its display id, which also updates what
the notebook saves. Where the output is shown by the host, its live view is left as it is. A chart viewed anywhere
else (a front end without the host) would be drawn again by every update, so its static view then stays as it was
displayed.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from typing import Any

from ..protocol._output import OUTPUT_MIME, OUTPUT_VERSION

log = logging.getLogger(__name__)

REFRESH_SECONDS = 2.0


class StaticView:
    """A mixin for our widgets (before the widget class in the bases): `_static_view()` returns the presentation view
    whose bundle is the static view; `refresh_static()` brings the displayed outputs up to date."""

    _static_display_id: str | None = None
    _static_published: dict[str, Any] | None = None
    _static_last = 0.0
    _static_timer: threading.Timer | None = None
    _static_hosted_only = True  # every view that said where it is was inside the output host

    def _static_view(self) -> Any:
        raise NotImplementedError

    def _static_bundle(self) -> dict[str, Any]:
        try:
            bundle = dict(self._static_view()._repr_mimebundle_())
        except Exception:  # a static view is a courtesy: the live widget must show whatever it does
            log.exception("the static view of %s failed", type(self).__name__)
            return {}
        bundle[OUTPUT_MIME] = {"v": OUTPUT_VERSION}
        return bundle

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget's view, with the static view beside it (its text in place of the widget's repr) for every
        front end that cannot show the widget."""
        widget = super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]
        data, metadata = widget if isinstance(widget, tuple) else (widget, {})
        if data is None:
            return None
        return {**data, **self._static_bundle()}, metadata

    def _ipython_display_(self) -> None:
        """Display as one output with a display id of this widget's, so that its static view can be updated."""
        from IPython.display import display

        bundle = self._repr_mimebundle_()
        if bundle is None:
            return
        data, metadata = bundle
        if self._static_display_id is None:
            self._static_display_id = f"mgenv-{uuid.uuid4().hex}"
        self._static_published = data
        self._static_last = time.monotonic()
        display(data, metadata=metadata, raw=True, display_id=self._static_display_id)

    def refresh_static(self) -> None:
        """Bring every displayed output of this widget up to date: now, or once REFRESH_SECONDS have passed since
        the last update (one update for a burst of cells)."""
        if self._static_display_id is None or not self._static_hosted_only:
            return
        wait = REFRESH_SECONDS - (time.monotonic() - self._static_last)
        if wait > 0:
            if self._static_timer is None:
                self._static_timer = threading.Timer(wait, self._refresh_from_timer)
                self._static_timer.daemon = True
                self._static_timer.start()
            return
        self._publish_static()

    def _refresh_from_timer(self) -> None:
        self._static_timer = None
        self._publish_static()

    def _publish_static(self) -> None:
        from IPython.display import update_display

        published = self._static_published
        if published is None or self._static_display_id is None:
            return
        data = {**published, **self._static_bundle()}
        self._static_last = time.monotonic()
        if data != published:
            self._static_published = data
            update_display(data, raw=True, display_id=self._static_display_id)

    def _static_seen_outside_host(self) -> None:
        """A view outside the output host said hello: updates would draw it again, so the static view stays."""
        self._static_hosted_only = False

    def _stop_static(self) -> None:
        timer, self._static_timer = self._static_timer, None
        if timer is not None:
            timer.cancel()
