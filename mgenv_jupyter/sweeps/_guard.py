"""The guard: the first process of each point, between the sweeping kernel and the point's kernel, so that nothing
of the point outlives the sweep.

    python -I -S _guard.py PARENT_PID [--files POINT_DIRECTORY] -- KERNEL COMMAND …

It starts the kernel as its child and stays, doing nothing but watch:

- it becomes the *child subreaper* of everything below it (Linux's PR_SET_CHILD_SUBREAPER), so a process the
  kernel starts and abandons (a double-forked worker, a DataLoader worker whose parent died) is still its
  descendant;
- when the sweeping kernel dies, however it dies (`kill -9` included), it notices within a tenth of a second (a
  pidfd of the parent where Linux has them, else its parent pid changing) and kills every descendant with SIGKILL;
- when the sweep ends the point (a timeout, an interrupt, the point done), it is sent SIGTERM and does the same;
- when the kernel exits by itself (a segfault, the OOM killer), it kills what the kernel left behind and exits with
  the kernel's status, 128 + N for signal N, as a shell does, so the sweep can say which signal ended the point;
- once nothing of the point runs and the sweep ended it (or died), it removes the point's directory (its
  connection file, which holds the point's key, its sockets, its report) and, when the sweeping kernel died, the
  sweep's directory above it once empty (the last guard to leave finds it so): no file of a sweep outlives it,
  `kill -9` included.

Standard library only, started with -I -S: it must start in milliseconds and import nothing of the user's.
A watchdog thread inside the kernel would share its fate (a hung C call holding the GIL, a segfault); a separate
process does not. SIGINT is ignored: jupyter_client sends an interrupt to the kernel's whole process group.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import subprocess
import sys
import time

_PR_SET_CHILD_SUBREAPER = 36
_POLL_SECONDS = 0.1
_KILL_ROUNDS = 20  # a process may fork while we kill: walk again until nothing is left


def _subreaper() -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: orphans go to init, and the process group is killed instead
        pass


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as listed:
                found.extend(int(word) for word in listed.read().split())
        except (OSError, ValueError):
            continue
    return found


def descendants(root: int) -> list[int]:
    """Every process below `root`, from /proc (the subreaper keeps orphans below it)."""
    seen: list[int] = []
    stack = [root]
    while stack:
        for child in _children(stack.pop()):
            if child not in seen:
                seen.append(child)
                stack.append(child)
    return seen


def _reap(kernel: int, statuses: dict[int, int]) -> None:
    """Collect every exited child (orphans of the kernel come to us); the kernel's own status is kept."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if pid == kernel:
            statuses[kernel] = os.waitstatus_to_exitcode(status)


def kill_everything_below(me: int, kernel: int, statuses: dict[int, int]) -> None:
    for _ in range(_KILL_ROUNDS):
        below = descendants(me)
        if not below:
            break
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)
        _reap(kernel, statuses)
    try:  # anything still in the point's process group (where /proc has no children files)
        group = os.getpgid(0)
        if group == me:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            os.killpg(group, signal.SIGTERM)
    except OSError:
        pass
    _reap(kernel, statuses)


class _Watch:
    """Whether the sweeping kernel (our parent at start) still lives."""

    def __init__(self, parent: int) -> None:
        self.parent = parent
        self.fd: int | None = None
        try:
            self.fd = os.pidfd_open(parent)  # type: ignore[attr-defined]
            self.poller = select.poll()
            self.poller.register(self.fd, select.POLLIN)
        except (AttributeError, OSError):
            self.fd = None

    def wait(self, seconds: float) -> bool:
        """Wait up to `seconds`; True once the parent is gone."""
        if self.fd is not None:
            return bool(self.poller.poll(int(seconds * 1000)))
        time.sleep(seconds)
        return os.getppid() != self.parent


def _remove(directory: str | None, parent_gone: bool) -> None:
    """Remove the point's directory, and the sweep's above it when the sweep died and no other point is left."""
    if directory is None:
        return
    import shutil  # only now: the guard starts with as little as it can

    shutil.rmtree(directory, ignore_errors=True)
    if parent_gone:
        try:
            os.rmdir(os.path.dirname(directory))
        except OSError:  # another point's directory is still there: its guard removes the sweep's
            pass


def main(argv: list[str]) -> int:
    files = None
    if len(argv) >= 6 and argv[2] == "--files":
        files, argv = argv[3], argv[:2] + argv[4:]
    if len(argv) < 4 or argv[2] != "--":
        print("usage: _guard.py PARENT_PID [--files DIRECTORY] -- COMMAND …", file=sys.stderr)
        return 2
    parent = int(argv[1])
    me = os.getpid()
    _subreaper()
    stop = {"asked": False}

    def asked_to_stop(signum: int, frame: object) -> None:
        stop["asked"] = True

    signal.signal(signal.SIGTERM, asked_to_stop)
    signal.signal(signal.SIGHUP, asked_to_stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch = _Watch(parent)
    if os.getppid() != parent:  # the parent died before we could watch it
        _remove(files, parent_gone=True)
        return 1
    # The kernelspec's own command, as jupyter_client would run it. Reaped by waitpid here, not by Popen.
    kernel = subprocess.Popen(argv[3:]).pid  # noqa: S603
    statuses: dict[int, int] = {}
    parent_gone = False
    while kernel not in statuses and not stop["asked"]:
        if watch.wait(_POLL_SECONDS):
            parent_gone = True
            break
        _reap(kernel, statuses)
    status = statuses.get(kernel)  # before the kill: what the kernel did by itself, if it ended first
    kill_everything_below(me, kernel, statuses)
    parent_gone = parent_gone or os.getppid() != parent
    if stop["asked"] or parent_gone:  # a kernel that ended by itself leaves its report for the sweep to read
        _remove(files, parent_gone)
    if status is None:  # the sweep ended the point, or the sweeping kernel died
        return 1
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
