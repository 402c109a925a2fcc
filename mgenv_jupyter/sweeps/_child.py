"""The sweep's side inside each point's process: it measures the measured cell from the inside and writes what it
saw as one JSON report.

The point runner (`_local.py`, on this machine or on the node Ray placed the point on) runs, in the point's kernel:

    attach()   once, before anything: loads the extension, follows every cell's outcome, starts our own sampler,
               imports the modules the setup starts by importing (`WARM_ENV`), perhaps while an earlier point runs
    …          the setup cells, each as a cell of its own
    begin()    the measured phase starts: the frameworks' peak counters and the kernel's resident high-water mark are
               reset, samples are kept from here
    …          the measured cell, `repeat` times
    end()      the report: each run's seconds and outcome, the peaks, the memory over time, the values the kernel had

`attach`, `begin` and `end` run as silent requests, which IPython does not count as cells: the probe hears only the
user's cells (memory/_cell_events.py). Nothing here is given code: the report's path and the swept names come in the
environment the parent started the point with (`REPORT_ENV`, `NAMES_ENV`).

Memory is sampled by a sampler of our own (the memory layer's `Sampler`, 20 times a second), reading the same GPU
sources as the chart (NVML for the process tree, the simulated GPU where `MGENV_SIMULATE_GPU` asks) and, always, the
process tree's resident memory; where Linux allows it the kernel's own resident high-water mark (`VmHWM`, reset through
/proc/self/clear_refs) catches a peak shorter than a sampling interval.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any

from ..base._kernel_state import Slot
from ..catalog._secrets import redact
from ..memory._cell_events import Cell, Order, cell_follower
from ..memory._sampler import Sampler
from ..memory._sources import measurement_sources

REPORT_ENV = "MGENV_SWEEP_REPORT"  # where `end()` writes the report (a file in the parent's private directory)
NAMES_ENV = "MGENV_SWEEP_VARIABLES"  # the swept names, comma-separated: the values the kernel had are reported
WARM_ENV = "MGENV_SWEEP_IMPORTS"  # the modules the setup imports first, comma-separated: imported by `attach()`
SAMPLE_INTERVAL = 0.05
MAX_TIMELINE = 600  # points of the memory-over-time curve kept per point (bucket maxima beyond)
MAX_MESSAGE = 500  # characters of an exception's message kept
PARTIAL_SECONDS = 1.0  # how often the report so far is written while the measured cell runs
REPORT_VERSION = 1


class Probe:
    """Follows one shell's cells and samples memory; see the module help."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.cells: list[dict[str, Any]] = []  # each finished user cell: seconds, outcome, failure; in order
        self.measured_from = 0  # index into `cells` of the first measured run
        self._lock = threading.Lock()
        self._series: dict[str, dict[str, Any]] = {}
        self._timeline: list[list[float | int | None]] = []  # [seconds since begin, device bytes, host bytes]
        self._measuring = False
        self._begun_at = 0.0
        self._hwm_reset = False
        self._partial_at = 0.0
        self.attached = time.time()
        self.values: dict[str, str | None] = {}
        self.statuses: dict[str, str] = {}
        self.framework_reset: list[str] = []
        self.sampler = Sampler(measurement_sources(SAMPLE_INTERVAL), interval=SAMPLE_INTERVAL)
        self._subscription = self.sampler.subscribe(self._batch, interval=SAMPLE_INTERVAL)
        self.sampler.start()
        follower = cell_follower(shell)
        self._cells = follower.subscribe(Order.PROBE, ended=self._ended) if follower is not None else None

    # ---- cells ---------------------------------------------------------------------------------------------------

    def _ended(self, cell: Cell) -> None:
        record: dict[str, Any] = {"seconds": cell.duration, "outcome": "ok", "failure": None}
        if cell.error is not None:
            record.update(_failure(cell.error))
        with self._lock:
            self.cells.append(record)

    # ---- the measured phase --------------------------------------------------------------------------------------

    def begin(self) -> None:
        from ..runtime.frameworks import reset_peak_counters

        self.framework_reset = reset_peak_counters()
        self._hwm_reset = _reset_high_water_mark()
        names = [name for name in os.environ.get(NAMES_ENV, "").split(",") if name]
        self.values = {name: os.environ.get(name) for name in names}
        self.statuses = _statuses(names)
        with self._lock:
            self.measured_from = len(self.cells)
            self._timeline = []
            self._begun_at = time.time()
            self._measuring = True
        self.sampler.sample_once()
        self._write_partial()

    def _write_partial(self) -> None:
        """The report so far, for a point that times out or crashes before `end()`: its values, its setup's outcome
        and the memory up to its last second."""
        path = os.environ.get(REPORT_ENV)
        if path:
            self._partial_at = time.monotonic()
            try:
                _write(path, self.report(final=False))
            except OSError:  # the parent's directory is gone: the sweep ended this point
                pass

    def end(self) -> dict[str, Any]:
        self.sampler.sample_once()
        self.sampler.flush()
        with self._lock:
            self._measuring = False
        return self.report()

    def report(self, final: bool = True) -> dict[str, Any]:
        """What was measured so far (`final=False`: while the cell still runs, for a point that may never end)."""
        from ..runtime.frameworks import peak_counters

        with self._lock:
            setup, runs = self.cells[:self.measured_from], self.cells[self.measured_from:]
            timeline = list(self._timeline)
        device = [row[1] for row in timeline if row[1] is not None]
        host = [row[2] for row in timeline if row[2] is not None]
        high_water = _high_water_mark() if self._hwm_reset else None
        peak_host = max([*host, *([high_water] if high_water is not None else [])], default=None)
        totals = [info["total"] for info in self._series.values() if info.get("total")]
        gpus = sorted({info["device"] for info in self._series.values() if info["quantity"] == "process"})
        return {
            "version": REPORT_VERSION, "pid": os.getpid(), "python": sys.version.split()[0],
            "setup": setup, "runs": runs,
            "peak_device_bytes": max(device) if device else None,
            "device_total_bytes": min(totals) if totals else None,
            "devices": gpus, "simulated": any(info["simulated"] for info in self._series.values()),
            "peak_host_bytes": peak_host, "host_high_water_bytes": high_water,
            "framework_peaks": peak_counters() if final else {}, "framework_reset": self.framework_reset,
            "timeline": _thin(timeline), "values": self.values, "statuses": self.statuses,
            "attached": self.attached, "started": self._begun_at, "finished": time.time(), "final": final,
        }

    def close(self) -> None:
        self._subscription.close()
        self.sampler.close()
        if self._cells is not None:
            self._cells.close()

    def _batch(self, batch: Any) -> None:
        """Fold one of the sampler's batches into the timeline: the process tree's memory summed over the GPUs
        (NVML's "process" series), and its resident host memory."""
        for info in batch.get("series", ()):
            if info["key"] not in self._series and (info["source"].startswith("nvml") or info["device"] == "host"):
                self._series[info["key"]] = {"device": info["device"], "quantity": info["quantity"],
                                             "simulated": info["simulated"], "total": None}
        columns = batch.get("columns", {})
        for key, info in self._series.items():
            if info["quantity"] == "total" and info["device"] != "host":
                values = [v for v in columns.get(key, ()) if v is not None]
                if values:
                    info["total"] = values[-1]
        gpu_keys = [key for key, info in self._series.items()
                    if info["quantity"] == "process" and info["device"] != "host"]
        host_key = next((key for key, info in self._series.items()
                         if info["device"] == "host" and info["quantity"] == "process"), None)
        with self._lock:
            if not self._measuring:
                return
            for i, t in enumerate(batch.get("t", ())):
                if t < self._begun_at:  # sampled before the measured phase, sent after it began
                    continue
                readings = [columns[key][i] for key in gpu_keys if key in columns and columns[key][i] is not None]
                host = columns[host_key][i] if host_key is not None and host_key in columns else None
                self._timeline.append([round(t - self._begun_at, 3), sum(readings) if readings else None, host])
        if time.monotonic() - self._partial_at >= PARTIAL_SECONDS:
            self._write_partial()


