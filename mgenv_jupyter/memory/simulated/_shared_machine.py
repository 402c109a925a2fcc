"""One simulated machine for a Jupyter server and every kernel it started: whichever of them asks for the simulated
GPU, all of them see the same devices, the same processes on them and the same figures, as on a real GPU.

The machine is kept in a file of the Jupyter runtime directory named after the server's pid,
`mgenv-simulated-gpu-<server pid>.json`, or in the file `MGENV_SIMULATE_GPU_MACHINE` names (`MACHINE_ENV`), which
several servers of one user on one host share (a hub's single-user servers: their users' notebooks on one GPU); a
kernel finds it (`_machine_file.py`, which asks nothing else) through the runtime file the server writes, named by
the kernel's parent pid. The file holds the scenario's JSON (read once, by the process that asked for it, so a file
changed later is not half one machine and half another), when the machine started (its error windows count from
then), and the processes that hold memory on it (`Holder`): when each one's timeline starts (only a process that
asked for this machine runs its timeline), its place on the machine (the lowest free when it came: a later one holds
a little more), the notebooks of its sessions (a scenario's `notebooks` share), when it gave its cache back, and its
worker processes. Every process computes every figure from that and the clock, so the server's view and a kernel's
own chart agree to the byte.

Who defines the machine: the server, from its own environment, for as long as it runs (`kept`; servers sharing one
file: the first of them, the others join it as it is, and each lists and removes only its own kernels); otherwise the
first kernel that asks, and a kernel whose `MGENV_SIMULATE_GPU` changes while it runs defines it anew: that kernel
runs the new scenario's timeline from then; the other processes stay on the device holding the scenario's start, as
processes that did not ask for it (they do not climb). A machine no server keeps lasts while a process holds memory
on it.

The server removes the file and its lock when it stops (a shared file: the last server that keeps it, once no process
holds memory on it). It removes its runtime file first (jupyter_server does, before it stops its extensions and then
its kernels): a kernel changes the machine only while that file is there, so a kernel that looks while the server
stops neither defines the machine again nor leaves a lock behind.

The file changes only when a process joins or leaves, frees, starts its workers, or the machine is defined; readers
look at it at most once a second and parse it only when it changed. It is written by this user only (0600, replaced
whole, under a lock) and read as the server's runtime files are: a regular file this user owns that nobody else can
write, of bounded size and nesting, field by field (a malformed one is no machine). A process that no server started
(nbclient, a console, a test) has a machine of its own, in memory (`SharedMachine()`).
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ...base._bounded_json import loads
from ...base._regular_files import MAX_FILE_BYTES, read_private_file
from ._host_pids import alive as host_alive
from ._host_pids import my_pid, parent_pid
from ._machine_file import PREFIX, server_files, server_machine_path

VERSION = 3  # 2 had one `kept` flag (one server), no `keepers` and no holder's `server`; 1 counted every process that
#             ever came (`came`): a place depended on the server's history
MAX_KEEPERS = 256
MAX_MACHINE_BYTES = 2 * MAX_FILE_BYTES  # a scenario file of at most 1 MiB, and the processes on it
MAX_HOLDERS = 1024
MAX_NOTEBOOKS = 64  # per holder
MAX_WORKERS = 64  # per holder
_DEPTH = 12  # {"machine": {"scenario": {"devices": [{"kernel": {...}}]}}} and a little room; the scenario is checked
_MAX_PID = 2**32 - 1
_MAX_TIME = 1e11  # seconds since the epoch: a finite time, within the next thousand years


@dataclass(frozen=True)
class Holder:
    """A process that holds memory on the simulated devices: its pid, when its timeline starts (seconds since the
    epoch; None for a process that has not asked for this machine: a kernel the server listed that has not looked at
    it itself, or one that was on the device when another process defined it anew; it holds the scenario's start,
    as a kernel that runs no GPU code now), its place on the machine (0, 1, ...: the lowest no live holder had when it
    came, so that a figure depends on who is on the device, never on how many came and went before), the notebooks of
    its server sessions, when it gave its cached memory back (None: never), its worker processes as (pid, device
    index, bytes), and the pid of the Jupyter server whose kernel it is (None: not a server's kernel), so that each of
    several servers sharing the machine lists and removes its own kernels only."""

    pid: int
    joined: float | None
    order: int
    notebooks: tuple[str, ...] = ()
    released: float | None = None
    workers: tuple[tuple[int, int, int], ...] = ()
    server: int | None = None


@dataclass(frozen=True)
class Machine:
    """A defined machine: `id` changes at every definition (followers start over), `spec` is what was asked for
    (MGENV_SIMULATE_GPU's value), `name` the scenario's default name and `scenario` its JSON, `started` when it began
    (seconds since the epoch), `keepers` the pids of the servers that keep it for their whole lives (one, or several
    servers naming the same machine file: `MACHINE_ENV`), and `holders` the processes holding memory on it."""

    id: str
    spec: str
    name: str
    scenario: Any
    started: float
    keepers: tuple[int, ...] = ()
    holders: tuple[Holder, ...] = ()

    def holder(self, pid: int) -> Holder | None:
        return next((h for h in self.holders if h.pid == pid), None)

    def live_holders(self) -> tuple[Holder, ...]:
        return tuple(h for h in self.holders if alive(h.pid))

    @property
    def kept(self) -> bool:
        """Whether a server that keeps the machine still runs."""
        return any(alive(pid) for pid in self.keepers)

    @property
    def in_use(self) -> bool:
        """Whether the machine is there for everyone: kept by the server, or held by a live process."""
        return self.kept or bool(self.live_holders())


class SharedMachine:
    """Where one machine is kept: the file at `path`, or (None) this process's memory. `read()` is cheap when nothing
    changed; every change is a locked read, edit and write of the whole file, made only while the file `owner` (the
    server's runtime file, for a kernel) exists."""

    def __init__(self, path: Path | None = None, owner: Path | None = None) -> None:
        self.path = path
        self.owner = owner
        self._memory: Machine | None = None
        self._seen: tuple[int, int, int] | None = None  # (inode, mtime, size) of the file last parsed
        self._parsed: Machine | None = None
        self._lock = threading.Lock()

    def read(self) -> Machine | None:
        """The machine as it is now, or None: none is defined (or the file is not one)."""
        if self.path is None:
            return self._memory
        try:
            status = os.stat(self.path)
        except OSError:
            return None
        key = (status.st_ino, status.st_mtime_ns, status.st_size)
        with self._lock:
            if key != self._seen:
                self._parsed, self._seen = _read_file(self.path), key
            return self._parsed

    def change(self, edit: Callable[[Machine | None], Machine | None]) -> Machine | None:
        """Apply `edit` to the machine as it is (holders whose process is gone left out) and keep what it returns
        (None: remove the machine). Other processes wait meanwhile (a file lock)."""
        if self.path is None:
            with self._lock:
                self._memory = edit(_pruned(self._memory))
                return self._memory
        if self.owner is not None and not self.owner.exists():
            return None  # the server is stopping, or gone: its machine is no more
        with _FileLock(self._lock_path):
            machine = edit(_pruned(_read_file(self.path)))
            if machine is None:
                try:
                    os.unlink(self.path)
                except FileNotFoundError:
                    pass
            else:
                _write_file(self.path, machine)
            return machine

    def define(self, spec: str, scenario: Any, name: str, now: float, kept: bool = False,
               by: int | None = None, keeper: int | None = None) -> Machine:
        """A new machine of `scenario` (its JSON, checked by the caller) from `now`, asked for by process `by` (None:
        the server), which runs its timeline from `now`. The processes already on it stay on the device, in their
        places, without running it: they did not ask for this scenario, so they hold its start and do not climb,
        as other processes on a real GPU keep what they hold while one process starts a run (their workers belong to
        the machine before: each process stops its own). `kept`: the server `keeper` (this process when not given)
        keeps it; the servers that kept it before still do."""
        if kept and keeper is None:
            keeper = my_pid()

        def new(machine: Machine | None) -> Machine:
            holders = tuple(replace(h, joined=None, released=None, workers=()) for h in
                            (machine.holders if machine is not None else ()))
            keepers = _with(machine.keepers if machine is not None else (), keeper)
            fresh = Machine(secrets.token_hex(8), spec, name, scenario, now, keepers, holders)
            joined = fresh if by is None else _joined(fresh, ((by, None),), now, _server_of(by))
            assert joined is not None
            return joined

        machine = self.change(new)
        assert machine is not None
        return machine

    def keep(self, keeper: int | None = None) -> Machine | None:
        """Mark the machine as server `keeper`'s (this process when not given) too, there for its whole life."""
        pid = my_pid() if keeper is None else keeper
        return self.change(lambda m: None if m is None else replace(m, keepers=_with(m.keepers, pid)))

    def share(self, spec: str, scenario: Any, name: str, now: float, keeper: int) -> Machine:
        """The machine several servers share (they name one file, `MACHINE_ENV`): the one there, now kept by server
        `keeper` too, or, when none is in use, a new one of `scenario` from `now`. In one change, so that two servers
        starting at once define it once (the one there first wins: a server that asked for another scenario joins
        the machine as it is)."""
        def shared(machine: Machine | None) -> Machine:
            if machine is not None and machine.in_use:
                return replace(machine, keepers=_with(machine.keepers, keeper))
            return Machine(secrets.token_hex(8), spec, name, scenario, now, (keeper,))

        machine = self.change(shared)
        assert machine is not None
        return machine

    def let_go(self, keeper: int) -> None:
        """Server `keeper` stops: it keeps the machine no more and its kernels leave it; the machine's file and lock
        go with the last server and the last holder (another server's kernels hold it still)."""
        if self.path is None:
            self._memory = None
            return
        with _FileLock(self._lock_path):
            machine = _pruned(_read_file(self.path))
            if machine is not None:
                machine = replace(machine, keepers=tuple(k for k in machine.keepers if k != keeper),
                                  holders=tuple(h for h in machine.holders if h.server != keeper))
            if machine is not None and machine.in_use:
                _write_file(self.path, machine)
                return
            for path in (self.path, self._lock_path):
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass

    def join(self, pid: int, now: float, notebooks: tuple[str, ...] | None = None) -> Machine | None:
        """`pid` looks at the machine itself and holds memory on it, its timeline from `now` on (already looking:
        unchanged; listed by the server only: its timeline starts now; `notebooks` given: its notebooks become
        those)."""
        return self.change(lambda m: _joined(m, ((pid, notebooks),), now, _server_of(pid)))

    def sync(self, kernels: Iterable[tuple[int, tuple[str, ...]]], now: float,
             server: int | None = None) -> Machine | None:
        """Exactly the kernels (pid, notebook paths) of server `server` (this process when not given) hold memory
        on the machine: those already on it keep their timeline and take their notebooks as given, a new one comes
        (holding the scenario's start until it looks itself), one the server no longer has leaves (a kernel shut down
        is gone from the device at once, as its process is from a real GPU). Another server's kernels stay: servers
        that share the machine each list their own."""
        server = my_pid() if server is None else server
        wanted = tuple((pid, notebooks) for pid, notebooks in kernels)
        pids = {pid for pid, _ in wanted}
        current = self.read()
        if current is not None and sum(h.server in (server, None) for h in current.holders) == len(wanted) and all(
                (h := current.holder(pid)) is not None and h.notebooks == notebooks and h.server == server
                for pid, notebooks in wanted):
            return current  # nothing new: no write

        def synced(machine: Machine | None) -> Machine | None:
            if machine is None:
                return None
            kept = replace(machine, holders=tuple(h for h in machine.holders
                                                  if h.pid in pids or h.server not in (server, None)))
            return _joined(kept, wanted, None, server)

        return self.change(synced)

    def leave(self, pid: int) -> Machine | None:
        """`pid` no longer holds memory on the machine (a machine no server keeps goes with its last holder)."""
        def left(machine: Machine | None) -> Machine | None:
            if machine is None:
                return None
            machine = replace(machine, holders=tuple(h for h in machine.holders if h.pid != pid))
            return machine if machine.kept or machine.holders else None

        return self.change(left)

    def update(self, pid: int, **changes: Any) -> Machine | None:
        """Change fields of `pid`'s holder (`released`, `workers`); nothing when it holds nothing."""
        def updated(machine: Machine | None) -> Machine | None:
            if machine is None:
                return None
            return replace(machine, holders=tuple(replace(h, **changes) if h.pid == pid else h
                                                  for h in machine.holders))

        return self.change(updated)

    def remove(self) -> None:
        """Forget the machine (a private one, when its process stops)."""
        self.change(lambda m: None)

    def discard(self) -> None:
        """Forget the machine and its lock file (the server, when it stops or finds them left by an earlier server of
        its pid): under the lock, so that a process changing it meanwhile finishes first."""
        if self.path is None:
            self._memory = None
            return
        with _FileLock(self._lock_path):
            for path in (self.path, self._lock_path):
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass

    @property
    def _lock_path(self) -> Path:
        assert self.path is not None
        return self.path.with_name(self.path.name + ".lock")


def _joined(machine: Machine | None, kernels: tuple[tuple[int, tuple[str, ...] | None], ...],
            now: float | None, server: int | None = None) -> Machine | None:
    """`machine` with `kernels` on it, kernels of `server`; `now`: they look at it themselves from then (None: the
    server lists them)."""
    if machine is None:
        return None
    holders = list(machine.holders)
    for pid, notebooks in kernels:
        at = next((i for i, h in enumerate(holders) if h.pid == pid), None)
        if at is None:
            if len(holders) < MAX_HOLDERS:
                taken = {h.order for h in holders}
                place = next(i for i in range(len(holders) + 1) if i not in taken)
                holders.append(Holder(pid, now, place, notebooks or (), server=server))
            continue
        if server is not None and holders[at].server != server:
            holders[at] = replace(holders[at], server=server)
        if now is not None and holders[at].joined is None:
            holders[at] = replace(holders[at], joined=now)
        if notebooks is not None and holders[at].notebooks != notebooks:
            holders[at] = replace(holders[at], notebooks=notebooks)
    return replace(machine, holders=tuple(holders))


def _pruned(machine: Machine | None) -> Machine | None:
    """The machine without holders and keepers whose process is gone; a machine no server keeps goes with its last
    holder."""
    if machine is None:
        return None
    holders = machine.live_holders()
    keepers = tuple(k for k in machine.keepers if alive(k))
    if (machine.holders or machine.keepers) and not holders and not keepers:
        return None
    if len(holders) == len(machine.holders) and len(keepers) == len(machine.keepers):
        return machine
    return replace(machine, holders=holders, keepers=keepers)


def _with(keepers: tuple[int, ...], keeper: int | None) -> tuple[int, ...]:
    return keepers if keeper is None or keeper in keepers else (*keepers, keeper)


def _server_of(pid: int) -> int | None:
    """The server whose kernel `pid` is, when it is this process (its parent started it); None otherwise."""
    return parent_pid() if pid == my_pid() and server_machine_path() is not None else None


def alive(pid: int) -> bool:
    """Whether a process `pid` (a host pid, _host_pids.py) runs here (one of another user counts; one that ended and
    that its parent has not waited for yet, a zombie, does not: a kernel shut down or restarted may be one for a
    moment)."""
    on_host = host_alive(pid)
    if on_host is not None:
        return on_host
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OSError, OverflowError, ValueError):
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read(4096).rpartition(b")")[2][:2] != b" Z"
    except OSError:  # no /proc (another system), or it ended meanwhile: kill(0) answered
        return True


# ---- the file -------------------------------------------------------------------------------------------------------

def _write_file(path: Path, machine: Machine) -> None:
    data = {"v": VERSION, "machine": {
        "id": machine.id, "spec": machine.spec, "name": machine.name, "scenario": machine.scenario,
        "started": machine.started, "keepers": list(machine.keepers),
        "holders": [{"pid": h.pid, "joined": h.joined, "order": h.order, "notebooks": list(h.notebooks),
                     "released": h.released, "workers": [list(w) for w in h.workers], "server": h.server}
                    for h in machine.holders]}}
    fd, temporary = tempfile.mkstemp(prefix=f".{PREFIX}", dir=path.parent)  # 0600, this user's
    try:
        with os.fdopen(fd, "w") as out:
            json.dump(data, out)
        os.replace(temporary, path)  # whole or not at all, for a reader meanwhile
    except BaseException:
        os.unlink(temporary)
        raise


def _read_file(path: Path) -> Machine | None:
    try:
        data = loads(read_private_file(path, MAX_MACHINE_BYTES), _DEPTH)
    except ValueError:  # missing, not trusted, not JSON, nested too deep, a number out of bounds
        return None
    machine = data.get("machine") if isinstance(data, dict) and data.get("v") == VERSION else None
    return _machine(machine) if isinstance(machine, dict) else None


def _machine(data: dict[str, Any]) -> Machine | None:
    id_, spec, name, started = (data.get(k) for k in ("id", "spec", "name", "started"))
    holders, keepers = data.get("holders"), data.get("keepers")
    if not (_text(id_, 64) and _text(spec, 4096) and _text(name, 256) and _time(started)
            and isinstance(holders, list) and len(holders) <= MAX_HOLDERS and isinstance(keepers, list)
            and len(keepers) <= MAX_KEEPERS and all(_pid(k) for k in keepers)):
        return None
    parsed = [_holder(h) for h in holders]
    return Machine(id_, spec, name, data.get("scenario"), float(started), tuple(keepers),  # type: ignore[arg-type]
                   tuple(h for h in parsed if h is not None))


def _holder(data: object) -> Holder | None:
    if not isinstance(data, dict):
        return None
    pid, joined, order, notebooks, released, workers, server = (
        data.get(k) for k in ("pid", "joined", "order", "notebooks", "released", "workers", "server"))
    if not (_pid(pid) and (server is None or _pid(server)) and (joined is None or _time(joined)) and _count(order)
            and (released is None or _time(released))
            and isinstance(notebooks, list) and len(notebooks) <= MAX_NOTEBOOKS
            and all(_text(n, 4096) for n in notebooks) and isinstance(workers, list) and len(workers) <= MAX_WORKERS):
        return None
    kept = tuple((w[0], w[1], w[2]) for w in workers
                 if isinstance(w, list) and len(w) == 3 and _pid(w[0]) and _count(w[1]) and _count(w[2]))
    return Holder(pid, None if joined is None else float(joined), order, tuple(notebooks),  # type: ignore[arg-type]
                  None if released is None else float(released), kept, server)  # type: ignore[arg-type]


def _text(value: object, most: int) -> bool:
    return isinstance(value, str) and 0 < len(value) <= most


def _time(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= _MAX_TIME


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**62


def _pid(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= _MAX_PID


class _FileLock:
    """An exclusive lock on a file of its own beside the machine's (fcntl.flock: released when the process dies)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = -1

    def __enter__(self) -> _FileLock:
        import fcntl

        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self._fd)  # closing releases the lock


# ---- which machine this process shares ------------------------------------------------------------------------------

_server_machines: dict[Path, SharedMachine] = {}


def server_machine(runtime_dir: str | None = None, parent: int | None = None) -> SharedMachine | None:
    """The machine of the Jupyter server that started this process (its parent), when one runs here (found as
    _machine_file.server_machine_path finds its file); None for a process no server started. One object per file; its
    `owner` is the server's runtime file `jpserver-<parent pid>.json`, without which a kernel leaves the machine alone
    (its server is gone)."""
    files = server_files(runtime_dir, parent)
    if files is None:
        return None
    path, owner = files
    if runtime_dir is not None:
        return SharedMachine(path, owner=owner)
    found = _server_machines.get(path)
    if found is None:
        found = _server_machines[path] = SharedMachine(path, owner=owner)
    return found
