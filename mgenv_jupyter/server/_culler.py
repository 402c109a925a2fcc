"""GPU-aware culling, off by default: a kernel that holds GPU memory and has run no user's cell for a while is told,
then shut down, so that the GPU it holds goes back to the others sharing the machine.

jupyter_server's own culler (`MappingKernelManager.cull_idle_timeout`) counts any message as activity, so a notebook
with a live chart is never idle, and it treats a kernel holding 30 GiB of a shared GPU like a CPU notebook. Here
idleness is the GPU view's: seconds since the end of the last cell a user ran (server/_activity.py), and only a kernel
whose process tree holds at least `min_bytes` on the server's GPUs is a candidate. A kernel running a cell is never
culled, nor one whose share cannot be attributed (a figure of "unknown" proves nothing).

Each tick reads the GPU view once. A candidate is first told (`notice`), with the moment of its shutdown; it is shut
down at that moment, through the server's kernel manager (as `DELETE /api/kernels/<id>` does), unless meanwhile a
cell ran or it let its memory go, when it is told it is kept. Every step is an event on the server's event bus
(protocol/_culling.py), which JupyterLab and Notebook 7 show under the notebook, and a line in the server's log.

Configured like the server: `--GpuCuller.idle_after=3600` on the command line (a hub's `c.Spawner.args` too), or
`c.GpuCuller.idle_after = 3600` in jupyter_server_config.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from traitlets import Float, Integer
from traitlets.config import LoggingConfigurable

from ..catalog._values import format_duration, format_size
from ..protocol._culling import CullAction, CullEvent, CullingPolicy
from ..protocol._gpus import GpuServerView


@dataclass(frozen=True)
class Candidate:
    """A kernel the culler has told: what it held and how idle it was when last read, and when it goes."""

    kernel_id: str
    notebooks: tuple[str, ...]
    held_bytes: int
    idle_seconds: float
    cull_at: datetime


def held_bytes(view: GpuServerView) -> dict[str, int | None]:
    """Each kernel's bytes on the server's GPUs (its shares summed); None where a share could not be attributed."""
    held: dict[str, int | None] = {kernel["id"]: 0 for kernel in view["kernels"]}
    for device in view["devices"]:
        for share in device["shares"]:
            before = held.get(share["kernel_id"], 0)
            used = share["used"]
            held[share["kernel_id"]] = None if before is None or used is None else before + used
    return held


def decide(policy: CullingPolicy, view: GpuServerView, told: dict[str, Candidate],
           now: datetime) -> list[tuple[CullAction, Candidate]]:
    """What to do now: tell a new candidate (`notice`, with its shutdown `notice` seconds from now), shut down one told
    whose moment has come (`culled`), or tell one told that it stays (`kept`: a cell ran, it is running one, or it
    holds less than `min_bytes` now). A kernel no longer on the server is forgotten without a word."""
    held = held_bytes(view)
    steps: list[tuple[CullAction, Candidate]] = []
    for kernel in view["kernels"]:
        kernel_id, idle, bytes_held = kernel["id"], kernel["idle_seconds"], held.get(kernel["id"], 0)
        candidate = (not kernel["running_cell"] and idle is not None and bytes_held is not None
                     and bytes_held >= max(policy["min_bytes"], 1) and idle >= policy["idle_after"])
        earlier = told.get(kernel_id)
        if earlier is not None:
            now_seen = replace(earlier, held_bytes=bytes_held or 0, idle_seconds=idle or 0.0)
            if not candidate:
                steps.append(("kept", now_seen))
            elif now >= earlier.cull_at:
                steps.append(("culled", now_seen))
        elif candidate:
            assert idle is not None and bytes_held is not None
            steps.append(("notice", Candidate(kernel_id, tuple(kernel["notebooks"]), bytes_held, idle,
                                              now + timedelta(seconds=policy["notice"]))))
    return steps


class GpuCuller(LoggingConfigurable):
    """Shuts down kernels that hold GPU memory and have been idle (since their last user cell) for `idle_after`
    seconds, `notice` seconds after telling their notebooks. Off (`idle_after` 0) unless configured."""

    idle_after = Float(0.0, min=0.0, config=True, help=(
        "Seconds a kernel that holds at least min_bytes of GPU memory may stay idle (since the end of its last cell "
        "a user ran) before it is told and then shut down. 0 turns GPU-aware culling off."))
    notice = Float(300.0, min=0.0, config=True, help=(
        "Seconds between telling a kernel's notebooks that it will be shut down and shutting it down; running a cell "
        "meanwhile keeps it."))
    interval = Float(60.0, min=0.1, config=True, help="Seconds between two looks at the GPU view.")
    min_bytes = Integer(256 * 2**20, min=1, config=True, help=(
        "Bytes of GPU memory a kernel's process tree must hold to be culled: kernels holding less are never culled."))

    def __init__(self, kernel_manager: Any, emit: Callable[[CullEvent], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.kernel_manager = kernel_manager
        self.emit = emit
        self._told: dict[str, Candidate] = {}
        # Kernels shut down while a view read before the shutdown may still list them: never told again.
        self._shut_down: set[str] = set()
        self._looking = False  # one look at a time: a shutdown awaits, and the next tick may come meanwhile

    @property
    def enabled(self) -> bool:
        return self.idle_after > 0

    def policy(self) -> CullingPolicy | None:
        """The policy as the GPU view shows it; None while culling is off."""
        if not self.enabled:
            return None
        return CullingPolicy(idle_after=self.idle_after, notice=self.notice, min_bytes=self.min_bytes)

    def cull_times(self) -> dict[str, datetime]:
        """When each kernel told is to be shut down (the GPU view shows it beside the kernel)."""
        return {kernel_id: candidate.cull_at for kernel_id, candidate in self._told.items()}

    async def tick(self, view: GpuServerView, now: datetime) -> None:
        """One look at the GPU view: tell, keep or shut down as `decide` says. Never raises: a failed shutdown is
        logged and told, and the kernel is looked at again on the next tick."""
        policy = self.policy()
        if policy is None or self._looking:
            return
        self._looking = True
        try:
            await self._look(policy, view, now)
        finally:
            self._looking = False

    async def _look(self, policy: CullingPolicy, view: GpuServerView, now: datetime) -> None:
        present = {kernel["id"] for kernel in view["kernels"]}
        for gone in [kernel_id for kernel_id in self._told if kernel_id not in present]:
            del self._told[gone]
        self._shut_down &= present
        view = GpuServerView(**{**view, "kernels": [k for k in view["kernels"] if k["id"] not in self._shut_down]})
        for action, candidate in decide(policy, view, self._told, now):
            if action == "notice":
                self._told[candidate.kernel_id] = candidate
            elif action == "kept":
                del self._told[candidate.kernel_id]
            elif action == "culled":
                del self._told[candidate.kernel_id]
                self._shut_down.add(candidate.kernel_id)
                try:
                    await self.kernel_manager.shutdown_kernel(candidate.kernel_id)
                except Exception:
                    self._shut_down.discard(candidate.kernel_id)
                    self.log.exception("mgenv_jupyter: shutting down idle kernel %s failed", candidate.kernel_id)
                    action = "failed"
            self._tell(action, candidate)

    def _tell(self, action: CullAction, candidate: Candidate) -> None:
        where = ", ".join(candidate.notebooks) or "no notebook"
        held, idle = format_size(candidate.held_bytes), format_duration(candidate.idle_seconds)
        if action == "notice":
            self.log.warning("mgenv_jupyter: kernel %s (%s) holds %s of GPU memory and has run no cell for %s: it "
                             "will be shut down at %s unless a cell runs", candidate.kernel_id, where, held, idle,
                             candidate.cull_at.isoformat(timespec="seconds"))
        elif action == "kept":
            self.log.info("mgenv_jupyter: kernel %s (%s) is kept: a cell ran or it holds less GPU memory now "
                          "(idle %s, holding %s)", candidate.kernel_id, where, idle, held)
        elif action == "culled":
            self.log.warning("mgenv_jupyter: shut down kernel %s (%s): it held %s of GPU memory and had run no cell "
                             "for %s (GpuCuller.idle_after = %s)", candidate.kernel_id, where, held, idle,
                             format_duration(self.idle_after))
        self.emit(CullEvent(action=action, kernel_id=candidate.kernel_id, notebooks=list(candidate.notebooks),
                            held_bytes=candidate.held_bytes, idle_seconds=candidate.idle_seconds,
                            cull_at=candidate.cull_at.isoformat(), idle_after=self.idle_after))
