"""Who holds each GPU's memory: every process NVML lists, attributed to the server kernel whose process tree contains
it, or shown as "other" (pid, user, name — never more, never offered for any action).

A process belongs to a kernel when the kernel's pid is the process itself or one of its ancestors. The walk goes up
from each listed process (a few /proc reads each), not down from every kernel, so its cost follows the number of GPU
processes, not the number of kernels. `attribute()` is pure given a `ProcessTable`; `LiveProcessTable` asks the
operating system through psutil.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from ..base._source_state import NO_DRIVER, NO_GPU, OK
from ..memory._gpu_processes import DeviceReading, GpuReading
from ..memory._state_words import state_text
from ..protocol._culling import CullingPolicy
from ..protocol._gpus import (
    GPUS_VERSION,
    FigureSource,
    GpuDeviceView,
    GpuHost,
    GpuKernelInfo,
    GpuKernelShare,
    GpuOtherProcess,
    GpuServerView,
    GpuViewState,
    PidNamespace,
)

if TYPE_CHECKING:
    from ._activity import Activity

MAX_ANCESTORS = 64  # deeper than any real process tree; a bound in case of a cycle while processes are reparented


@dataclass(frozen=True)
class KernelEntry:
    """One kernel of the server as the kernel and session managers describe it (`pid` None: not a local kernel)."""

    id: str
    name: str
    pid: int | None
    notebooks: tuple[str, ...]
    execution_state: str
    last_activity: datetime | None
    activity: Activity | None = None  # its cells as its IOPub channel told them (None: not watched)


class ProcessTable(Protocol):
    def parent(self, pid: int) -> int | None:
        """The parent's pid, or None when the process does not exist here (exited, or another pid namespace's)."""

    def user_and_name(self, pid: int) -> tuple[str | None, str | None]:
        """The process's user and executable name, each None when unknown."""


class LiveProcessTable:
    """The operating system's processes through psutil, remembered for one attribution (a table per read)."""

    def __init__(self) -> None:
        self._parents: dict[int, int | None] = {}

    def parent(self, pid: int) -> int | None:
        if pid not in self._parents:
            import psutil

            try:
                self._parents[pid] = psutil.Process(pid).ppid() if pid > 0 else None
            except (psutil.Error, OSError, ValueError):
                self._parents[pid] = None
        return self._parents[pid]

    def user_and_name(self, pid: int) -> tuple[str | None, str | None]:
        import psutil

        try:
            process = psutil.Process(pid)
        except (psutil.Error, ValueError):
            return None, None
        try:
            user: str | None = process.username()
        except (psutil.Error, KeyError):  # KeyError: a uid with no passwd entry
            user = None
        try:
            name: str | None = process.name()
        except psutil.Error:
            name = None
        return user, name


def owner(pid: int, kernel_pids: dict[int, str], table: ProcessTable) -> str | None:
    """The id of the kernel whose process tree contains `pid`, or None."""
    current: int | None = pid
    for _ in range(MAX_ANCESTORS):
        if current is None or current <= 1:
            return None
        if current in kernel_pids:
            return kernel_pids[current]
        current = table.parent(current)
    return None


# A kernel's own report by its pid (GPU index → bytes), or None: memory/_self_report.py read_report.
KernelReports = Callable[[int], "dict[int, int] | None"]
# The culler's policy (None: culling is off) and when it will shut each kernel it told down.
Culling = tuple["CullingPolicy | None", Mapping[str, datetime]]


def attribute(reading: GpuReading, kernels: Sequence[KernelEntry], now: datetime,
              table: ProcessTable | None = None, reports: KernelReports | None = None,
              culling: Culling = (None, {}), host: GpuHost | None = None) -> GpuServerView:
    """The server's GPU view (protocol/_gpus.py) from one NVML reading and the server's kernels at `now` (UTC).
    `reports` gives each kernel's own figures, used only where NVML's pids are another namespace's; `culling` the
    culler's policy (None: off) and when it will shut each kernel it told down (server/_culler.py)."""
    table = table if table is not None else LiveProcessTable()
    kernel_pids = {k.pid: k.id for k in kernels if k.pid is not None}
    listed = [p.pid for d in reading.devices for p in d.processes or ()]
    namespace: PidNamespace = "unknown"
    if listed:
        here = any(pid in kernel_pids or table.parent(pid) is not None for pid in listed)
        namespace = "same" if here else "foreign"
    state, detail = _state(reading)
    own: dict[str, dict[int, int] | None] = {}
    if namespace == "foreign" and reports is not None:
        own = {k.id: reports(k.pid) for k in kernels if k.pid is not None}
    return GpuServerView(
        v=GPUS_VERSION,
        state=state,
        detail=detail,
        simulated=reading.simulated,
        simulation=reading.simulation,
        namespace=namespace,
        kernels=[kernel_info(k, now, culling[1].get(k.id)) for k in kernels],
        devices=[_device(d, reading.simulated, kernels, kernel_pids, namespace, table, own) for d in reading.devices],
        read_at=reading.time,
        culling=culling[0],
        host=host,
    )


