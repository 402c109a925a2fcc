"""Which kernel each point starts, and how it is started so that it dies with the sweep.

A point runs in a fresh kernel of the same kernelspec as the sweeping kernel: the one whose Python is this process's
(`sys.executable`), or the one named. A kernel whose spec cannot be found (started by hand, an unregistered
environment) gets its own Python's `ipykernel_launcher`, and the result says so.

Every point's command is prefixed with the guard (`_guard.py`), which kills the point's whole process tree when the
sweep ends it or when the sweeping kernel dies, whatever way it dies.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import InvalidValueError
from .._text import Text

GUARD = Path(__file__).resolve().with_name("_guard.py")
STOP_SECONDS = 5.0  # how long the guard is given to end a point before its process group is killed from here

NO_SUCH_KERNEL = Text("there is no kernelspec {name!r}: use one of {known}",
                      "没有名为 {name!r} 的内核规格:可用的有 {known}")


@dataclass(frozen=True)
class KernelChoice:
    """The kernelspec each point starts: its name (None: this kernel's own Python, no spec matched), its command,
    and how it was chosen ("named", "same_python", "own_python")."""

    name: str | None
    argv: tuple[str, ...]
    how: str
    spec: Any


def kernel_for_points(name: str | None = None) -> KernelChoice:
    """The kernelspec `name`, or the one whose Python is this process's."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager, NoSuchKernel

    manager = KernelSpecManager()
    if name is not None:
        try:
            spec = manager.get_kernel_spec(name)
        except NoSuchKernel:
            known = ", ".join(sorted(manager.find_kernel_specs())) or "none"
            raise InvalidValueError(NO_SUCH_KERNEL.get().format(name=name, known=known)) from None
        return KernelChoice(name, tuple(spec.argv), "named", spec)
    here = _real(sys.executable)
    for found in sorted(manager.find_kernel_specs()):
        try:
            spec = manager.get_kernel_spec(found)
        except Exception:  # a broken spec on the path is not ours to fix
            continue
        if spec.argv and spec.language.lower() == "python" and _real(_which(spec.argv[0])) == here:
            return KernelChoice(found, tuple(spec.argv), "same_python", spec)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec = KernelSpec(argv=argv, display_name=f"Python ({sys.executable})", language="python")
    return KernelChoice(None, tuple(argv), "own_python", spec)


def _which(program: str) -> str:
    # jupyter_client starts a kernelspec whose command is a bare "python", "python3" or "python3.11" with the Python
    # that starts it (KernelManager.format_kernel_cmd), not with whatever PATH names: ipykernel installs its spec so.
    major, minor = sys.version_info[:2]
    if program in ("python", f"python{major}", f"python{major}.{minor}"):
        return sys.executable
    if os.path.isabs(program):
        return program
    from shutil import which

    return which(program) or program


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except OSError:
        return path


def point_kernel_manager(choice: KernelChoice, ipc: Path) -> Any:
    """A jupyter_client KernelManager that starts `choice`'s command under the guard, talking over Unix sockets whose
    paths start with `ipc` (in the sweep's private directory: no port is opened, nothing else can connect)."""
    from jupyter_client.manager import KernelManager

    class GuardedKernelManager(KernelManager):  # type: ignore[misc]
        def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
            command: list[str] = super().format_kernel_cmd(extra_arguments)
            return [sys.executable, "-I", "-S", str(GUARD), str(os.getpid()), "--", *command]

    manager = GuardedKernelManager(transport="ipc", ip=str(ipc))
    manager._kernel_spec = choice.spec  # the spec itself: a kernel with no registered name is started the same way
    return manager


def stop_point(manager: Any) -> None:
    """End a point: the guard kills everything below it; if it does not go within STOP_SECONDS, its process group
    is killed from here. Never raises."""
    process: subprocess.Popen[bytes] | None = getattr(getattr(manager, "provisioner", None), "process", None)
    if process is not None and process.poll() is None:
        try:
            process.send_signal(signal.SIGTERM)
            process.wait(STOP_SECONDS)
        except (OSError, subprocess.TimeoutExpired):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                pass
    try:
        manager.shutdown_kernel(now=True)
    except Exception:  # already gone: only its files are left to clean
        pass
    try:
        manager.cleanup_resources()
    except Exception:
        pass


def exit_signal(manager: Any) -> int | None:
    """The signal that ended the point's kernel, from the guard's exit status (128 + N); None when it was not a
    signal or the kernel still runs."""
    process = getattr(getattr(manager, "provisioner", None), "process", None)
    code = process.poll() if process is not None else None
    if code is None:
        return None
    if code < 0:  # the guard itself was killed
        return -code
    return code - 128 if code > 128 else None
