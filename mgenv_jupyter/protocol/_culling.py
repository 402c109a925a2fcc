"""GPU-aware culling's events: what the server extension tells every front end of the server (JupyterLab's and Notebook
7's event stream, `/api/events/subscribe`) before and after it shuts down an idle kernel that holds GPU memory
(server/_culler.py), and the policy the GPU view shows.

Each event names the kernel and its notebooks, what it held and how long it had been idle (since the end of the last
cell a user ran: the GPU view's idleness), and when it is, or was, shut down. A front end shows it under the notebooks
it has open with that path; codes cross the wire, the front end words them.
"""

from __future__ import annotations

from typing import Literal, TypedDict

# The schema id under which the server's event logger emits them (a URI, as jupyter_events requires; nothing is
# fetched from it).
CULLING_EVENTS = "https://github.com/mgenv-jupyter/events/gpu_culling/v1"
CULLING_EVENTS_VERSION = "1"

# notice: the kernel will be shut down at `cull_at` unless a cell runs. kept: a cell ran (or it let its memory go)
# after a notice; nothing happens. culled: it was shut down at `cull_at`. failed: the shutdown failed (the kernel runs).
CullAction = Literal["notice", "kept", "culled", "failed"]


class CullingPolicy(TypedDict):
    """The server's culling policy (`GpuCuller`'s settings), as the GPU view shows it: seconds a kernel holding at
    least `min_bytes` of GPU memory may stay idle, and seconds between the notice and the shutdown."""

    idle_after: float
    notice: float
    min_bytes: int


class CullEvent(TypedDict):
    """One event of the culler: the action, the kernel's id and notebook paths, the bytes it held on the server's GPUs,
    the seconds it had been idle when the event was sent, and the moment of the shutdown (ISO 8601, UTC)."""

    action: CullAction
    kernel_id: str
    notebooks: list[str]
    held_bytes: int
    idle_seconds: float
    cull_at: str
    idle_after: float


def event_schema() -> dict[str, object]:
    """The JSON schema registered with the server's event logger (jupyter_events validates every event against it)."""
    return {
        "$id": CULLING_EVENTS,
        "version": CULLING_EVENTS_VERSION,
        "title": "mgenv_jupyter GPU-aware culling",
        "personal-data": True,
        "description": "An idle kernel holding GPU memory: told, kept, shut down.",
        "type": "object",
        "required": list(CullEvent.__annotations__),
        "properties": {
            "action": {"enum": ["notice", "kept", "culled", "failed"], "description": "What happened."},
            "kernel_id": {"type": "string", "description": "The kernel's id."},
            "notebooks": {"type": "array", "items": {"type": "string"}, "description": "Its sessions' paths."},
            "held_bytes": {"type": "integer", "description": "GPU bytes its process tree held."},
            "idle_seconds": {"type": "number", "description": "Seconds since its last user cell ended."},
            "cull_at": {"type": "string", "description": "When it is or was shut down (ISO 8601, UTC)."},
            "idle_after": {"type": "number", "description": "The policy's idle limit, in seconds."},
        },
    }
