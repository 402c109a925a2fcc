"""The server's one GPU reader: the view every browser tab asks for, read at most about once a second.

The kernels and their notebooks are taken on the event loop (the kernel manager and the session manager live there);
the NVML read and the process walk run on a thread of their own, never on the event loop. Requests that arrive while
a read is under way wait for that read; a view younger than `min_age` is answered as it is. Nothing is read while
nobody asks.

With `MGENV_SIMULATE_GPU` in the server's environment, the simulated GPU's processes are the server's real kernels
(memory/simulated/_simulation.py, `kernels`): the whole path runs without a GPU, labelled "simulated".
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from typing import Any

from .._errors import InvalidValueError
from ..memory._gpu_processes import GpuProcessReader, GpuReading
from ..memory._self_report import read_report
from ..memory.simulated import ENV
from ..memory.simulated._simulation import Simulation
from ..protocol._gpus import GPUS_VERSION, GpuOwner, GpuOwnersReply, GpuServerView
from ._attribution import KernelEntry, LiveProcessTable, attribute, kernel_info, owner

log = logging.getLogger(__name__)


class GpuView:
    """One NVML reader for the whole server (`view()` gives protocol/_gpus.py's GpuServerView)."""

    def __init__(self, kernel_manager: Any, session_manager: Any, min_age: float = 0.5,
                 runtime_dir: str | None = None) -> None:
        self.kernel_manager = kernel_manager
        self.session_manager = session_manager
        # Where kernels report their own figures when NVML cannot attribute them (memory/_self_report.py).
        self.runtime_dir = runtime_dir
        self.min_age = min_age
        self._reader = GpuProcessReader()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mgenv-gpus")
        self._view: GpuServerView | None = None
        self._read_at = -float("inf")
        self._pending: asyncio.Future[GpuServerView] | None = None
        # What the simulated GPU lists: a new tuple only when the kernels changed (it compares by identity).
        self._kernel_pids: tuple[tuple[int, tuple[str, ...]], ...] = ()
        self._simulation: Simulation | None = None
        self._simulation_problem: str | None = None
        self._simulation_spec = os.environ.get(ENV, "").strip()

    def _simulate(self) -> None:
        """Start the simulated GPU `MGENV_SIMULATE_GPU` asks for, on the first read (on the reader's thread)."""
        spec, self._simulation_spec = self._simulation_spec, ""
        if not spec:
            return
        try:
            self._simulation = Simulation(spec, kernels=lambda: self._kernel_pids).install()
        except InvalidValueError as exc:
            self._simulation_problem = f"{ENV}: {exc}"
            log.error("mgenv_jupyter: the simulated GPU is not started: %s", exc)

    @property
    def simulated(self) -> bool:
        """Whether MGENV_SIMULATE_GPU asks for the simulated GPU (started on the first read)."""
        return bool(self._simulation_spec) or self._simulation is not None

    async def view(self) -> GpuServerView:
        loop = asyncio.get_running_loop()
        if self._view is not None and loop.time() - self._read_at < self.min_age:
            return self._view
        if self._pending is None:
            self._pending = asyncio.ensure_future(self._refresh())
            self._pending.add_done_callback(self._forget_pending)
        return await asyncio.shield(self._pending)

    def close(self) -> None:
        """Release NVML (on the reader's thread, after any read under way) and stop the simulated GPU."""
        self._executor.submit(self._reader.close)
        self._executor.shutdown(wait=True)
        if self._simulation is not None:
            self._simulation.uninstall()

    def _forget_pending(self, _: object) -> None:
        self._pending = None

    async def _refresh(self) -> GpuServerView:
        kernels = await self.kernels()
        pids = tuple((k.pid, k.notebooks) for k in kernels if k.pid is not None)
        if pids != self._kernel_pids:
            self._kernel_pids = pids
        loop = asyncio.get_running_loop()
        view = await loop.run_in_executor(self._executor, self._read, kernels)
        self._view, self._read_at = view, loop.time()
        return view

    def _read(self, kernels: list[KernelEntry]) -> GpuServerView:
        self._simulate()
        if self._simulation_problem is not None:
            reading = GpuReading(datetime.now(timezone.utc).timestamp(), (), self._simulation_problem, True, None)
        else:
            reading = self._reader.read()
        runtime_dir = self.runtime_dir
        reports = None if runtime_dir is None else (lambda pid: read_report(runtime_dir, pid))
        return attribute(reading, kernels, datetime.now(timezone.utc), reports=reports)

    async def owners(self, pids: list[int]) -> GpuOwnersReply:
        """Which kernel of this server holds each process (the process walk on the reader's thread)."""
        kernels = await self.kernels()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, _owners, pids, kernels)

    async def kernels(self) -> list[KernelEntry]:
        """The server's kernels, each with its sessions' notebook paths (the session manager's view)."""
        notebooks: dict[str, list[str]] = {}
        for session in await self.session_manager.list_sessions():
            kernel = session.get("kernel") or {}
            path = session.get("path")
            if kernel.get("id") and isinstance(path, str):
                notebooks.setdefault(kernel["id"], []).append(path)
        entries = []
        for kernel_id in list(self.kernel_manager.list_kernel_ids()):
            try:
                kernel = self.kernel_manager.get_kernel(kernel_id)
            except KeyError:  # shut down since it was listed
                continue
            pid = getattr(getattr(kernel, "provisioner", None), "pid", None)
            entries.append(KernelEntry(
                id=kernel_id,
                name=str(getattr(kernel, "kernel_name", "")),
                pid=pid if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 else None,
                notebooks=tuple(sorted(notebooks.get(kernel_id, ()))),
                execution_state=str(getattr(kernel, "execution_state", "unknown")),
                last_activity=_utc(getattr(kernel, "last_activity", None)),
            ))
        return entries


def _owners(pids: list[int], kernels: list[KernelEntry]) -> GpuOwnersReply:
    table = LiveProcessTable()
    by_pid = {k.pid: k.id for k in kernels if k.pid is not None}
    by_id = {k.id: k for k in kernels}
    now = datetime.now(timezone.utc)
    found: list[GpuOwner] = []
    for pid in pids:
        kernel_id = owner(pid, by_pid, table)
        found.append(GpuOwner(pid=pid, kernel=None if kernel_id is None else kernel_info(by_id[kernel_id], now)))
    return GpuOwnersReply(v=GPUS_VERSION, owners=found)


def _utc(moment: object) -> datetime | None:
    if not isinstance(moment, datetime):
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
