"""The server's one GPU reader: the view every browser tab asks for, read at most about once a second.

The kernels and their notebooks are taken on the event loop (the kernel manager and the session manager live there);
the NVML read and the process walk run on a thread of their own, never on the event loop. Requests that arrive while
a read is under way wait for that read; a view younger than `min_age` is answered as it is. Nothing is read while
nobody asks.

The simulated GPU is one machine for the server and every kernel it started (memory/simulated/_shared_machine.py),
kept in the runtime directory: with `MGENV_SIMULATE_GPU` in the server's environment the server defines it and every
kernel of the server holds memory on it (`publish()`, once a second); without, the view shows the machine a kernel
asked for while someone holds memory on it. Servers whose environment names one machine file
(MGENV_SIMULATE_GPU_MACHINE: a hub's single-user servers) share one machine, each listing its own kernels on it. The
whole path then runs without a GPU, labelled "simulated". Each view names the machine the server runs on
(server/_host.py). Each kernel's idleness is the time since it last ran a user's cell (server/_activity.py), not
since its last message.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from typing import Any

from ..base._errors import InvalidValueError
from ..base._source_state import State
from ..memory._gpu_processes import GpuProcessReader, GpuReading
from ..memory._self_report import read_report
from ..memory.simulated import ENV
from ..memory.simulated._host_pids import host_pids, my_pid
from ..memory.simulated._machine_file import MACHINE_ENV, machine_path, shared_machine_path
from ..memory.simulated._scenario import Scenario
from ..memory.simulated._shared_machine import SharedMachine
from ..memory.simulated._simulation import Simulation
from ..protocol._gpus import GPUS_VERSION, GpuOwner, GpuOwnersReply, GpuServerView
from ._activity import KernelActivity
from ._attribution import Culling, KernelEntry, LiveProcessTable, attribute, kernel_info, owner
from ._culler import GpuCuller
from ._host import this_host

log = logging.getLogger(__name__)

# (pid, notebook paths) of each of the server's kernels, as the simulated machine lists them.
KernelPids = tuple[tuple[int, tuple[str, ...]], ...]


class GpuView:
    """One NVML reader for the whole server (`view()` gives protocol/_gpus.py's GpuServerView)."""

    def __init__(self, kernel_manager: Any, session_manager: Any, min_age: float = 0.5,
                 runtime_dir: str | None = None, activity: KernelActivity | None = None,
                 culler: GpuCuller | None = None) -> None:
        self.kernel_manager = kernel_manager
        self.session_manager = session_manager
        # Where kernels report their own figures when NVML cannot attribute them (memory/_self_report.py).
        self.runtime_dir = runtime_dir
        self.min_age = min_age
        self.activity = activity if activity is not None else KernelActivity(kernel_manager)
        self.culler = culler  # its policy and the kernels it told go into each view
        self._reader = GpuProcessReader()
        self._host = this_host()  # the node a hub's page shows this server's GPUs under
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mgenv-gpus")
        self._view: GpuServerView | None = None
        self._read_at = -float("inf")
        self._pending: asyncio.Future[GpuServerView] | None = None
        # The simulated machine this server shares with its kernels (and, with MACHINE_ENV, with other servers of
        # this host); one left by an earlier server of this pid goes (a shared one is other servers' too: it stays).
        self._shared = shared_machine_path()
        own = machine_path(runtime_dir, os.getpid()) if runtime_dir is not None else None
        self._machine = SharedMachine(self._shared or own)
        if self._shared is None:
            self._machine.discard()
        # jupyter_server stops its ExtensionApps only: a module extension such as this one is told nothing when the
        # server stops. The machine's files go when the server's process exits, after it has shut its kernels down.
        atexit.register(self._let_go)
        self._spec = os.environ.get(ENV, "").strip()
        self._simulation: Simulation | None = None
        self._simulation_problem: State | None = None
        self._published: KernelPids | None = None
        if self._spec:
            self._define()

    def _define(self) -> None:
        """The machine `MGENV_SIMULATE_GPU` asks for, kept for the server's life (a bad value is the view's error)."""
        try:
            data, name = Scenario.source(self._spec)
            Scenario.from_json(data, name)
            if self._shared is None:
                self._machine.define(self._spec, data, name, time.time(), kept=True)
            elif (shared := self._machine.share(self._spec, data, name, time.time(), my_pid())).spec != self._spec:
                log.warning("mgenv_jupyter: the simulated machine in %s (%s=%s) runs %s, not %s: joined as it is",
                            self._shared, MACHINE_ENV, self._shared, shared.spec, self._spec)
        except InvalidValueError as exc:
            self._simulation_problem = State("simulation_setting_refused", variable=ENV, error=exc)
            log.error("mgenv_jupyter: the simulated GPU is not started: %s", exc)

    def _follow(self) -> None:
        """Start, change or stop this process's simulation as the shared machine says (on the reader's thread)."""
        state = self._machine.read()
        if state is None or not state.in_use:
            if self._simulation is not None:
                self._simulation.uninstall()
                self._simulation = None
            return
        if self._simulation is None or self._simulation.machine_id != state.id:
            if self._simulation is not None:
                self._simulation.uninstall()
                self._simulation = None
            try:
                self._simulation = Simulation.following(self._machine, state).install()
            except InvalidValueError as exc:  # a machine file that is not one: no simulated GPU
                log.error("mgenv_jupyter: the simulated machine is not one: %s", exc)

    @property
    def simulated(self) -> bool:
        """Whether MGENV_SIMULATE_GPU in the server's environment asks for the simulated GPU, or one runs."""
        return bool(self._spec) or self._simulation is not None

    async def view(self) -> GpuServerView:
        loop = asyncio.get_running_loop()
        if self._view is not None and loop.time() - self._read_at < self.min_age:
            return self._view
        if self._pending is None:
            self._pending = asyncio.ensure_future(self._refresh())
            self._pending.add_done_callback(self._forget_pending)
        return await asyncio.shield(self._pending)

    async def publish(self) -> None:
        """List the server's kernels on the simulated machine the server defined (each holds memory on it, its
        notebook's share where the scenario names one), so that every kernel's own chart lists them too."""
        if not self._spec or self._simulation_problem is not None:
            return
        kernels = await self.kernels()
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._publish, _pids(kernels))

    def _publish(self, pids: KernelPids) -> None:
        if self._spec and self._simulation_problem is None and pids != self._published:
            # The machine lists host pids, as a driver does: a server in a pid namespace of its own translates its
            # kernels' (the simulation's knowledge, memory/simulated/_host_pids.py; the view itself never does).
            host = host_pids(tuple(pid for pid, _ in pids))
            self._machine.sync(tuple((host[pid], paths) for pid, paths in pids if pid in host), time.time(), my_pid())
            if len(host) == len(pids):  # one not found yet (starting, or gone meanwhile) is looked for again
                self._published = pids

    def close(self) -> None:
        """Release NVML (on the reader's thread, after any read under way), stop the simulated GPU, forget the
        machine the server shared and stop watching kernels."""
        self._executor.submit(self._reader.close)
        self._executor.shutdown(wait=True)
        if self._simulation is not None:
            self._simulation.uninstall()
        self._let_go()
        atexit.unregister(self._let_go)
        self.activity.close()

    def _let_go(self) -> None:
        """Forget the machine, or (one several servers share) leave it, taking this server's kernels off it."""
        if self._shared is None:
            self._machine.discard()
        else:
            self._machine.let_go(my_pid())

    def _forget_pending(self, _: object) -> None:
        self._pending = None

    async def _refresh(self) -> GpuServerView:
        kernels = await self.kernels()
        loop = asyncio.get_running_loop()
        # Taken on the event loop, where the culler changes them.
        culling: Culling = (None, {}) if self.culler is None else (self.culler.policy(), self.culler.cull_times())
        view = await loop.run_in_executor(self._executor, self._read, kernels, culling)
        self._view, self._read_at = view, loop.time()
        return view

    def _read(self, kernels: list[KernelEntry], culling: Culling) -> GpuServerView:
        if self._simulation_problem is not None:
            reading = GpuReading(datetime.now(timezone.utc).timestamp(), (), self._simulation_problem, True, None)
        else:
            self._publish(_pids(kernels))
            self._follow()
            reading = self._reader.read()
        runtime_dir = self.runtime_dir
        reports = None if runtime_dir is None else (lambda pid: read_report(runtime_dir, pid))
        return attribute(reading, kernels, datetime.now(timezone.utc), reports=reports, culling=culling,
                         host=self._host)

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
            if self.activity.get(kernel_id) is None:
                self.activity.watch(kernel_id)  # a kernel the server's events did not announce: from now on
            entries.append(KernelEntry(
                id=kernel_id,
                name=str(getattr(kernel, "kernel_name", "")),
                pid=pid if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 else None,
                notebooks=tuple(sorted(notebooks.get(kernel_id, ()))),
                execution_state=str(getattr(kernel, "execution_state", "unknown")),
                last_activity=_utc(getattr(kernel, "last_activity", None)),
                activity=self.activity.get(kernel_id),
            ))
        return entries


def _pids(kernels: list[KernelEntry]) -> KernelPids:
    return tuple((k.pid, k.notebooks) for k in kernels if k.pid is not None)


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
