"""The processes of a test's sweeps, from this machine's process table: each sweeping kernel a test starts carries an
owner variable of that test module's own (`owned_environment`), which its points' guards, kernels and their children
inherit, so a test finds its own sweeps' processes, not those another test runs at the same time (the suite runs on
two workers)."""

from __future__ import annotations

import os
import uuid


def new_owner(module: str) -> str:
    """`NAME=VALUE` unique to this run of `module`."""
    return f"MGENV_TEST_SWEEP_OWNER={module}-{uuid.uuid4().hex}"


def owned_environment(owner: str) -> dict[str, str]:
    """A sweeping kernel's environment: this process's, with `owner`."""
    name, value = owner.split("=", 1)
    return {**os.environ, name: value}


def point_processes(owner: str) -> list[int]:
    """Every point kernel, guard or process of a point whose environment holds `owner`."""
    wanted = owner.encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as environ:
                variables = environ.read().split(b"\0")
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read()
        except OSError:
            continue
        point = any(v.startswith(b"MGENV_SWEEP_REPORT=") for v in variables) or b"sweeps/_guard.py" in command
        if point and wanted in variables:
            found.append(int(entry))
    return found


def resident_bytes(pid: int | str = "self") -> int:
    """The process's resident memory (VmRSS), read from /proc as the test or bench sees it, not through the package's
    own reader, which is what is being measured."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def bytes_under(path: str | os.PathLike[str]) -> int:
    """The bytes of the files under `path` now; a file removed while it is walked counts nothing."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total
