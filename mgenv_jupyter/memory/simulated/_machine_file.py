"""Where the Jupyter server that started this process keeps its simulated machine, and whether it keeps one now: the
cheap question every kernel asks (when its sampler starts, then at most once a second) before it imports anything of
the simulation. The machine itself, its file's contents and who writes them are `_shared_machine.py`'s; this module
imports nothing beyond the reading of a trusted runtime file, so a kernel that never simulates pays for no more."""

from __future__ import annotations

import os
from pathlib import Path

from ...base._regular_files import read_private_file

PREFIX = "mgenv-simulated-gpu-"
# An absolute path in a server's environment (and so in its kernels'): the machine file instead of the server's own,
# so that several servers of one user on this host (a hub's single-user servers) share one simulated machine.
MACHINE_ENV = "MGENV_SIMULATE_GPU_MACHINE"
_RUNTIME_FILE_BYTES = 64 * 1024  # a server's jpserver-<pid>.json is a few hundred bytes

_server_paths: dict[int, tuple[Path, Path] | None] = {}


def machine_path(runtime_dir: str | os.PathLike[str], server_pid: int) -> Path:
    """The file a server of pid `server_pid` keeps its simulated machine in, in its runtime directory."""
    return Path(runtime_dir) / f"{PREFIX}{server_pid}.json"


def shared_machine_path() -> Path | None:
    """The machine file `MACHINE_ENV` names (an absolute path), or None: each server keeps its own."""
    named = os.environ.get(MACHINE_ENV, "").strip()
    return Path(named) if named and os.path.isabs(named) else None


def server_files(runtime_dir: str | None = None, parent: int | None = None) -> tuple[Path, Path] | None:
    """The machine file of the Jupyter server that started this process (its parent), and that server's runtime file
    `jpserver-<parent pid>.json`, when one runs here: the runtime file is in the runtime directory and trusted
    (_regular_files.read_private_file). None for a process no server started. Found once per parent (when
    `runtime_dir` is not given)."""
    parent = os.getppid() if parent is None else parent
    if runtime_dir is None and parent in _server_paths:
        return _server_paths[parent]
    found = None
    directory = runtime_dir if runtime_dir is not None else _runtime_dir()
    if directory is not None:
        owner = Path(directory) / f"jpserver-{parent}.json"
        try:
            read_private_file(owner, _RUNTIME_FILE_BYTES)
        except ValueError:  # no server of that pid, or not a file to trust
            found = None
        else:
            found = (shared_machine_path() or machine_path(directory, parent), owner)
    if runtime_dir is None:
        _server_paths[parent] = found
    return found


def server_machine_path(runtime_dir: str | None = None, parent: int | None = None) -> Path | None:
    """The machine file of the Jupyter server that started this process (server_files), or None."""
    files = server_files(runtime_dir, parent)
    return None if files is None else files[0]


def server_machine_defined() -> bool:
    """Whether this process's server keeps a simulated machine file now (a stat, once the server is found)."""
    path = server_machine_path()
    return path is not None and path.exists()


def _runtime_dir() -> str | None:
    try:
        from jupyter_core.paths import jupyter_runtime_dir
    except ImportError:
        return None
    return jupyter_runtime_dir()
