"""GPU-aware culling's decisions (server/_culler.py): who is told, kept and shut down, on views as the GPU view gives
them. The real server's culling, end to end, is tests/kernel/test_gpu_culling.py."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from traitlets import TraitError
from traitlets.config import Config

from mgenv_jupyter.protocol._culling import CullEvent, CullingPolicy
from mgenv_jupyter.protocol._gpus import GpuKernelInfo, GpuServerView
from mgenv_jupyter.server._culler import GpuCuller, decide, held_bytes

GIB = 2**30
NOW = datetime(2026, 12, 2, 3, 0, tzinfo=timezone.utc)
POLICY = CullingPolicy(idle_after=3600.0, notice=300.0, min_bytes=GIB)


def kernel(kernel_id: str, idle: float | None, running: bool = False) -> GpuKernelInfo:
    return GpuKernelInfo(id=kernel_id, name="python3", notebooks=[f"{kernel_id}.ipynb"], execution_state="idle",
                         last_activity=None, idle_seconds=idle, idle_since="cell" if idle is not None else None,
                         running_cell=running, running_seconds=1.0 if running else None, pid_known=True, cull_at=None)


def view(kernels: list[GpuKernelInfo], shares: dict[str, int | None]) -> GpuServerView:
    device = {"index": 0, "label": "gpu0", "name": "A100", "total": 40 * GIB, "used": 0, "others": [], "unlisted": 0,
              "problem": None,
              "shares": [{"kernel_id": k, "used": used, "figure": "nvml"} for k, used in shares.items()]}
    return GpuServerView(v=1, state="ok", detail=None, simulated=False, simulation=None, namespace="same",
                         kernels=kernels, devices=[device],  # type: ignore[list-item]
                         read_at=0.0, culling=None, host=None)


def test_an_idle_kernel_holding_gpu_memory_is_told_first_with_its_shutdown_time():
    steps = decide(POLICY, view([kernel("big", 4000.0)], {"big": 30 * GIB}), {}, NOW)
    assert [(action, c.kernel_id, c.held_bytes, c.cull_at) for action, c in steps] == [
        ("notice", "big", 30 * GIB, NOW + timedelta(seconds=300))]


def test_a_running_cell_a_small_holder_an_unattributed_one_and_a_recent_one_are_spared():
    kernels = [kernel("running", None, running=True), kernel("small", 9000.0), kernel("unknown", 9000.0),
               kernel("recent", 60.0), kernel("nothing", 9000.0)]
    shares = {"running": 30 * GIB, "small": GIB - 1, "unknown": None, "recent": 30 * GIB}
    assert decide(POLICY, view(kernels, shares), {}, NOW) == []


def test_held_bytes_sum_a_kernels_shares_and_an_unknown_share_makes_the_sum_unknown():
    two = view([kernel("a", 1.0), kernel("b", 1.0), kernel("c", 1.0)], {"a": GIB, "b": None})
    two["devices"].append({**two["devices"][0], "index": 1, "shares": [{"kernel_id": "a", "used": GIB,
                                                                         "figure": "nvml"}]})
    assert held_bytes(two) == {"a": 2 * GIB, "b": None, "c": 0}


def test_a_told_kernel_is_shut_down_at_its_time_and_kept_if_a_cell_ran_meanwhile():
    told = {c.kernel_id: c for _, c in decide(POLICY, view([kernel("big", 4000.0), kernel("other", 4000.0)],
                                                              {"big": 30 * GIB, "other": 2 * GIB}), {}, NOW)}
    before = NOW + timedelta(seconds=299)
    assert decide(POLICY, view([kernel("big", 4299.0), kernel("other", 4299.0)],
                               {"big": 30 * GIB, "other": 2 * GIB}), told, before) == []
    after = NOW + timedelta(seconds=300)
    steps = decide(POLICY, view([kernel("big", 4300.0), kernel("other", 5.0)], {"big": 30 * GIB, "other": 2 * GIB}),
                   told, after)
    assert [(action, c.kernel_id) for action, c in steps] == [("culled", "big"), ("kept", "other")]


class KernelManager:
    """What the culler asks of jupyter_server's kernel manager: shut a kernel down (a stand-in that records, or fails
    as a kernel manager does for an unknown id)."""

    def __init__(self, fail: bool = False) -> None:
        self.shut_down: list[str] = []
        self.fail = fail

    async def shutdown_kernel(self, kernel_id: str) -> None:
        if self.fail:
            raise KeyError(kernel_id)
        self.shut_down.append(kernel_id)


def culler(manager: KernelManager, events: list[CullEvent], **settings: Any) -> GpuCuller:
    return GpuCuller(manager, events.append, config=Config({"GpuCuller": settings}))


def test_off_by_default_nothing_is_told_or_shut_down():
    manager, events = KernelManager(), []
    off = culler(manager, events)
    assert not off.enabled and off.policy() is None
    asyncio.run(off.tick(view([kernel("big", 10**6)], {"big": 30 * GIB}), NOW))
    asyncio.run(off.tick(view([kernel("big", 10**6)], {"big": 30 * GIB}), NOW + timedelta(days=1)))
    assert events == [] and manager.shut_down == [] and off.cull_times() == {}


def test_configured_it_tells_then_shuts_down_and_says_what_it_held():
    manager, events = KernelManager(), []
    on = culler(manager, events, idle_after=60, notice=30, min_bytes=GIB)
    assert on.policy() == {"idle_after": 60.0, "notice": 30.0, "min_bytes": GIB}
    asyncio.run(on.tick(view([kernel("big", 61.0)], {"big": 30 * GIB}), NOW))
    assert on.cull_times() == {"big": NOW + timedelta(seconds=30)} and manager.shut_down == []
    asyncio.run(on.tick(view([kernel("big", 91.0)], {"big": 30 * GIB}), NOW + timedelta(seconds=30)))
    assert manager.shut_down == ["big"] and on.cull_times() == {}
    assert [(e["action"], e["kernel_id"], e["notebooks"], e["held_bytes"]) for e in events] == [
        ("notice", "big", ["big.ipynb"], 30 * GIB), ("culled", "big", ["big.ipynb"], 30 * GIB)]
    assert events[0]["cull_at"] == (NOW + timedelta(seconds=30)).isoformat() and events[1]["idle_seconds"] == 91.0


def test_a_failed_shutdown_is_told_and_the_kernel_looked_at_again():
    manager, events = KernelManager(fail=True), []
    on = culler(manager, events, idle_after=60, notice=0)
    asyncio.run(on.tick(view([kernel("big", 61.0)], {"big": 30 * GIB}), NOW))
    asyncio.run(on.tick(view([kernel("big", 62.0)], {"big": 30 * GIB}), NOW + timedelta(seconds=1)))
    assert [e["action"] for e in events] == ["notice", "failed"]
    asyncio.run(on.tick(view([kernel("big", 63.0)], {"big": 30 * GIB}), NOW + timedelta(seconds=2)))
    assert [e["action"] for e in events] == ["notice", "failed", "notice"]


def test_a_setting_out_of_range_is_refused_by_name():
    with pytest.raises(TraitError, match="idle_after"):
        GpuCuller(KernelManager(), print, idle_after=-1)


def test_a_kernel_shut_down_is_not_told_again_by_a_view_read_before_it_went():
    """The GPU view is answered from a read up to half a second old: it may still list the kernel just shut down."""
    manager, events = KernelManager(), []
    on = culler(manager, events, idle_after=60, notice=0)
    stale = view([kernel("big", 61.0)], {"big": 30 * GIB})
    for second in range(3):
        asyncio.run(on.tick(stale, NOW + timedelta(seconds=second)))
    assert [e["action"] for e in events] == ["notice", "culled"] and manager.shut_down == ["big"]
    asyncio.run(on.tick(view([], {}), NOW + timedelta(seconds=4)))  # gone from the view: forgotten
    asyncio.run(on.tick(stale, NOW + timedelta(seconds=5)))  # a new kernel with the same id is a new kernel
    assert [e["action"] for e in events] == ["notice", "culled", "notice"]
