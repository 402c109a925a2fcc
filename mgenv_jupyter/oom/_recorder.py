"""`Recorder`: the always-on, low-rate subscription to the kernel's one sampler that makes an out-of-memory report
possible when no chart was open.

It asks the shared sampler (`memory.shared.kernel_sampler`) for one sample every `interval` seconds (1 s by default)
and for nothing else: no batches, no callback. The samples land in the sampler's own bounded history (the last 6000
rows at full resolution: 100 minutes at 1 Hz, then min/max buckets) and its cell markers give the per-cell peaks.
With a chart or the sidebar open the sampler runs at their faster rate and the recorder costs nothing more; alone it
is one tick a second (bench/oom_bench.py measures both).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..base._source_state import FOREIGN_PIDS
from ..memory._self_report import SelfReport

if TYPE_CHECKING:
    from ..memory._sampler import Sampler, Subscription

RECORDER_INTERVAL = 1.0  # seconds between samples while nothing faster is subscribed


def _kernel_sampler() -> Sampler:
    from ..memory._shared import kernel_sampler

    return kernel_sampler()


class Recorder:
    """Keeps the kernel's sampler going at `interval` seconds from `start()` to `stop()` (both idempotent).

    If the kernel's sampler is closed and replaced (`close_kernel_sampler()`), `ensure()` subscribes to the new one;
    the hook calls it after every cell, so recording resumes by the next cell.
    """

    def __init__(self, interval: float = RECORDER_INTERVAL,
                 sampler_factory: Callable[[], Sampler] = _kernel_sampler) -> None:
        self._interval = interval
        self._factory = sampler_factory
        self._subscription: Subscription | None = None
        self._sampler: Sampler | None = None
        self._lock = threading.Lock()
        self._self_report = SelfReport()
        self._reporting: Subscription | None = None

    @property
    def interval(self) -> float:
        """Seconds between samples asked of the sampler; a change applies to the running subscription at once."""
        return self._interval

    @interval.setter
    def interval(self, seconds: float) -> None:
        self._interval = seconds
        if self._subscription is not None and not self._subscription.closed:
            self._subscription.interval = seconds

    @property
    def recording(self) -> bool:
        return self._subscription is not None and not self._subscription.closed

    @property
    def sampler(self) -> Sampler | None:
        """The sampler recorded from (None before `start()`)."""
        return self._sampler

    def start(self) -> Recorder:
        with self._lock:
            if self._subscription is None or self._subscription.closed:
                self._sampler = self._factory()
                self._subscription = self._sampler.subscribe(None, interval=self.interval)
        return self

    def pause(self) -> None:
        """Stop recording until the next `ensure()` (the hook pauses during a cell that imports a framework)."""
        with self._lock:
            subscription = self._subscription
        if subscription is not None:
            subscription.close()

    def ensure(self) -> Sampler | None:
        """Recording again if the sampler was closed under us (only while started); the sampler. The simulated GPU
        follows MGENV_SIMULATE_GPU here too (the hook asks after every cell): a variable set in a cell is the device
        of the next cell, recorded or paused."""
        if self._subscription is not None and self._subscription.closed:
            self.start()
        if self._subscription is not None:
            from ..memory._sources import follow_simulated_gpu

            follow_simulated_gpu()
        self._report_if_unattributed()
        return self._sampler

    def _report_if_unattributed(self) -> None:
        """While NVML cannot find this kernel's processes (a container's own pid namespace), tell the Jupyter server
        what the kernel holds by its own account (memory/_self_report.py), at the recorder's rate. Batches are built
        for that only then: otherwise the recorder takes none."""
        sampler = self._sampler
        if sampler is None or not self.recording or (self._reporting is not None and not self._reporting.closed):
            return
        from ..memory._nvml_source import NvmlSource  # the sampler's sources imported it already

        if any(isinstance(source, NvmlSource) and source.state.has(FOREIGN_PIDS) for source in sampler.sources):
            self._reporting = sampler.subscribe(self._self_report, interval=self.interval)

    def stop(self) -> None:
        with self._lock:
            subscription, self._subscription = self._subscription, None
            reporting, self._reporting = self._reporting, None
        if subscription is not None:
            subscription.close()
        if reporting is not None:
            reporting.close()
            self._self_report.remove()