def _state(reading: GpuReading) -> tuple[GpuViewState, str | None]:
    """The view's state code from the reading's, and its detail in words (English, as the driver's own are)."""
    code = reading.state.code
    if code == OK:
        return ("ok", None) if reading.devices else ("no_gpu", None)
    if code in NO_DRIVER:
        return "no_driver", state_text(reading.state, "en")
    if code == NO_GPU:
        return "no_gpu", None
    return "error", state_text(reading.state, "en")


def kernel_info(kernel: KernelEntry, now: datetime, cull_at: datetime | None = None) -> GpuKernelInfo:
    """A kernel as the wire describes it. Its idleness is the time since it last ran a cell a user sent (or since it
    started, or since the server began watching it, with none run since: `idle_since` says which), never since its
    last message: a live chart's or the sidebar's messages do not count (server/_activity.py)."""
    idle, since, running, running_for = None, None, False, None
    activity = kernel.activity
    if activity is not None and kernel.execution_state not in ("starting", "restarting", "dead"):
        idle, since = activity.idle(now)
        running, running_for = activity.running is not None, activity.running_seconds(now)
    return GpuKernelInfo(
        id=kernel.id,
        name=kernel.name,
        notebooks=list(kernel.notebooks),
        execution_state=kernel.execution_state,
        last_activity=None if kernel.last_activity is None else kernel.last_activity.isoformat(),
        idle_seconds=idle,
        idle_since=since,
        running_cell=running,
        running_seconds=running_for,
        pid_known=kernel.pid is not None,
        cull_at=None if cull_at is None else cull_at.isoformat(),
    )


def _device(device: DeviceReading, simulated: bool, kernels: Sequence[KernelEntry], kernel_pids: dict[int, str],
            namespace: PidNamespace, table: ProcessTable, own: dict[str, dict[int, int] | None]) -> GpuDeviceView:
    shares: dict[str, int | None] = {}
    reported: set[str] = set()
    others: list[GpuOtherProcess] = []
    processes = device.processes or ()
    if namespace == "foreign" and device.processes is not None:
        # NVML's pids are another namespace's: nothing can be attributed by pid, and a share of 0 would be a lie; a
        # kernel's own report of its allocator stands in where there is one, labelled as such.
        for k in kernels:
            if k.pid is not None:
                held = (own.get(k.id) or {}).get(device.index)
                shares[k.id] = held
                if held is not None:
                    reported.add(k.id)
        others = [GpuOtherProcess(pid=p.pid, user=None, name=None, used=p.used) for p in processes]
    else:
        for process in processes:
            kernel = owner(process.pid, kernel_pids, table)
            if kernel is None:
                user, name = table.user_and_name(process.pid)
                others.append(GpuOtherProcess(pid=process.pid, user=user, name=name, used=process.used))
            elif process.used is None or shares.get(kernel, 0) is None:
                shares[kernel] = None  # the driver does not say (WDDM): unknown, not 0
            else:
                shares[kernel] = shares.get(kernel, 0) + process.used  # type: ignore[operator]
    figure: FigureSource = "unknown" if namespace == "foreign" else "nvml"
    share_list = [GpuKernelShare(kernel_id=kernel, used=used, figure="unknown" if used is None else
                                 "kernel_report" if kernel in reported else figure)
                  for kernel, used in shares.items() if used is None or used > 0]
    share_list.sort(key=lambda s: -(s["used"] or 0))
    others.sort(key=lambda o: -(o["used"] or 0))
    listed = sum(p.used or 0 for p in processes)
    return GpuDeviceView(
        index=device.index,
        label=f"gpu{device.index} (simulated)" if simulated else f"gpu{device.index}",
        name=device.name,
        total=device.total,
        used=device.used,
        shares=share_list,
        others=others,
        unlisted=max(0, device.used - listed),
        problem=device.problem or None,
    )
