"""The Jupyter server extension: every notebook's GPU memory on this server, at `GET <base_url>mgenv-jupyter/gpus`.

Enabled on `pip install` by jupyter-config/jupyter_server_config.d/mgenv_jupyter.json (`jupyter server extension
list` shows `mgenv_jupyter.server`). It owns one NVML reader for the whole server (_gpu_view.py), attributes every GPU
process to the kernel whose process tree holds it and each kernel to its notebooks (_attribution.py), and answers
through an authorised handler (_handlers.py). The wire format is protocol/_gpus.py. GPU-aware culling, off unless
`GpuCuller.idle_after` is set, shuts idle kernels that hold GPU memory down after telling their notebooks
(_culler.py; its events: protocol/_culling.py).
"""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "mgenv_jupyter.server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from jupyter_server.utils import url_path_join
    from tornado.ioloop import PeriodicCallback

    from ..protocol._culling import CULLING_EVENTS, event_schema
    from ..protocol._gpus import GPUS_PATH, OWNERS_PATH
    from ._activity import KERNEL_ACTIONS, KernelActivity
    from ._culler import GpuCuller
    from ._gpu_view import GpuView
    from ._handlers import VIEW_SETTING, GpusHandler, OwnersHandler

    web_app = serverapp.web_app
    activity = KernelActivity(serverapp.kernel_manager)
    events = getattr(serverapp, "event_logger", None)
    if events is not None and hasattr(events, "add_listener"):
        # Each kernel is watched from its start; a server without these events has the view watch kernels as it
        # lists them (server/_activity.py).
        events.add_listener(schema_id=KERNEL_ACTIONS, listener=activity.on_kernel_action)
    culler = GpuCuller(serverapp.kernel_manager, lambda event: _emit(events, CULLING_EVENTS, event),
                       parent=serverapp, log=serverapp.log)
    view = GpuView(serverapp.kernel_manager, serverapp.session_manager, runtime_dir=serverapp.runtime_dir,
                   activity=activity, culler=culler)
    if culler.enabled:
        if events is not None and hasattr(events, "register_event_schema"):
            events.register_event_schema(event_schema())
        cull = PeriodicCallback(lambda: _tick(culler, view), culler.interval * 1000)
        cull.start()
        web_app.settings[_CULL_SETTING] = cull
        serverapp.log.info("mgenv_jupyter: GPU-aware culling on: a kernel holding %d bytes or more of GPU memory, "
                           "idle %s s, is told and shut down %s s later", culler.min_bytes, culler.idle_after,
                           culler.notice)
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

    for setting in (_PUBLISH_SETTING, _CULL_SETTING):
        periodic = serverapp.web_app.settings.pop(setting, None)
        if periodic is not None:
            periodic.stop()
    view = serverapp.web_app.settings.pop(VIEW_SETTING, None)
    if view is not None:
        view.close()


_PUBLISH_SETTING = "mgenv_jupyter_publish"
_CULL_SETTING = "mgenv_jupyter_cull"


def _tick(culler: Any, view: Any) -> None:
    import asyncio
    from datetime import datetime, timezone

    async def look() -> None:
        await culler.tick(await view.view(), datetime.now(timezone.utc))

    asyncio.ensure_future(look()).add_done_callback(_log_failure("a look of GPU-aware culling"))


def _emit(events: Any, schema_id: str, event: Any) -> None:
    """One culling event on the server's event bus (to every front end subscribed), where the server has one."""
    if events is not None and hasattr(events, "emit"):
        events.emit(schema_id=schema_id, data=dict(event))


def _publish(view: Any) -> None:
    import asyncio

    task = asyncio.ensure_future(view.publish())
    # debug: it would fail once a second
    task.add_done_callback(_log_failure("listing the kernels on the simulated machine", level=10))


def _log_failure(what: str, level: int = 30) -> Any:
    """A done-callback that logs a task's failure at `level` (30: warning)."""
    def log_failure(task: Any) -> None:
        if not task.cancelled() and task.exception() is not None:
            import logging

            logging.getLogger(__name__).log(level, "mgenv_jupyter: %s failed", what, exc_info=task.exception())

    return log_failure