def _failure(error: BaseException) -> dict[str, Any]:
    """A failed cell's outcome: out of memory when the out-of-memory report would say so, else an error; the
    exception's class and the first part of its message, credentials masked."""
    from ..oom._recognise import recognise

    try:
        event = recognise(error)
    except Exception:  # recognising must never be what fails the point
        event = None
    kind = type(error)
    failure: dict[str, Any] = {"type": f"{kind.__module__}.{kind.__qualname__}",
                               "message": redact(str(error)[:MAX_MESSAGE * 4])[:MAX_MESSAGE]}
    if event is not None:
        failure.update({"framework": event.framework, "device": event.device, "requested": event.requested})
        return {"outcome": "oom", "failure": failure}
    return {"outcome": "error", "failure": failure}


def _statuses(names: list[str]) -> dict[str, str]:
    """What the session says of each swept variable in this kernel (effective, already read …), as status codes."""
    try:
        from ..runtime import session

        current = session()
        return {name: current.state(name).status.value for name in names}
    except Exception:  # a status is a courtesy; the values themselves are the measurement
        return {}


def _reset_high_water_mark() -> bool:
    """Reset this process's resident high-water mark (Linux 4.0+: "5" to /proc/self/clear_refs); False where the
    kernel or the container does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def _high_water_mark() -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _thin(rows: list[list[float | int | None]]) -> dict[str, list[Any]]:
    """At most MAX_TIMELINE rows: consecutive rows merged by their maxima, so no peak is lost."""
    step = max(1, -(-len(rows) // MAX_TIMELINE))
    t: list[float] = []
    device: list[int | None] = []
    host: list[int | None] = []
    for start in range(0, len(rows), step):
        chunk = rows[start:start + step]
        t.append(float(chunk[0][0] or 0.0))
        for column, out in ((1, device), (2, host)):
            values = [int(value) for row in chunk if (value := row[column]) is not None]
            out.append(max(values) if values else None)
    return {"t": t, "device": device, "host": host}


# ---- what the point runner calls (silent requests in the point's kernel) -------------------------------------------

# In a sweep's point kernel, the probe that measures its cells.
_PROBE: Slot[Probe] = Slot("the sweep point's probe")


def attach(shell: Any = None) -> None:
    """Load the extension and start following this shell's cells (once per process)."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    if _PROBE.get() is not None:
        return
    shell.extension_manager.load_extension("mgenv_jupyter")
    _PROBE.set(Probe(shell))
    _import_ahead(os.environ.get(WARM_ENV, ""))
    # What `begin()` asks the session loads the catalog the first time: done now, perhaps while an earlier point
    # runs, not in the measured point's turn. Asking changes nothing; `begin()` asks again.
    _statuses([name for name in os.environ.get(NAMES_ENV, "").split(",") if name])


def _import_ahead(names: str) -> None:
    """Import what the setup imports first, so that its cells find it loaded; a module that fails to import fails
    again, with its own error, when the setup imports it."""
    import importlib

    for name in names.split(","):
        if name:
            try:
                importlib.import_module(name)
            except (Exception, SystemExit):  # the setup's own import says what is wrong, in the point's outcome
                pass


def begin() -> None:
    _current().begin()


def end() -> dict[str, Any]:
    """The report; written to `REPORT_ENV`'s file as well when the environment names one (atomically: a reader
    never sees half of it)."""
    report = _current().end()
    path = os.environ.get(REPORT_ENV)
    if path:
        _write(path, report)
    return report


def _current() -> Probe:
    probe = _PROBE.get()
    if probe is None:
        raise RuntimeError("the sweep's probe is not attached in this process")
    return probe


def _write(path: str, report: dict[str, Any]) -> None:
    partial = f"{path}.partial"
    with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as out:
        json.dump(report, out)
    os.replace(partial, path)

