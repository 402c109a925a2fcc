"""Which kernel each point starts, and how it is started so that it dies with the sweep.

A point runs in a fresh kernel of the same kernelspec as the sweeping kernel, or the one named. The sweeping kernel's
own spec is the one it was started from: of the specs whose Python is this process's (`sys.executable`), the one whose
command is this process's and whose `env` this process started with, the most specific when several agree (two specs
on one Python differ by their `env`). A kernel whose spec cannot be found (started by hand, an unregistered
environment) gets its own Python's `ipykernel_launcher`, and the result says so.

What a point's kernel has in its environment is the point's own: the swept values win over a spec's `env`. The
sweeping kernel's own spec adds nothing at all (what its `env` set is already in this kernel's environment, as the
session left it); a named spec's `env` applies, less the swept names and, on a pinned GPU, CUDA_VISIBLE_DEVICES.

Every point's command is prefixed with the guard (`_guard.py`), which kills the point's whole process tree when the
sweep ends it or when the sweeping kernel dies, whatever way it dies.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

from ..base._errors import InvalidValueError
from ..base._text import Text
from ..runtime._import_watcher import process_start_environ

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
    """The kernelspec `name`, or this kernel's own (see the module's help)."""
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
    same_python = []
    for found in sorted(manager.find_kernel_specs()):
        try:
            spec = manager.get_kernel_spec(found)
        except Exception:  # a broken spec on the path is not ours to fix
            continue
        if spec.argv and spec.language.lower() == "python" and _real(_which(spec.argv[0])) == here:
            same_python.append((found, spec))
    own = own_spec(same_python, getattr(sys, "orig_argv", sys.argv), process_start_environ())
    if own is not None:
        return KernelChoice(own[0], tuple(own[1].argv), "same_python", own[1])
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec = KernelSpec(argv=argv, display_name=f"Python ({sys.executable})", language="python")
    return KernelChoice(None, tuple(argv), "own_python", spec)


def own_spec(specs: Sequence[tuple[str, Any]], argv: Sequence[str],
             started_with: Mapping[str, str]) -> tuple[str, Any] | None:
    """Of `specs` (name, spec; all of this Python), the one this process was started from: its command is `argv`
    (when any spec's is) and its `env` is in `started_with`; the one whose `env` sets the most when several agree,
    the first by name when they tie. None when none agrees."""
    by_command = [(name, spec) for name, spec in specs if _same_command(spec.argv, argv)] or list(specs)
    agreeing = [(name, spec) for name, spec in by_command if _env_held(spec.env or {}, started_with)]
    if not agreeing:
        return None
    most = max(len(spec.env or {}) for _, spec in agreeing)
    return next((name, spec) for name, spec in agreeing if len(spec.env or {}) == most)


def _same_command(template: Sequence[str], argv: Sequence[str]) -> bool:
    """Whether `argv` is the spec's command `template` (its program aside; `{connection_file}` stands for any)."""
    if len(template) != len(argv):
        return False
    return all(word == given or "{" in word for word, given in zip(template[1:], argv[1:], strict=True))


def _env_held(env: Mapping[str, str], started_with: Mapping[str, str]) -> bool:
    # jupyter_client fills a spec's env with ${NAME} from the environment it starts the kernel in: so does this.
    return all(started_with.get(name) == Template(str(value)).safe_substitute(started_with)
               for name, value in env.items())


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


def point_spec(choice: KernelChoice, overrides: Collection[str], session_changed: Collection[str] | None = None
               ) -> Any:
    """`choice`'s spec as a point starts it, less the names in `overrides` (the point's own values: the swept ones,
    CUDA_VISIBLE_DEVICES on a pinned GPU). On this machine (`session_changed` None), the sweeping kernel's own spec
    has no `env`: this kernel's environment, which the point inherits, already holds what it set, as the session left
    it. On a Ray node, whose worker never held it, the own spec's `env` applies less what the session changed
    (`session_changed`: the worker has those, as the session left them), so the point starts as it would here."""
    from jupyter_client.kernelspec import KernelSpec

    spec = choice.spec
    if choice.how == "named":
        kept = set(overrides)
    elif session_changed is not None:
        kept = {*overrides, *session_changed}
    else:
        kept = None
    env = {} if kept is None else {name: value for name, value in (spec.env or {}).items() if name not in kept}
    return KernelSpec(resource_dir=spec.resource_dir, **{**spec.to_dict(), "env": env})


def point_kernel_manager(choice: KernelChoice, directory: Path, overrides: Collection[str] = (),
                         session_changed: Collection[str] | None = None) -> Any:
    """A jupyter_client KernelManager that starts `choice`'s command under the guard, with its connection file and its
    Unix sockets in the point's own `directory` (inside the sweep's private one: no port is opened, nothing else can
    connect); the guard removes that directory when the point ends, whatever ends it. The names in `overrides` are
    the point's own, never the spec's (`point_spec`, with `session_changed` on a Ray node)."""
    from jupyter_client.manager import KernelManager

    class GuardedKernelManager(KernelManager):  # type: ignore[misc]
        def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
            command: list[str] = super().format_kernel_cmd(extra_arguments)
            return [sys.executable, "-I", "-S", str(GUARD), str(os.getpid()), "--files", str(directory), "--",
                    *command]

    manager = GuardedKernelManager(transport="ipc", ip=str(directory / _SOCKET), connection_file=str(
        directory / "connection.json"))
    # The spec itself: a kernel with no registered name is started the same way.
    manager._kernel_spec = point_spec(choice, overrides, session_changed)
    return manager


# A Unix socket's path holds at most 107 bytes (sun_path, less its NUL). A point's sockets are
# <sweep directory>/p<index>/k-<port>: the sweep's directory is made where that fits.
SOCKET_PATH_MOST = 107
_SOCKET = "k"
_SWEEP_PREFIX = "mgenv-sweep-"

NO_SHORT_DIRECTORY = Text(
    "a sweep's points talk over Unix sockets, whose paths hold at most {most} bytes; the temporary directory "
    "{tmpdir!r} ({length} bytes) is too long, and none of {others} could be used: set TMPDIR to a shorter "
    "directory of your own",
    "扫描的各点通过 Unix 套接字通信,其路径至多 {most} 字节;临时目录 {tmpdir!r}({length} 字节)太长,"
    "而 {others} 都不可用:请把 TMPDIR 设为一个更短的、属于你自己的目录")


def sweep_directory(points: int) -> Path:
    """A new private directory (0700) for a sweep of `points` points, in the temporary directory (TMPDIR) where the
    points' socket paths fit there, else in a short system one; an `InvalidValueError` saying why where none
    fits."""
    longest = len(f"/{_SWEEP_PREFIX}{'x' * 8}/p{max(points - 1, 0)}/{_SOCKET}-99")
    tmpdir = tempfile.gettempdir()
    others = [root for root in _SHORT_ROOTS if _real(root) != _real(tmpdir)]
    for root in (tmpdir, *others):
        if len(os.fsencode(root)) + longest > SOCKET_PATH_MOST:
            continue
        try:
            return Path(tempfile.mkdtemp(prefix=_SWEEP_PREFIX, dir=root))
        except OSError:  # not there, or not ours to write
            continue
    raise InvalidValueError(NO_SHORT_DIRECTORY.get().format(
        most=SOCKET_PATH_MOST, tmpdir=tmpdir, length=len(os.fsencode(tmpdir)), others=", ".join(others)))


_SHORT_ROOTS = ("/tmp", "/var/tmp", "/dev/shm")


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
