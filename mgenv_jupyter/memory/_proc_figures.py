"""Host memory, a process's resident size and the kernel's start time, read from Linux's /proc as psutil reads them
there, without importing psutil (about 15 ms, most of it building its named tuples): a kernel's first out-of-memory
report reads these, and should not pay for that import. Each answer is None where /proc cannot give it (another
system, a hidden /proc): the callers then ask psutil.
"""

from __future__ import annotations

import os

_MEMINFO = "/proc/meminfo"
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def host_memory() -> tuple[int, int] | None:
    """(total, available) bytes of the host, as psutil.virtual_memory() gives them on Linux (MemTotal, MemAvailable);
    None without a /proc/meminfo that has both."""
    figures: dict[str, int] = {}
    try:
        with open(_MEMINFO, encoding="ascii") as meminfo:
            for line in meminfo:
                key, _, rest = line.partition(":")
                if key in ("MemTotal", "MemAvailable"):
                    figures[key] = int(rest.split()[0]) * 1024  # kB
                    if len(figures) == 2:
                        return figures["MemTotal"], figures["MemAvailable"]
    except (OSError, ValueError, IndexError):
        pass
    return None


def resident_bytes(pid: int) -> int | None:
    """A process's resident set size, as psutil's memory_info().rss on Linux (/proc/PID/statm's second field, in
    pages); None when the process is gone or not ours to read."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:  # binary: the sampler reads this for every pid of its tree
            return int(statm.read().split()[1]) * _PAGE_SIZE
    except (OSError, ValueError, IndexError):
        return None


def started(pid: int | None = None) -> float | None:
    """When a process (this one by default) started, in seconds since the epoch, as psutil's create_time() on Linux:
    the boot time (/proc/stat's btime) plus the process's start in clock ticks (/proc/PID/stat's 22nd field)."""
    try:
        with open(f"/proc/{os.getpid() if pid is None else pid}/stat", encoding="utf-8", errors="replace") as stat:
            fields = stat.read().rpartition(")")[2].split()  # the name, in parentheses, may hold spaces
        with open("/proc/stat", encoding="ascii") as system:
            boot = next(int(line.split()[1]) for line in system if line.startswith("btime "))
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def kernel_started() -> float | None:
    """When this process (the kernel) started, the origin every chart counts time from: /proc where it answers, else
    psutil (imported then); None when neither can say."""
    found = started()
    if found is not None:
        return found
    try:
        import psutil

        return float(psutil.Process().create_time())
    except Exception:  # psutil can fail on exotic /proc setups
        return None
