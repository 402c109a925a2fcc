"""The REST endpoint of the server's GPU view: `GET <base_url>mgenv-jupyter/gpus` (protocol/gpus.py).

Authenticated and authorised as the server's own kernel endpoints are (`@web.authenticated`, `@authorized` on the
`kernels` resource): an API request without a valid token gets 403 and no data. It only reads; shutting a kernel
down or interrupting it is left to the server's own kernel API.
"""

from __future__ import annotations

import json

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from tornado import web

from .gpu_view import GpuView

VIEW_SETTING = "mgenv_jupyter_gpu_view"


class GpusHandler(APIHandler):
    auth_resource = "kernels"

    @web.authenticated
    @authorized
    async def get(self) -> None:
        view: GpuView = self.settings[VIEW_SETTING]
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(await view.view()))
