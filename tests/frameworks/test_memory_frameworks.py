"""Framework allocator sources against the real CPU wheels (each in its own venv, a fresh process): sampling never
imports a framework, and once imported each says truthfully what it exposes (tests/framework_checks/memory_sources.py).
The GPU code paths, through stand-in modules, are in tests/memory/test_framework_sources.py."""

from __future__ import annotations

import functools

import pytest

from framework_venvs import run

GiB = 1024**3
FRAMEWORKS = ["megengine", "paddle", "mxnet", "torch", "jax", "tensorflow"]
# Started ahead, two at a time, while the tests run (tests/frameworks/conftest.py).
SCENARIOS = [(framework, "memory_sources.py", framework) for framework in FRAMEWORKS]


@functools.cache  # one fresh process per framework serves all its tests
def run_check(framework: str) -> dict:
    return run(framework, "memory_sources.py", framework)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_sampling_never_imports_the_framework(framework):
    before = run_check(framework)["before"]
    assert before == {"samples": 0, "state": f"{framework} is not imported", "imported_by_sampling": False}


def test_megengine_cpu_wheel_is_reported_truthfully():
    r = run_check("megengine")
    # MegEngine's CPU device answers 0 to every allocator query, whatever is allocated: no fake zero line.
    assert r["after"] == {"samples": [], "state": "megengine sees no GPU; its CPU device keeps no allocator "
                                                  "statistics (get_allocated_memory('cpu0') is always 0)"}
    [dtr] = r["overlays"]  # set live with megengine.dtr.eviction_threshold = "3GB", read back from the C++ option
    assert dtr["kind"] == "dtr_threshold" and dtr["bytes"] == 3 * GiB and "live option" in dtr["note"]
    assert "auto drop is off" in dtr["note"]
    assert r["default_states"]["host"] == "ok" and "host process" in r["columns"]


def test_paddle_cpu_wheel_is_reported_in_its_own_words():
    r = run_check("paddle")
    assert r["after"]["samples"] == []
    assert r["after"]["state"].startswith("paddle: The API paddle.device.cuda.memory_allocated is not supported in "
                                          "CPU-only PaddlePaddle")
    [cap] = r["overlays"]  # FLAGS_allocator_strategy=naive_best_fit at import; fraction from paddle.get_flags
    assert cap["kind"] == "paddle_cap" and cap["device"] == "gpu0"
    assert cap["bytes"] == int(0.9200000166893005 * 16 * GiB)


def test_mxnet_cpu_wheel_is_reported_truthfully():
    r = run_check("mxnet")
    assert r["after"] == {"samples": [], "state": "mxnet sees no GPU (this MXNet build has no CUDA)"}
    assert r["overlays"] == []


@pytest.mark.parametrize(("framework", "after_import", "after_first_operation"), [
    ("torch", "torch has not initialised CUDA in this kernel yet", "torch has not initialised CUDA in this kernel yet"),
    ("jax", "jax has not started its backends yet (its first operation starts them)",
     "jax's cpu backend keeps no memory statistics (Device.memory_stats() is None)"),
    ("tensorflow", "tensorflow has not initialised its runtime yet (its first operation does)",
     "tensorflow sees no GPU"),
])
def test_cpu_wheels_say_why_there_is_no_series_and_sampling_starts_nothing(framework, after_import,
                                                                          after_first_operation):
    r = run_check(framework)
    # Sampled after import, before the first operation: neither CUDA, nor JAX's backends, nor TensorFlow's context
    # was started by it (that would fix XLA_FLAGS, the thread pools, the allocator settings).
    assert r["after"] == {"samples": [], "state": after_import} and r["started_by_sampling"] is False
    assert r["after_first_operation"]["samples"] == [] and r["after_first_operation"]["state"] == after_first_operation
    assert r["after_first_operation"]["started"] is (framework != "torch")  # a CPU torch never initialises CUDA
    assert r["default_states"][framework] == after_first_operation and r["default_states"]["host"] == "ok"
