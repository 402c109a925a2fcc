"""The pids of the simulated machine are the host's, as a real NVIDIA driver's are: NVML lists a process by its pid in
the host's pid namespace whatever namespace asks, so inside a container (a pid namespace of its own, as a container
spawner gives a single-user server) NVML's pids match nothing the container sees.

A process in the host's pid namespace sees those pids as they are. One in another namespace cannot see the host's
pids at all; the simulation, standing in for the driver (which can), is then given the host's /proc mounted elsewhere
in its environment, `MGENV_SIMULATE_GPU_HOST_PROC` (a test's container spawner mounts it; a real container has no such
thing and needs none). Through it the simulation learns this process's host pid (the host's `self`), its parent's,
and the host pid of a process of its own namespace (the host's `status` of each process of this namespace names its
pid here last in `NSpid`), and whether a host pid still runs. Only the simulation reads it: the server's view and the
kernel's sampler see NVML's pids as they would on a real machine, so their own attribution meets a real namespace.
Without the variable this process's namespace is taken as the host's.
"""

from __future__ import annotations

import os
from pathlib import Path

HOST_PROC_ENV = "MGENV_SIMULATE_GPU_HOST_PROC"
_STATUS_BYTES = 4096  # a process's status is about 1.5 KiB; NSpid is in its first half
_MAX_SCANNED = 1 << 16  # processes of the host looked at for one mapping

_mapped: dict[int, int] = {}  # a pid of this namespace → its host pid, found by a scan


def host_proc() -> Path | None:
    """The host's /proc as MGENV_SIMULATE_GPU_HOST_PROC names it (an absolute path), or None: this is the host."""
    named = os.environ.get(HOST_PROC_ENV, "").strip()
    return Path(named) if named and os.path.isabs(named) else None


def my_pid() -> int:
    """This process's pid on the simulated machine (its host pid)."""
    proc = host_proc()
    if proc is None:
        return os.getpid()
    try:
        return int(os.readlink(proc / "self"))
    except (OSError, ValueError):  # no such mount: this namespace's own pid, as on the host
        return os.getpid()


def parent_pid() -> int:
    """The host pid of this process's parent (a kernel's server)."""
    proc = host_proc()
    if proc is None:
        return os.getppid()
    fields = _stat(proc, "self")
    return int(fields[1]) if fields is not None else os.getppid()


def host_pids(pids: tuple[int, ...]) -> dict[int, int]:
    """The host pid of each of `pids` (pids of this namespace) that runs; all of them as they are on the host."""
    proc = host_proc()
    if proc is None:
        return {pid: pid for pid in pids}
    found = {pid: _mapped[pid] for pid in pids if pid in _mapped and _local_pid(proc, _mapped[pid]) == pid}
    if len(found) < len(pids):
        _scan(proc)
        found = {pid: _mapped[pid] for pid in pids if pid in _mapped}
    return found


def alive(pid: int) -> bool | None:
    """Whether host pid `pid` runs (a zombie does not); None when this is the host (the caller asks the system)."""
    proc = host_proc()
    if proc is None:
        return None
    fields = _stat(proc, str(pid))
    return fields is not None and fields[0] != b"Z"


def _scan(proc: Path) -> None:
    """Map every process of this namespace to its host pid (the host's processes whose pid namespace is this one)."""
    try:
        mine = os.readlink("/proc/self/ns/pid")
        entries = [name for name in os.listdir(proc) if name.isascii() and name.isdigit()][:_MAX_SCANNED]
    except OSError:
        return
    _mapped.clear()
    for name in entries:
        try:
            if os.readlink(proc / name / "ns" / "pid") != mine:
                continue
        except OSError:  # gone meanwhile, or not ours to look at
            continue
        local = _local_pid(proc, int(name))
        if local is not None:
            _mapped[local] = int(name)


def _local_pid(proc: Path, host: int) -> int | None:
    """The pid in its own (innermost) namespace of host process `host`: the last of its status's NSpid."""
    try:
        with open(proc / str(host) / "status", "rb") as status:
            text = status.read(_STATUS_BYTES)
    except OSError:
        return None
    for line in text.split(b"\n"):
        if line.startswith(b"NSpid:"):
            last = line.split()[-1]
            return int(last) if last.isdigit() and len(last) <= 10 else None
    return None


def _stat(proc: Path, name: str) -> list[bytes] | None:
    """The fields of a process's stat after its name: state, ppid, …; None when there is no such process."""
    try:
        with open(proc / name / "stat", "rb") as stat:
            return stat.read(4096).rpartition(b")")[2].split()
    except OSError:
        return None
