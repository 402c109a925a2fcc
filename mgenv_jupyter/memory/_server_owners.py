"""Which notebook holds a GPU process: the kernel asks the Jupyter server that started it.

A kernel sees the processes NVML lists beside it only as pid, user and name. The server's extension (the server
package, `GET <base_url>mgenv-jupyter/gpus/owners`) knows which of its kernels holds each one and through its
sessions the notebook. The kernel finds its own server by the runtime file the server writes for `jupyter server
list` (`jpserver-<pid>.json`), named by the kernel's parent pid: a local kernel is the server's child.

The server's token goes with the request, so who gets the request is decided here, from that file alone:
- the file is trusted only when it is a regular file (not a link; a FIFO is never waited on) that this user owns
  and nobody else can write, of at most 64 KiB of JSON (_regular_files.read_private_file);
- the request goes to a loopback address and nowhere else: the URL's host must be a loopback IP literal or
  `localhost` (taken to mean 127.0.0.1, then ::1, without asking a resolver, which a hosts file or DNS could make
  name another machine), or the server must listen on every interface (its file's `hostname` is 0.0.0.0 or ::,
  and its URL names the machine), where loopback reaches it too; any other host is never asked;
- over plain HTTP with no proxy and no redirect, within one deadline for the whole request, reading at most 1 MiB
  (memory/_loopback_http.py); a server with TLS (https) or a Unix socket is not asked.

The answer is read as data (base/_bounded_json.py: nesting and numbers bounded) and field by field. Without the
extension (404), without a server (the kernel was started by nbclient or a console), or on any failure, the answer
is empty and the report keeps pid, user and name; nothing here raises. What the server answers is data for a
sentence of the report, never consent for anything: shutting a kernel down is the front end's, after the user's
confirmation.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..base._bounded_json import loads
from ..base._regular_files import read_private_file
from ..protocol._gpus import MAX_OWNER_PIDS, OWNERS_PATH, IdleSince
from . import _loopback_http

TIMEOUT_SECONDS = 1.0  # the whole request; the report is shown within 300 ms when the server answers at once
_MAX_REPLY_BYTES = 1 << 20
_MAX_REPLY_DEPTH = 5  # {"owners": [{"kernel": {"notebooks": [...]}}]}: five levels
_MAX_RUNTIME_FILE_BYTES = 64 * 1024
_MAX_RUNTIME_FILE_DEPTH = 2  # a flat object; one level more for a field a later server may add
_MAX_NOTEBOOKS = 16
_MAX_IDLE_SECONDS = 100 * 365 * 86400.0
# What the request header and the request line may carry: visible ASCII only, so no token or base_url can add a
# header or end the request line (http.client would refuse them too, by raising).
_TOKEN = re.compile(r"[!-~]{0,4096}")
_PATH = re.compile(r"/[A-Za-z0-9._~!$&'()*+,;=:@%/-]{0,2047}")
_WILDCARDS = {"0.0.0.0": ("127.0.0.1",), "::": ("::1", "127.0.0.1")}
_LOCALHOST = ("127.0.0.1", "::1")
_IDLE_SINCE: dict[str, IdleSince] = {"cell": "cell", "start": "start", "watch": "watch"}


@dataclass(frozen=True)
class LocalServer:
    """This kernel's Jupyter server as its runtime file describes it: the loopback addresses to try in turn, its
    port, the path of its base_url (ending in '/'), and its token (never shown: not in repr)."""

    addresses: tuple[str, ...]
    port: int
    base_path: str
    token: str = field(repr=False)


@dataclass(frozen=True)
class NotebookOwner:
    """The server kernel that holds a process: its id, its notebooks, its state, and how long it has been idle since
    a user's last cell ended (`idle_since` "cell"; "start": since it started, none run; "watch": since the server
    began watching it) or whether it is running a cell (the server's view, protocol/_gpus.py)."""

    kernel_id: str
    notebooks: tuple[str, ...]
    execution_state: str
    idle_seconds: float | None
    idle_since: IdleSince | None = None
    running_cell: bool = False


def own_server(runtime_dir: str | None = None, parent: int | None = None) -> LocalServer | None:
    """The Jupyter server that started this kernel, as its runtime file says, when the file and what it says can be
    trusted; otherwise None."""
    if runtime_dir is None:
        try:
            from jupyter_core.paths import jupyter_runtime_dir
        except ImportError:
            return None
        runtime_dir = jupyter_runtime_dir()
    path = Path(runtime_dir) / f"jpserver-{os.getppid() if parent is None else parent}.json"
    try:
        info = loads(read_private_file(path, _MAX_RUNTIME_FILE_BYTES), _MAX_RUNTIME_FILE_DEPTH)
    except ValueError:  # InvalidValueError: missing or not trusted; ValueError: not JSON of the bounds
        return None
    return local_server(info) if isinstance(info, dict) else None


def local_server(info: dict[str, object]) -> LocalServer | None:
    """Where the server of a runtime file's `info` answers on loopback, or None when that is not plain HTTP on a
    loopback address (see the module's docstring)."""
    url, token, bound = info.get("url"), info.get("token", ""), info.get("hostname")
    if not (isinstance(url, str) and len(url) <= 4096 and isinstance(token, str) and _TOKEN.fullmatch(token)):
        return None
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a port out of range, a malformed IPv6 literal
        return None
    if parts.scheme != "http" or port is None or parts.query or parts.fragment:
        return None
    addresses = _loopback(parts.hostname or "", bound)
    path = parts.path or "/"
    if addresses is None or not _PATH.fullmatch(path):
        return None
    return LocalServer(addresses, port, path if path.endswith("/") else path + "/", token)


def _loopback(host: str, bound: object) -> tuple[str, ...] | None:
    """The loopback address literals that reach a server whose URL names `host` and which listens on `bound`."""
    if isinstance(bound, str) and bound in _WILDCARDS:
        return _WILDCARDS[bound]
    if host.lower() == "localhost":
        return _LOCALHOST
    import ipaddress  # here, not with the module: only an out-of-memory report with other processes comes here

    try:
        return (host,) if ipaddress.ip_address(host).is_loopback else None
    except ValueError:  # a name, not an address: never resolved
        return None


def notebook_owners(pids: Sequence[int], server: LocalServer | None = None,
                    timeout: float = TIMEOUT_SECONDS) -> dict[int, NotebookOwner]:
    """For each pid a kernel of this kernel's server holds, that kernel; {} when nothing can be asked. The request
    ends within `timeout` seconds, whatever the server does. Never raises."""
    wanted = [pid for pid in dict.fromkeys(pids) if isinstance(pid, int) and 0 < pid < 2**32][:MAX_OWNER_PIDS]
    if not wanted:
        return {}
    server = server if server is not None else own_server()
    if server is None:
        return {}
    query = "&".join(f"pid={pid}" for pid in wanted)
    headers = {"Authorization": f"token {server.token}"} if server.token else {}
    body = _loopback_http.get(server.addresses, server.port, f"{server.base_path}{OWNERS_PATH}?{query}", headers,
                              timeout, _MAX_REPLY_BYTES)
    if body is None:
        return {}
    try:
        reply = loads(body, _MAX_REPLY_DEPTH)
    except ValueError:  # not JSON, nested too deep, a number out of bounds
        return {}
    return _parse(reply, set(wanted))


def _parse(reply: object, asked: set[int]) -> dict[int, NotebookOwner]:
    """The reply read as data, field by field: only pids that were asked about; anything of another shape is left
    out."""
    found: dict[int, NotebookOwner] = {}
    owners = reply.get("owners") if isinstance(reply, dict) else None
    for item in owners[:MAX_OWNER_PIDS] if isinstance(owners, list) else ():
        kernel = item.get("kernel") if isinstance(item, dict) else None
        pid = item.get("pid") if isinstance(item, dict) else None
        if not isinstance(kernel, dict) or not isinstance(pid, int) or pid not in asked:
            continue
        notebooks = kernel.get("notebooks")
        kernel_id, state = kernel.get("id"), kernel.get("execution_state")
        if not (isinstance(kernel_id, str) and isinstance(state, str) and isinstance(notebooks, list)):
            continue
        found[pid] = NotebookOwner(
            kernel_id=kernel_id[:64],
            notebooks=tuple(n[:1024] for n in notebooks[:_MAX_NOTEBOOKS] if isinstance(n, str)),
            execution_state=state[:32],
            idle_seconds=_idle(kernel.get("idle_seconds")),
            idle_since=_IDLE_SINCE.get(since) if isinstance(since := kernel.get("idle_since"), str) else None,
            running_cell=kernel.get("running_cell") is True,
        )
    return found


def _idle(value: object) -> float | None:
    """Seconds idle when the server gave a plausible number: finite, not negative, under a century."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    seconds = float(value)  # the reader bounded the number: an int of at most 19 digits, a finite float
    return seconds if math.isfinite(seconds) and 0 <= seconds <= _MAX_IDLE_SECONDS else None
