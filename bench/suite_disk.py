"""How much disk a command takes at its peak, beside what it leaves: the test suite's, for a CI machine's disk.

    python -m bench.suite_disk [--every S] -- COMMAND [ARG ...]     e.g.  python -m bench.suite_disk -- ./dev test

Samples the used bytes of the filesystems that hold the working directory and the temporary directory every `S`
seconds (2 by default) while COMMAND runs, and prints, for each, the peak above what was used when it started (with
when it came) and what was left used at the end, then the peak of each minute. The figure is the whole machine's: run
it with nothing else writing to those disks. Exits with COMMAND's status."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

GIB = 1024**3


@dataclass
class Disk:
    path: str
    start: int
    samples: list[tuple[float, int]] = field(default_factory=list)  # (seconds since start, used bytes)

    def sample(self, elapsed: float) -> None:
        self.samples.append((elapsed, shutil.disk_usage(self.path).used))

    def peak(self) -> tuple[float, int]:
        elapsed, used = max(self.samples, key=lambda sample: sample[1])
        return elapsed, used - self.start

    def per_minute(self) -> list[int]:
        minutes: dict[int, int] = {}
        for elapsed, used in self.samples:
            minute = int(elapsed // 60)
            minutes[minute] = max(minutes.get(minute, used), used)
        return [minutes[m] - self.start for m in sorted(minutes)]


def disks(paths: list[str]) -> list[Disk]:
    """One per filesystem among `paths` (the working directory and the temporary one are often the same)."""
    seen: dict[int, Disk] = {}
    for path in paths:
        seen.setdefault(os.stat(path).st_dev, Disk(path, shutil.disk_usage(path).used))
    return list(seen.values())


def measure(command: list[str], every: float) -> int:
    watched = disks([os.getcwd(), tempfile.gettempdir()])
    started = time.monotonic()
    done = threading.Event()

    def sample() -> None:
        while not done.wait(every):
            for disk in watched:
                disk.sample(time.monotonic() - started)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    status = subprocess.call(command)
    done.set()
    sampler.join()
    for disk in watched:
        disk.sample(time.monotonic() - started)
        at, peak = disk.peak()
        left = disk.samples[-1][1] - disk.start
        print(f"{disk.path}: peak {peak / GIB:+.2f} GiB at {at:.0f} s; {left / GIB:+.2f} GiB left at the end "
              f"({time.monotonic() - started:.0f} s)")
        print("  each minute's peak, GiB: " + " ".join(f"{used / GIB:.1f}" for used in disk.per_minute()))
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.suite_disk", description=__doc__.split("\n")[0])
    parser.add_argument("--every", type=float, default=2.0, help="seconds between samples")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command or args.every <= 0:
        parser.error("give a command after -- (and a positive --every)")
    return measure(command, args.every)


if __name__ == "__main__":
    sys.exit(main())
