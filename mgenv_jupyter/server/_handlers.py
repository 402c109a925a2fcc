"""The REST endpoint of the server's GPU view: `GET <base_url>mgenv-jupyter/gpus` (protocol/_gpus.py).

Authenticated and authorised as the server's own kernel endpoints are (`@web.authenticated`, `@authorized` on the
`kernels` resource): an API request without a valid token gets 403 and no data. It only reads; shutting a kernel
down or interrupting it is left to the server's own kernel API. A parameter is read as ASCII digits within its range
(base/_ascii_numbers.py); anything else is a 400 that says what was wrong, never a 500.
"""

from __future__ import annotations

import json

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from tornado import web

from ..base._ascii_numbers import whole_number
from ..base._quoting import quoted
from ..protocol._gpus import MAX_OWNER_PIDS
from ._gpu_view import GpuView

VIEW_SETTING = "mgenv_jupyter_gpu_view"
MAX_PID = 2**32 - 1  # NVML's pid is a 32-bit unsigned int


class GpusHandler(APIHandler):
    auth_resource = "kernels"

    @web.authenticated
    @authorized
    async def get(self) -> None:
        view: GpuView = self.settings[VIEW_SETTING]
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(await view.view()))


class OwnersHandler(APIHandler):
    """`GET .../gpus/owners?pid=N&pid=M`: which kernel of this server holds each process (protocol/_gpus.py
    GpuOwnersReply). A kernel's out-of-memory report asks it about the processes NVML lists beside it."""

    auth_resource = "kernels"

    @web.authenticated
    @authorized
    async def get(self) -> None:
        raw = self.get_arguments("pid", strip=False)  # " 7" is not a pid either: tornado would strip it
        if not raw or len(raw) > MAX_OWNER_PIDS:
            raise web.HTTPError(400, f"give 1 to {MAX_OWNER_PIDS} pid arguments, not {len(raw)}")
        pids = []
        for text in raw:
            pid = whole_number(text, 1, MAX_PID)
            if pid is None:
                raise web.HTTPError(400, f"pid={quoted(text)} is not a process id: a pid is a whole number from 1 to "
                                         f"{MAX_PID}, written in the ASCII digits 0-9")
            pids.append(pid)
        view: GpuView = self.settings[VIEW_SETTING]
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(await view.owners(pids)))
