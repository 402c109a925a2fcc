"""Points as Ray tasks, when the user's code has connected Ray: each point a task with a GPU of its own and the
point's variables in its `runtime_env`, run in a fresh worker process, with the same result as a local point."""

from __future__ import annotations

from .._imported import imported


def ray_connected() -> bool:
    """Whether this kernel's code has connected Ray (`ray.init` ran); asking never imports Ray."""
    ray = imported("ray")
    if ray is None:
        return False
    try:
        return bool(ray.is_initialized())
    except Exception:  # a half-broken Ray is not one to run points on
        return False
