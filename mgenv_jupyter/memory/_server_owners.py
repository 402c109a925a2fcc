"""Which notebook holds a GPU process: the kernel asks the Jupyter server that started it.

A kernel sees the processes NVML lists beside it only as pid, user and name. The server's extension (the server
package, `GET <base_url>mgenv-jupyter/gpus/owners`) knows which of its kernels holds each one and through its
sessions the notebook. The kernel finds its own server by the runtime file the server writes for `jupyter server
list` (`jpserver-<pid>.json`, readable only by the user who started it), named by the kernel's parent pid: a local
kernel is the server's child. The server's token read there is sent in the request header and nowhere else.

Without the extension (404), without a server (the kernel was started by nbclient or a console), or on any failure,
the answer is empty and the report keeps pid, user and name. What the server answers is data for a sentence of the
report, never consent for anything: shutting a kernel down is the front end's, after the user's confirmation.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..protocol._gpus import MAX_OWNER_PIDS, OWNERS_PATH

TIMEOUT_SECONDS = 1.0  # the report is shown within 300 ms at most; a server that does not answer at once is skipped
_MAX_REPLY_BYTES = 1 << 20
_MAX_NOTEBOOKS = 16


@dataclass(frozen=True)
class NotebookOwner:
    """The server kernel that holds a process: its id, its notebooks, its state and how long it has been idle."""

    kernel_id: str
    notebooks: tuple[str, ...]
    execution_state: str
    idle_seconds: float | None


def own_server(runtime_dir: str | None = None, parent: int | None = None) -> tuple[str, str] | None:
    """(url with base_url, token) of the Jupyter server that started this kernel, or None."""
    if runtime_dir is None:
        try:
            from jupyter_core.paths import jupyter_runtime_dir
        except ImportError:
            return None
        runtime_dir = jupyter_runtime_dir()
    path = Path(runtime_dir) / f"jpserver-{os.getppid() if parent is None else parent}.json"
    try:
        with open(path, "rb") as f:
            info = json.loads(f.read(_MAX_REPLY_BYTES))
    except (OSError, ValueError):
        return None
    url, token = info.get("url"), info.get("token", "")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")) or not isinstance(token, str):
        return None
    base = info.get("base_url") if isinstance(info.get("base_url"), str) else "/"
    root = url.rstrip("/") if url.rstrip("/").endswith(base.rstrip("/")) else url.rstrip("/") + base.rstrip("/")
    return root + "/", token


def notebook_owners(pids: Sequence[int], server: tuple[str, str] | None = None,
                    timeout: float = TIMEOUT_SECONDS) -> dict[int, NotebookOwner]:
    """For each pid a kernel of this kernel's server holds, that kernel; {} when nothing can be asked. Never raises."""
    wanted = [pid for pid in dict.fromkeys(pids) if isinstance(pid, int) and 0 < pid < 2**32][:MAX_OWNER_PIDS]
    if not wanted:
        return {}
    server = server if server is not None else own_server()
    if server is None:
        return {}
    url, token = server
    # Imported here, not with the module: urllib.request brings http.client, email and ssl (tens of milliseconds),
    # and the out-of-memory report that asks this must come at once.
    import urllib.error
    import urllib.parse
    import urllib.request

    query = urllib.parse.urlencode([("pid", pid) for pid in wanted])
    request = urllib.request.Request(f"{url}{OWNERS_PATH}?{query}", headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            reply = json.loads(response.read(_MAX_REPLY_BYTES))
    except (OSError, ValueError, urllib.error.HTTPError):  # no extension (404), refused, gone, or not JSON
        return {}
    return _parse(reply)


def _parse(reply: object) -> dict[int, NotebookOwner]:
    """The reply read as data, field by field; anything of another shape is left out."""
    found: dict[int, NotebookOwner] = {}
    owners = reply.get("owners") if isinstance(reply, dict) else None
    for item in owners if isinstance(owners, list) else ():
        kernel = item.get("kernel") if isinstance(item, dict) else None
        pid = item.get("pid") if isinstance(item, dict) else None
        if not isinstance(kernel, dict) or not isinstance(pid, int):
            continue
        notebooks = kernel.get("notebooks")
        idle = kernel.get("idle_seconds")
        kernel_id, state = kernel.get("id"), kernel.get("execution_state")
        if not (isinstance(kernel_id, str) and isinstance(state, str) and isinstance(notebooks, list)):
            continue
        found[pid] = NotebookOwner(
            kernel_id=kernel_id[:64],
            notebooks=tuple(n[:1024] for n in notebooks[:_MAX_NOTEBOOKS] if isinstance(n, str)),
            execution_state=state[:32],
            idle_seconds=float(idle) if isinstance(idle, (int, float)) and not isinstance(idle, bool) else None,
        )
    return found
