"""Getting memory back after a real out-of-memory error, with the real PyTorch, JAX, Paddle, MegEngine and MXNet in
their own venvs, in a real IPython shell (tests/framework_checks/free_after_oom.py): a cell's function holds a 512 MiB
tensor and then raises the framework's own out-of-memory error; the tensor outlives the cell (held by the traceback);
`%memfree` gives it back, the RSS drops by at least 80% of its size, and a global defined before is untouched.
MXNet's NDArray takes no weak reference, so there the RSS alone tells.

And what holds memory, by name (tests/framework_checks/holders_real.py): three globals of 4, 8 and 12 MiB, a second
name for one of them (a real view in PyTorch), a module with parameters (and a buffer in PyTorch) and a list holding
a small tensor: each named with its size, the shared storage counted once.

And a simulated GPU beside a real framework (tests/framework_checks/free_simulated.py): it stands in for a framework's
GPU cache, so `%memfree` gives it back only when a GPU's allocator was asked (MegEngine's), never for a host pool
(MXNet's `cpu()` pool on its CPU wheel).
"""

from __future__ import annotations

import json

import pytest

from framework_venvs import run

MiB = 1 << 20
FRAMEWORKS = ["torch", "jax", "paddle", "megengine", "mxnet"]
WEAK = {"torch": True, "jax": True, "paddle": True, "megengine": True, "mxnet": False}
# Started ahead, two at a time, while the tests run (tests/frameworks/conftest.py).
SCENARIOS = [*((framework, "free_after_oom.py", framework) for framework in FRAMEWORKS),
             *((framework, "holders_real.py", framework) for framework in FRAMEWORKS)]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_the_free_gives_back_what_the_failed_cell_held(framework):
    r = run(framework, "free_after_oom.py", framework)
    assert r["recognised"], r["error"]  # a real out-of-memory error of this framework, reported
    assert r["weakref"] is WEAK[framework]
    if r["weakref"]:
        assert r["alive_after_cell"], "the traceback keeps the failed call's tensor alive"
        assert not r["alive_after_free"]
    # The tensor's pages were resident after the cell, and went back to the system.
    assert r["before"] - r["baseline"] >= 0.8 * r["size"]
    assert r["before"] - r["after"] >= 0.8 * r["size"], (r["before"], r["after"])
    assert r["result"]["rss_freed"] >= 0.8 * r["size"]
    assert r["global_untouched"]
    said = r["said"]
    assert "frames of the failed cell's traceback" in said and "gave back" in said
    if framework == "mxnet":
        assert "mxnet.cpu().empty_cache()" in r["result"]["released"]
    if framework == "megengine":
        assert "megengine.coalesce_free_memory()" in r["result"]["released"]
    if framework == "jax":
        assert any(line.startswith("JAX: not asked") for line in r["result"]["not_asked"])
    assert not r["result"]["problems"]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_what_holds_memory_names_each_variable_with_its_size_and_counts_shared_storage_once(framework):
    r = run(framework, "holders_real.py", framework)
    rows = {row["name"]: row for row in r["rows"]}
    assert [row["name"] for row in r["rows"]][:3] == ["c", "b", "a"]  # largest first
    for name, size in (("a", 4 * MiB), ("b", 8 * MiB), ("c", 12 * MiB)):
        assert rows[name]["devices"] == {"host": size}, rows[name]
    assert rows["view"]["bytes"] == 0 and rows["view"]["shared"] == 8 * MiB and rows["view"]["shares_with"] == ["b"]
    assert rows["kept"]["bytes"] == 4000
    parameters = (1024 * 256 + 256) * 4
    if framework != "jax":  # JAX has no module objects of its own
        buffer = 4000 if framework == "torch" else 0
        assert rows["model"]["bytes"] == parameters + buffer, rows["model"]
        assert rows["model"]["parameters"] == 2 and rows["model"]["buffers"] == (1 if framework == "torch" else 0)
        if framework == "torch":
            assert "model  1 MiB  Linear (torch): 2 parameters, 1 buffer  [host 1 MiB]" in r["shown"], r["shown"]
    total = 24 * MiB + 4000 + (parameters + (4000 if framework == "torch" else 0) if framework != "jax" else 0)
    assert r["totals"] == {"host": total}
    assert not r["skipped"] and not r["left_out"] and not r["closed"]  # everything looked at, and into
    if framework != "jax":  # a user's module overriding parameters() and its look-ups: read, never asked
        assert r["counting"]["bytes"] == (16 * 16 + 16) * 4 and r["counting"]["parameters"] == 2, r["counting"]
        assert set(r["counting_calls"].values()) == {0}, r["counting_calls"]


# The simulated scenario of free_simulated.py: the kernel climbs 1 GiB every 50 ms, from 1 GiB up to 9 GiB.
CLIMBING = {"name": "climbing", "step_seconds": 0.05, "devices": [{
    "name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "kernel": {"start": "1GB", "step": "1GB", "max": "9GB"}}]}


@pytest.mark.parametrize(("framework", "call", "gives_back"), [
    ("mxnet", "mxnet.cpu().empty_cache()", False),  # the host's pool: no GPU memory comes back
    ("megengine", "megengine.coalesce_free_memory()", True),  # its device allocator
])
def test_a_simulated_gpu_gives_back_only_when_a_gpu_allocator_was_asked(framework, call, gives_back, tmp_path):
    scenario = tmp_path / "climbing.json"
    scenario.write_text(json.dumps(CLIMBING))
    r = run(framework, "free_simulated.py", framework, str(scenario))
    assert r["climbed"] and r["climbed"][0] >= 4 << 30, r  # the kernel held more than its start before the free
    assert call in r["released"] and not r["problems"], r  # on MXNet's CPU wheel, no GPU pool is asked
    (device, before), = r["before"].items()
    assert "simulated" in device
    after = r["after"][device]
    if gives_back:
        assert after <= 1 << 30 < before, (before, after)  # back to what its live objects hold: the start
    else:
        assert after >= before, (before, after)  # still climbing: nothing was given back
