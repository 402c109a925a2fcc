"""The Jupyter server extension: every notebook's GPU memory on this server, at `GET <base_url>mgenv-jupyter/gpus`.

Enabled on `pip install` by jupyter-config/jupyter_server_config.d/mgenv_jupyter.json (`jupyter server extension
list` shows `mgenv_jupyter.server`). It owns one NVML reader for the whole server (gpu_view.py), attributes every GPU
process to the kernel whose process tree holds it and each kernel to its notebooks (attribution.py), and answers
through an authorised handler (handlers.py). The wire format is protocol/_gpus.py.
"""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "mgenv_jupyter.server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from jupyter_server.utils import url_path_join

    from ..protocol._gpus import GPUS_PATH, OWNERS_PATH
    from ._gpu_view import GpuView
    from ._handlers import VIEW_SETTING, GpusHandler, OwnersHandler

    web_app = serverapp.web_app
    view = GpuView(serverapp.kernel_manager, serverapp.session_manager, runtime_dir=serverapp.runtime_dir)
    web_app.settings[VIEW_SETTING] = view
    base = web_app.settings["base_url"]
    web_app.add_handlers(".*$", [(url_path_join(base, GPUS_PATH), GpusHandler),
                                 (url_path_join(base, OWNERS_PATH), OwnersHandler)])
    serverapp.log.info("mgenv_jupyter: every notebook's GPU memory at /%s%s", GPUS_PATH,
                       " (simulated GPU)" if view.simulated else "")
