"""The verdict: each cause from the numbers that point to it, likeliest first."""

from __future__ import annotations

from dataclasses import replace

from mgenv_jupyter.oom._causes import Cause, diagnose, size
from mgenv_jupyter.oom._recognise import OutOfMemory
from mgenv_jupyter.oom._state import DeviceFigures, MemoryState, OtherProcess
from mgenv_jupyter.runtime.frameworks._megengine import dtr_enabled

GiB = 1024**3


def gpu_oom(framework: str = "torch", requested: int = 2 * GiB, **facts: int) -> OutOfMemory:
    return OutOfMemory(framework, "gpu", "x.Error", "", 0, requested, facts)


def device(kernel: int, used: int | None = None, total: int = 40 * GiB, **allocator: int) -> MemoryState:
    return MemoryState((DeviceFigures("gpu0", 0, total, used if used is not None else kernel, kernel, **allocator),))


def causes(findings) -> list[Cause]:
    return [f.cause for f in findings]


def test_fragmentation_from_pytorchs_reserved_but_unallocated(fresh_session):
    findings = diagnose(gpu_oom(cached_free=16 * GiB), device(38 * GiB), fresh_session)
    assert causes(findings)[0] is Cause.FRAGMENTATION and "8.0×" in findings[0].evidence.en


def test_fragmentation_from_the_allocators_counters_when_the_message_has_none(fresh_session):
    state = device(38 * GiB, allocated=20 * GiB, reserved=37 * GiB)
    assert causes(diagnose(gpu_oom("paddle"), state, fresh_session))[0] is Cause.FRAGMENTATION


def test_another_process_holding_most_of_the_gpu_is_named(fresh_session):
    state = MemoryState(device(8 * GiB, used=38 * GiB).devices,
                        (OtherProcess(0, 4242, 30 * GiB, "alice", "python"),))
    first = diagnose(gpu_oom(cached_free=0), state, fresh_session)[0]
    assert first.cause is Cause.OTHER_PROCESS and "pid 4242 (alice, python)" in first.evidence.en
    assert "pid 4242(alice, python)" in first.evidence.zh


def test_megengine_with_dtr_off_then_on(fresh_session):
    event = gpu_oom("megengine")
    assert Cause.DTR_OFF in causes(diagnose(event, device(20 * GiB), fresh_session))
    fresh_session.set({"MEGENGINE_ENABLE_DROP": "1", "MEGENGINE_DTR_AUTO_DROP": "1"})
    assert dtr_enabled(fresh_session)
    assert Cause.DTR_OFF not in causes(diagnose(event, device(20 * GiB), fresh_session))


def test_a_cap_pytorchs_fraction_and_jaxs_share(fresh_session):
    torch = diagnose(gpu_oom(allowed=4 * GiB, cached_free=0), device(1 * GiB), fresh_session)
    assert causes(torch)[0] is Cause.CAP and "4 GiB" in torch[0].evidence.en
    jax = diagnose(gpu_oom("jax", 12 * GiB), device(30 * GiB), fresh_session)
    assert causes(jax)[0] is Cause.CAP and "75%" in jax[0].evidence.en


def test_simply_too_big(fresh_session):
    findings = diagnose(gpu_oom(requested=1024 * GiB, cached_free=0), device(1 * GiB), fresh_session)
    assert causes(findings) == [Cause.TOO_BIG] and "1 TiB" in findings[0].evidence.en


def test_host_memory_far_beyond_the_machine(fresh_session):
    state = MemoryState(host_total=24 * GiB, host_available=20 * GiB, kernel_rss=GiB)
    (finding,) = diagnose(OutOfMemory("torch", "host", "builtins.RuntimeError", "", None, 1 << 50), state,
                          fresh_session)
    assert finding.cause is Cause.HOST and "far beyond the machine" in finding.evidence.en


def test_sizes_read_as_people_write_them():
    assert [size(n) for n in (None, 512, 2 * GiB, int(16.3 * GiB), 1 << 50)] == [
        "?", "512 B", "2 GiB", "16.3 GiB", "1 PiB"]


def test_the_caps_come_from_the_catalog_jaxs_default_share_and_paddles_naive_best_fit(fresh_session, monkeypatch):
    """The report asks the catalog instead of restating it: JAX's share is the catalog entry's default when unset, and
    Paddle's pool is a cap only where the catalog says FLAGS_fraction_of_gpu_memory_to_use applies."""
    name = "XLA_PYTHON_CLIENT_MEM_FRACTION"  # a catalog that says 0.5, restored when the test ends
    monkeypatch.setitem(fresh_session.catalog._entries, name, replace(fresh_session.catalog.get(name), default="0.5"))
    jax = diagnose(gpu_oom("jax", 12 * GiB), device(18 * GiB), fresh_session)
    assert causes(jax)[0] is Cause.CAP and "50%" in jax[0].evidence.en
    paddle = gpu_oom("paddle", cached_free=0)
    assert Cause.CAP not in causes(diagnose(paddle, device(1 * GiB), fresh_session))  # auto_growth, the default
    fresh_session.set({"FLAGS_allocator_strategy": "naive_best_fit"})
    assert Cause.CAP in causes(diagnose(paddle, device(1 * GiB), fresh_session))
