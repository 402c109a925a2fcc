"""The Jupyter server extension: every notebook's GPU memory on this server, at `GET <base_url>mgenv-jupyter/gpus`.

Enabled on `pip install` by jupyter-config/jupyter_server_config.d/mgenv_jupyter.json (`jupyter server extension
list` shows `mgenv_jupyter.server`). It owns one NVML reader for the whole server (_gpu_view.py), attributes every GPU
process to the kernel whose process tree holds it and each kernel to its notebooks (_attribution.py), and answers
through an authorised handler (_handlers.py). The wire format is protocol/_gpus.py.
"""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "mgenv_jupyter.server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from jupyter_server.utils import url_path_join
    from tornado.ioloop import PeriodicCallback

    from ..protocol._gpus import GPUS_PATH, OWNERS_PATH
    from ._activity import KERNEL_ACTIONS, KernelActivity
    from ._gpu_view import GpuView
    from ._handlers import VIEW_SETTING, GpusHandler, OwnersHandler

    web_app = serverapp.web_app
    activity = KernelActivity(serverapp.kernel_manager)
    events = getattr(serverapp, "event_logger", None)
    if events is not None and hasattr(events, "add_listener"):
        # Each kernel is watched from its start; a server without these events has the view watch kernels as it
        # lists them (server/_activity.py).
        events.add_listener(schema_id=KERNEL_ACTIONS, listener=activity.on_kernel_action)
    view = GpuView(serverapp.kernel_manager, serverapp.session_manager, runtime_dir=serverapp.runtime_dir,
                   activity=activity)
    web_app.settings[VIEW_SETTING] = view
    base = web_app.settings["base_url"]
    web_app.add_handlers(".*$", [(url_path_join(base, GPUS_PATH), GpusHandler),
                                 (url_path_join(base, OWNERS_PATH), OwnersHandler)])
    if view.simulated:  # every kernel of the server holds simulated memory: list them on the machine as they come
        publish = PeriodicCallback(lambda: _publish(view), 1000)
        publish.start()
        web_app.settings[_PUBLISH_SETTING] = publish
    serverapp.log.info("mgenv_jupyter: every notebook's GPU memory at /%s%s", GPUS_PATH,
                       " (simulated GPU)" if view.simulated else "")


def _unload_jupyter_server_extension(serverapp: Any) -> None:
    from ._handlers import VIEW_SETTING

    publish = serverapp.web_app.settings.pop(_PUBLISH_SETTING, None)
    if publish is not None:
        publish.stop()
    view = serverapp.web_app.settings.pop(VIEW_SETTING, None)
    if view is not None:
        view.close()


_PUBLISH_SETTING = "mgenv_jupyter_publish"


def _publish(view: Any) -> None:
    import asyncio

    task = asyncio.ensure_future(view.publish())
    task.add_done_callback(_log_failure)


def _log_failure(task: Any) -> None:
    if not task.cancelled() and task.exception() is not None:
        import logging

        logging.getLogger(__name__).debug("mgenv_jupyter: listing the kernels on the simulated machine failed",
                                          exc_info=task.exception())
