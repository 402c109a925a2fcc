"""A container spawner for the hub's tests, without a container runtime: SimpleLocalProcessSpawner that starts the
single-user server of the users in `contained` in a pid namespace of its own (`unshare --pid --fork --mount`, as
root), with its own /proc, so the server and its kernels see only their namespace's pids, as in a container. Nothing
else is apart (network, files, user), as nothing else matters to the GPU view's attribution.

The simulated GPU stands in for the NVIDIA driver, which lists host pids whatever namespace asks: its simulation is
given the host's /proc, bind-mounted at `host_proc/<user>` inside the namespace only (memory/simulated/_host_pids.py,
MGENV_SIMULATE_GPU_HOST_PROC). The server's own code never reads it.

`unshare --fork` waits for the namespace's first process (the server) and passes it no signal: the hub's SIGINT and
SIGTERM go to that process itself, and a SIGKILL of unshare kills it (`--kill-child`), and the whole namespace with it.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from jupyterhub.spawner import SimpleLocalProcessSpawner
from traitlets import Set, Unicode

# In the namespace: mount the host's /proc where the simulation looks for it, then a /proc of the namespace's own.
_INSIDE = 'mount --bind /proc "$0" && mount -t proc proc /proc && exec "$@"'


class PidNamespaceSpawner(SimpleLocalProcessSpawner):  # type: ignore[misc]
    contained = Set(Unicode(), help="users whose servers run in a pid namespace of their own").tag(config=True)
    host_proc = Unicode(help="a folder for each contained user's view of the host's /proc").tag(config=True)

    @property
    def in_namespace(self) -> bool:
        return self.user.name in self.contained

    def _host_proc(self) -> Path:
        return Path(self.host_proc) / self.user.name

    def get_env(self) -> dict[str, str]:
        env = super().get_env()
        if self.in_namespace:
            env["MGENV_SIMULATE_GPU_HOST_PROC"] = str(self._host_proc())
        return env

    async def start(self):  # type: ignore[no-untyped-def]
        if self.in_namespace:
            self._host_proc().mkdir(parents=True, exist_ok=True)
            self.cmd = ["unshare", "--pid", "--fork", "--mount", "--propagation", "private", "--kill-child", "sh",
                        "-c", _INSIDE, str(self._host_proc()), sys.executable, "-m", "jupyterhub.singleuser"]
        return await super().start()

    async def _signal(self, sig: int) -> bool:
        if self.in_namespace and sig not in (0, signal.SIGKILL):
            for child in _children(self.pid):
                try:
                    os.kill(child, sig)
                except ProcessLookupError:
                    pass
        return bool(await super()._signal(sig))


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as children:
            return [int(p) for p in children.read(4096).split()]
    except (OSError, ValueError):
        return []
