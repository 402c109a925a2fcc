"""What a kernel says it holds on each GPU, for its Jupyter server when NVML cannot tell (a container's pid namespace).

Inside a container with its own pid namespace NVML lists host pids that match no process here, so neither the
kernel nor the server can find the kernel's memory in NVML's process list. The kernel still knows what its
framework's allocator reserved on each GPU. While NVML cannot attribute its memory, the kernel's always-on recorder
writes that figure, at most once a second, to `<jupyter runtime dir>/mgenv-kernel-<pid>.json` (a file only its user
can read, as the server's own runtime files); the server extension reads it for the kernel with that pid and shows it
as the kernel's own report, not as NVML's figure. Nothing is written while NVML attributes the memory itself.
"""

from __future__ import annotations

import atexit
import json
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from ..base._ascii_numbers import whole_number
from ..base._bounded_json import loads
from ..base._regular_files import read_private_file
from ..protocol._memory import Batch, SeriesInfo
from ._sample import DeviceId

PREFIX = "mgenv-kernel-"
VERSION = 1
MAX_AGE_SECONDS = 5.0  # older than this, a report is stale: the kernel stopped recording or is gone
MAX_REPORT_BYTES = 64 * 1024
_MAX_REPORT_DEPTH = 3  # {"devices": {"0": {"bytes": ...}}}
_MAX_GPU_INDEX = 9999
_ALLOCATOR_QUANTITY = "reserved"  # what a caching allocator holds on the device: the closest to what NVML would list


def report_path(runtime_dir: str | os.PathLike[str], pid: int) -> Path:
    return Path(runtime_dir) / f"{PREFIX}{pid}.json"


def own_figures(batch: Batch, series: Mapping[str, SeriesInfo]) -> dict[int, tuple[int, str]] | None:
    """Per GPU index of this machine (bytes, source) from the framework allocators' latest figures, when NVML gave no
    figure of the kernel's own for that GPU; None when there is nothing to report. `series`: the fields of the
    batch's series, by key (a batch carries them only when they change)."""
    nvml: set[int] = set()
    found: dict[int, tuple[int, str]] = {}
    for key, values in batch["columns"].items():
        latest = next((v for v in reversed(values) if v is not None), None)
        info = series.get(key)
        if latest is None or info is None:
            continue
        device = DeviceId.of(info)
        index = device.gpu
        if index is None or device.node:  # a cluster node's GPU is not one of this machine's
            continue
        if info["quantity"] == "process" and not device.framework:
            nvml.add(index)
        elif info["quantity"] == _ALLOCATOR_QUANTITY and device.framework:
            bytes_, sources = found.get(index, (0, ""))
            found[index] = (bytes_ + int(latest), f"{sources}+{device.framework}" if sources else device.framework)
    figures = {index: figure for index, figure in found.items() if index not in nvml}
    return figures or None


class SelfReport:
    """A sampler subscriber (`Sampler.subscribe(SelfReport())`): writes the kernel's own figures at most every
    `interval` seconds while NVML cannot attribute them, and removes its file when they are no longer needed and at
    exit. Never raises: a failed write only means the server shows the memory as unknown."""

    def __init__(self, runtime_dir: str | None = None, interval: float = 1.0) -> None:
        self.runtime_dir = runtime_dir
        self.interval = interval
        self._written_at = -float("inf")
        self._path: Path | None = None
        self._series: dict[str, SeriesInfo] = {}  # the latest batch that carried them says every series' fields
        atexit.register(self.remove)

    def __call__(self, batch: Batch) -> None:
        if "series" in batch:
            self._series = {info["key"]: info for info in batch["series"]}
        now = time.monotonic()
        if now - self._written_at < self.interval:
            return
        self._written_at = now
        try:
            figures = own_figures(batch, self._series)
            if figures is None:
                self.remove()
                return
            self._write(figures)
        except Exception:  # a subscriber must never break the sampler
            pass

    def remove(self) -> None:
        if self._path is not None:
            try:
                self._path.unlink()
            except OSError:
                pass
            self._path = None

    def _write(self, figures: dict[int, tuple[int, str]]) -> None:
        directory = self.runtime_dir
        if directory is None:
            from jupyter_core.paths import jupyter_runtime_dir

            directory = self.runtime_dir = jupyter_runtime_dir()
        path = report_path(directory, os.getpid())
        data = {"v": VERSION, "pid": os.getpid(), "time": time.time(),
                "devices": {str(i): {"bytes": b, "source": s} for i, (b, s) in sorted(figures.items())}}
        fd, temporary = tempfile.mkstemp(prefix=".mgenv-kernel-", dir=directory)
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(data, f)
            os.replace(temporary, path)  # whole or not at all, for a server reading it meanwhile
        except BaseException:
            os.unlink(temporary)
            raise
        self._path = path


def read_report(runtime_dir: str | os.PathLike[str], pid: int, now: float | None = None) -> dict[int, int] | None:
    """The figures a kernel with `pid` reported (GPU index → bytes), or None: no report, stale, or not one. Never
    raises and never waits: the server asks this while every `/gpus` and `/owners` request waits for its reader.

    The file is trusted as the server's own runtime files are: a regular file (a FIFO is never waited on, a link is
    refused), owned by this user and writable by nobody else, of at most 64 KiB (_regular_files.read_private_file);
    then read as data, its nesting and numbers bounded (base/_bounded_json.py), field by field, a GPU index in ASCII
    digits only."""
    path = report_path(runtime_dir, pid)
    try:
        data = loads(read_private_file(path, MAX_REPORT_BYTES), _MAX_REPORT_DEPTH)
    except ValueError:  # missing, not trusted, not JSON, nested too deep, a number out of bounds
        return None
    if not isinstance(data, dict) or data.get("v") != VERSION or data.get("pid") != pid:
        return None
    written = data.get("time")
    if not isinstance(written, (int, float)) or abs((time.time() if now is None else now) - written) > MAX_AGE_SECONDS:
        return None
    devices = data.get("devices")
    figures: dict[int, int] = {}
    for key, value in devices.items() if isinstance(devices, dict) else ():
        size = value.get("bytes") if isinstance(value, dict) else None
        index = whole_number(key, 0, _MAX_GPU_INDEX) if isinstance(key, str) else None
        if index is not None and isinstance(size, int) and not isinstance(size, bool) and 0 <= size < 2**62:
            figures[index] = size
    return figures or None
