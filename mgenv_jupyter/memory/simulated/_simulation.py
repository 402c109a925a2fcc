"""The simulated GPU: `MGENV_SIMULATE_GPU=<preset or scenario file>` in the environment of a kernel or its server.

It exists for tests and demos on machines without a GPU. A scenario drives a fake NVML library (`_fake_nvml.py`)
installed behind the real pynvml, so the NVML source runs its real code path; every reading from it is labelled
"simulated" (`Sample.simulated`, the source's name, the device label), and the source names the scenario
(`NvmlSource.simulation`).

Presets (`MGENV_SIMULATE_GPU=training`):

- `a100-40gb`: one A100 40 GB; the kernel holds about 2 GiB, rising and falling a little.
- `2xv100`: two V100 16 GB; the kernel works on gpu0; 5 GiB that are not the kernel's sit on gpu1.
- `training`: one A100 40 GB; the kernel grows 256 MiB a step (1 s) with a 1 GiB activation sawtooth, two worker
  processes (real children of the kernel, like DataLoader workers) appear at 3 s with 300 MiB each, and NVML fails
  from 20 s to 23 s (NVML_ERROR_UNKNOWN) then recovers; the timeline repeats every 90 s.
- `no-driver`: libnvidia-ml.so.1 is missing. `driver-not-loaded`: the library loads, the driver is not loaded.
- `mig`: an A100 in MIG mode; per-process memory is refused (NO_PERMISSION) as for a full-device handle.
- `no-process-memory`: the driver lists processes but reports their memory as not available (as under WDDM).
- `container`: the kernel's memory is listed under host PIDs that do not exist in this PID namespace.
- `mirror-1gb`, `mirror-4x1gb`: one or four 1 GiB devices on which the kernel holds what its process tree really
  holds in host memory, on the device CUDA_VISIBLE_DEVICES gives it first: a sweep's points peak as their cells
  really allocate, pinned one per device.

One machine (`_shared_machine.py`): the processes on the devices are those that hold memory on the machine, each
that asked for the scenario following its kernel timeline from the moment it asked, each that did not (listed by the
server only, or on the device when another process switched it to this scenario) holding the timeline's start (a
little more for each later place on the machine, so that they differ) or, for a kernel of a notebook the device's
`notebooks` names, exactly that share; their worker processes; and the scenario's other processes (one named by pid
as a holder is is listed once, with both figures). A device holds no more than it has, as a real one: memory held
already stays, and a process that climbs gets at most what is left (those there first, or that started earlier,
first), so the listed processes, `others` and `reserved` never add up to more than `total` (except on a device
mirroring host memory: what it shows is measured, and a sweep's point that needs more than the device is seen so).
Served by a Jupyter server, the server and every kernel it started share one machine, so all of them list the same
processes with the same figures; anywhere else a process has a machine of its own, holding only itself.

The scenario format, its bounds and the presets are in `_scenario.py`.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ...base._ascii_numbers import whole_number
from ._fake_nvml import FakeDevice, FakeNvml, FakeProcess
from ._host_pids import host_pids, my_pid
from ._scenario import ENV, PRESETS, DeviceSpec, Scenario, nvml_error
from ._shared_machine import Holder, Machine, SharedMachine, alive, server_machine

if TYPE_CHECKING:
    from .._process_tree import ProcessTree

__all__ = ["ENV", "PRESETS", "Scenario", "Simulation", "from_environment", "running", "stop_environment"]

log = logging.getLogger(__name__)

_SAME_MOMENT = 0.001  # seconds: NVML calls closer than this belong to one sample
_RELIST_SECONDS = 1.0  # how often the simulation looks at who is on the machine (and whether workers still live)
_FOREIGN_PID_OFFSET = 1 << 22  # above Linux's largest pid_max: such a PID cannot exist in this namespace
_KERNEL_STAGGER = 512 * 1024**2  # a holder in each later place holds this much more than the one before (cycling)
_PAGE = 2 * 1024**2  # CUDA allocators hand out 2 MB pages
_STAGGER_CYCLE = 5


class Simulation:
    """A running scenario on a machine: a `FakeNvml` whose devices follow the scenario's timeline, listing the
    machine's holders, with real worker processes for this process's own holder.

    `Simulation(scenario)` has a machine of its own, in memory, on which this process holds memory from `install()`;
    `Simulation.following(machine, defined)` lists what a shared machine says. `clock` (seconds) can be replaced in
    tests to step through the timeline; a shared machine's times are seconds since the epoch.
    """

    def __init__(self, scenario: Scenario | str, clock: Callable[[], float] = time.time,
                 machine: SharedMachine | None = None, defined: Machine | None = None) -> None:
        self.scenario = Scenario.load(scenario) if isinstance(scenario, str) else scenario
        self.clock = clock
        self.machine = machine if machine is not None else SharedMachine()
        self.defined = defined  # the definition followed (None: this simulation defines its own machine at install)
        self.fake = FakeNvml(
            [FakeDevice(name=d.name, total=d.total, others=d.others, reserved=d.reserved, mig=d.mig)
             for d in self.scenario.devices],
            library=self.scenario.library,
            driver=self.scenario.driver,
            before_call=self.advance,
            name=self.scenario.name,
        )
        self.workers: list[_Worker] = []
        self._no_permission = nvml_error("NO_PERMISSION")
        self._spawned: set[tuple[int, int]] = set()
        self._installed = False
        self._advanced_at = -float("inf")
        self._listed_at = -float("inf")
        self._next_spawn = float("inf")
        self._started = 0.0
        self._listed: Machine | None = None  # the machine as it was when the processes were last listed
        # What each device lists: its spec, the bytes of the processes that are not holders' own use (workers, the
        # scenario's other processes), and per holder, in the order the device's memory goes to them, the process
        # entry updated in place, the holder it stands for and bytes the scenario's other processes add under its pid.
        self._devices: list[tuple[DeviceSpec, int, list[tuple[FakeProcess, Holder, int]]]] = []
        self._trees: dict[int, ProcessTree] = {}  # a holder's process tree, for a device that mirrors its host memory
        self._lock = threading.Lock()

    @classmethod
    def following(cls, machine: SharedMachine, defined: Machine, clock: Callable[[], float] = time.time
                  ) -> Simulation:
        """A simulation of the shared machine `defined` (raises `InvalidValueError` when its scenario is not one)."""
        return cls(Scenario.from_json(defined.scenario, defined.name), clock, machine, defined)

    @property
    def label(self) -> str:
        return f"simulated ({self.scenario.name})"

    @property
    def machine_id(self) -> str | None:
        return None if self.defined is None else self.defined.id

    def install(self) -> Simulation:
        if not self._installed:
            if self.defined is None:  # a machine of its own: this process holds memory on it from now on
                now = self.clock()
                self.machine.define("", None, self.scenario.name, now, by=my_pid())
            self._installed = True
        self.fake.install()
        self.advance()
        return self

    def uninstall(self) -> None:
        self.fake.uninstall()
        for worker in self.workers:
            _stop(worker.process)
        self.workers.clear()
        self._spawned.clear()
        self._advanced_at = -float("inf")
        self._listed_at = -float("inf")
        if self.defined is None and self._installed:
            self.machine.remove()
        self._installed = False

    def __enter__(self) -> Simulation:
        return self.install()

    def __exit__(self, *exc: object) -> None:
        self.uninstall()

    def advance(self) -> None:
        """Bring the fake devices to the scenario's state at the current time (called before every NVML call)."""
        now = self.clock()
        if abs(now - self._advanced_at) < _SAME_MOMENT:
            return  # the other calls of the same sample see the same state, as from a real driver
        with self._lock:
            self._advanced_at = now
            state = self.machine.read()  # a stat of its file: parsed again only when it changed
            if now - self._listed_at >= _RELIST_SECONDS or now >= self._next_spawn or state is not self._listed:
                self._list_processes(now, state)  # who is on each device: changes rarely
            scenario = self.scenario
            for spec, fixed, entries in self._devices:
                room = spec.total - spec.others - spec.reserved - fixed  # what the holders' own use may take
                for process, holder, extra in entries:
                    # What a process asks beyond what is left it does not get, as from a real device: the rest went
                    # to those before it. A mirror of host memory is a measurement, never cut: a sweep's point that
                    # allocates more than the device has is to be seen as not fitting it.
                    held = self._use(spec, holder, now)
                    held = held if spec.kernel is not None and spec.kernel.host else min(
                        held, max(0, room) // _PAGE * _PAGE)
                    room -= held
                    process.used = held + extra if spec.process_memory else None
            t = now - self._started
            t = t % scenario.period if scenario.period > 0 else t
            failure = None
            for window in scenario.errors:
                if window.at <= t < window.at + window.duration:
                    failure = window.code
                    break
            self.fake.failure = failure

    def _use(self, spec: DeviceSpec, holder: Holder, now: float) -> int:
        """What `holder` asks for on a device at `now`: its notebook's share, or the scenario's kernel timeline from
        when it asked for the scenario (its start when it did not, and from the moment it gave its cache back), a
        little more for each later place on the machine."""
        fixed = _share(spec, holder)
        if fixed is not None:
            return fixed
        if spec.kernel is None:
            return 0
        if spec.kernel.host:
            # Its own process tree only (another namespace's processes are not to be seen here).
            return self._host_bytes(os.getpid() if holder.pid == my_pid() else holder.pid)
        if holder.joined is None or (holder.released is not None and holder.released <= now):
            t = 0.0  # not asking for this scenario, or given back: its start
        else:
            t = now - holder.joined
            t = t % self.scenario.period if self.scenario.period > 0 else t
        return spec.kernel.at(max(t, 0.0), self.scenario.step_seconds) + holder.order % _STAGGER_CYCLE * _KERNEL_STAGGER

    def _host_bytes(self, pid: int) -> int:
        """What a holder's process tree holds in host memory now, in the 2 MB pages a CUDA allocator hands out."""
        tree = self._trees.get(pid)
        if tree is None:
            from .._process_tree import ProcessTree

            tree = self._trees[pid] = ProcessTree(pid, max_age=0.1)
        return tree.rss() // (2 * 1024**2) * (2 * 1024**2)

    def release(self) -> bool:
        """This process gave its allocators' cached memory back (`oom.free`, once it asked a framework's allocator to):
        from now on it holds its scenario's
        `start` on every device (what its live objects hold), as a real driver sees a process shrink after
        `torch.cuda.empty_cache()`, and so does every other process that shares the machine. The simulation has no
        allocations of its own to give back; this is its whole model of a release. False when this process holds
        nothing on the machine."""
        state = self.machine.read()
        if state is None or state.holder(my_pid()) is None:
            return False
        self.machine.update(my_pid(), released=self.clock())
        with self._lock:
            self._advanced_at = -float("inf")  # the next NVML call sees it (the machine's file changed)
        return any(spec.kernel is not None for spec in self.scenario.devices)

    def _list_processes(self, now: float, state: Machine | None) -> None:
        self._listed_at, self._listed = now, state
        if state is None or (self.defined is not None and state.id != self.defined.id):
            state = None  # defined anew or gone: whoever follows the machine replaces this simulation
        self._started = state.started if state is not None else self._started
        holders = sorted(state.live_holders() if state is not None else (), key=lambda h: h.order)
        mine = next((h for h in holders if h.pid == my_pid()), None)
        if mine is not None:
            self._spawn_workers(mine, now)
            holders = [h if h.pid != mine.pid else _with_workers(h, self.workers) for h in holders]
        self._devices = []
        first = sorted(holders, key=_first_served)
        for index, (spec, device) in enumerate(zip(self.scenario.devices, self.fake.devices, strict=True)):
            def listed(pid: int, used: int | None, spec: DeviceSpec = spec) -> FakeProcess:
                pid = pid + _FOREIGN_PID_OFFSET if spec.foreign_namespace else pid
                return FakeProcess(pid, used if spec.process_memory else None)

            others = dict(spec.other_processes)
            processes, entries = [], {}
            for holder in holders:
                if _share(spec, holder) is None and (spec.kernel is None or (
                        spec.kernel.host and index != _device_of(holder))):
                    continue
                process = listed(holder.pid, None)
                entries[holder.pid] = (process, holder, others.pop(holder.pid, 0))
                processes.append(process)
            workers = [(pid, size) for holder in holders for pid, device_index, size in holder.workers
                       if device_index == index and alive(pid)]
            processes.extend(listed(pid, size) for pid, size in workers)
            processes.extend(FakeProcess(pid, used if spec.process_memory else None) for pid, used in others.items())
            fixed = (sum(size for _, size in workers) + sum(others.values())
                     + sum(extra for _, _, extra in entries.values()))
            self._devices.append((spec, fixed, [entries[h.pid] for h in first if h.pid in entries]))
            device.processes = processes
            device.process_error = self._no_permission if spec.mig else None

    def _spawn_workers(self, mine: Holder, now: float) -> None:
        """This process's own workers (real children, as a DataLoader's), as the scenario starts them on its
        timeline; the machine learns their pids so that every process lists them."""
        waiting = []
        started = False
        if mine.joined is None:
            return
        for index, spec in enumerate(self.scenario.devices):
            for group, workers in enumerate(spec.workers):
                if (index, group) in self._spawned:
                    continue
                if now - mine.joined >= workers.at:
                    self._spawned.add((index, group))
                    self.workers.extend(_Worker(index, workers.bytes, _spawn_worker()) for _ in range(workers.count))
                    started = True
                else:
                    waiting.append(mine.joined + workers.at)
        self._next_spawn = min(waiting, default=float("inf"))
        if started:
            self.machine.update(my_pid(), workers=_listed_workers(self.workers))


def _first_served(holder: Holder) -> tuple[float, int]:
    """The order in which a device's memory goes to holders: one that holds its start (or its share) without
    running a timeline has held it since it came, then those running, the one that started first first."""
    return (-float("inf") if holder.joined is None else holder.joined, holder.order)


def _with_workers(holder: Holder, workers: list[_Worker]) -> Holder:
    """`holder` with this process's workers as they are (those just started included, before the machine's file
    says so)."""
    return replace(holder, workers=_listed_workers(workers))


def _listed_workers(workers: list[_Worker]) -> tuple[tuple[int, int, int], ...]:
    """This process's workers as the machine lists them: (host pid, device index, bytes)."""
    pids = host_pids(tuple(w.process.pid for w in workers))
    return tuple((pids[w.process.pid], w.device, w.size) for w in workers if w.process.pid in pids)


def _device_of(holder: Holder) -> int:
    """The device a holder whose memory mirrors its host memory uses: for this process, the first
    CUDA_VISIBLE_DEVICES names (0 without it; -1: it hides every device, or names one that is not a number); for
    another process, whose environment is its own, device 0."""
    if holder.pid != my_pid():
        return 0
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None or not visible.strip():
        return 0
    first = whole_number(visible.split(",")[0].strip(), 0, 1023)
    return -1 if first is None else first


def _share(spec: DeviceSpec, holder: Holder) -> int | None:
    """The fixed share a device's `notebooks` gives one of the holder's notebooks, or None."""
    if not spec.notebooks or not holder.notebooks:
        return None
    shares = dict(spec.notebooks)
    return next((shares[path] for path in holder.notebooks if path in shares), None)


@dataclass(frozen=True)
class _Worker:
    device: int
    size: int
    process: subprocess.Popen[bytes]


def _spawn_worker() -> subprocess.Popen[bytes]:
    # A real child of the kernel, so the process-tree walk finds it; it exits when its stdin closes (us, or our exit).
    return subprocess.Popen([sys.executable, "-I", "-S", "-c", "import sys; sys.stdin.buffer.read()"],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _stop(worker: subprocess.Popen[bytes]) -> None:
    try:
        if worker.stdin is not None:
            worker.stdin.close()
        worker.wait(timeout=2)
    except (OSError, subprocess.TimeoutExpired):
        worker.kill()
        worker.wait()


# ---- the simulation of this process ---------------------------------------------------------------------------------

_current: Simulation | None = None
_current_spec = ""  # what the current private simulation was made from
_asked: str | None = None  # MGENV_SIMULATE_GPU as this process last looked at it (None: never looked)
_looked = False  # whether this process has looked at all: its first look finds the variable it was started with
_environment_lock = threading.Lock()


def from_environment() -> Simulation | None:
    """The simulation of this process as `MGENV_SIMULATE_GPU` and its Jupyter server's machine say, installed; None
    when there is none. Cheap when nothing changed: the sampler asks it about once a second.

    Started by a Jupyter server, the process shares the server's machine: with the variable set it holds memory on
    it (and the first to ask, or one whose variable changed since it last looked, defines it); without, it sees the
    machine as any process on a GPU machine does. A process that starts while the machine runs another scenario than
    the one its variable names (it inherited the server's, and a notebook has switched the machine since) did not
    ask for a change: it follows the machine as it is, so that opening a notebook never takes another notebook's
    scenario away. Anywhere else the variable gives it a machine of its own.

    Raises `InvalidValueError` for an unknown preset or a bad scenario file, and changes nothing then.
    """
    global _asked, _looked
    spec = os.environ.get(ENV, "").strip()
    shared = server_machine()
    with _environment_lock:
        changed, _asked = spec != _asked, spec
        first, _looked = not _looked, True
        try:
            if shared is None:
                _follow_private(spec)
            else:
                _follow_shared(shared, spec, changed, first)
        except Exception:
            _asked = None if changed else _asked  # asked again next time: the variable may be fixed by then
            raise
        return _current


def _follow_private(spec: str) -> None:
    global _current, _current_spec
    if _current is not None and _current.defined is None and _current_spec == spec:
        return
    simulation = Simulation(spec) if spec else None  # raises before anything changes
    _replace(simulation)
    _current_spec = spec


def _follow_shared(shared: SharedMachine, spec: str, changed: bool, first: bool) -> None:
    """`changed`: the variable differs from what this process last saw; `first`: this is its first look (what it was
    started with is no request to change the machine)."""
    state = shared.read()
    now = time.time()
    if spec and (state is None or (changed and not first and state.spec != spec)):
        data, name = Scenario.source(spec)
        Scenario.from_json(data, name)  # checked before the machine changes for anyone
        state = shared.define(spec, data, name, now, by=my_pid())  # this process runs it; the others do not climb
    elif spec and state is not None and state.spec == spec and (
            (mine := state.holder(my_pid())) is None or (changed and mine.joined is None)):
        # It asks for this very machine (its first look, or it came back to it): its own timeline from now (the server
        # may have listed it already). One that asked for another scenario before another process switched the
        # machine to this one keeps holding its start: asking once is not asking again.
        state = shared.join(my_pid(), now)
    elif not spec and changed and state is not None and state.holder(my_pid()) is not None:
        state = shared.leave(my_pid())  # the variable was removed: this process holds nothing any more
    if state is None or not state.in_use:
        _replace(None)
    elif _current is None or _current.machine_id != state.id:
        _replace(Simulation.following(shared, state))


def _replace(simulation: Simulation | None) -> None:
    """Uninstall the current simulation, then install `simulation`: the fake NVML library puts back what it found
    when it goes, so the old one leaves before the new one comes."""
    global _current
    if _current is not None and _current is not simulation:
        _current.uninstall()
    _current = simulation.install() if simulation is not None else None


def running() -> Simulation | None:
    """The simulation `from_environment()` installed in this process, if any (never starts one)."""
    with _environment_lock:
        return _current


def stop_environment() -> None:
    """Uninstall the simulation `from_environment()` started, whatever `MGENV_SIMULATE_GPU` says now (the real NVML,
    if any, answers again); a shared machine no longer counts this process. Tests that set the variable call this
    afterwards."""
    global _asked
    with _environment_lock:
        current = _current
        if current is not None and current.defined is not None:
            state = current.machine.read()
            if state is not None and state.holder(my_pid()) is not None:
                current.machine.leave(my_pid())
        _replace(None)
        _asked = None
