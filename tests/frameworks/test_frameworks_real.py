"""The warnings tell the truth: each real framework, in its own venv, runs a scenario in a real IPython shell.

Each scenario is a fresh process (import order is the whole point), run by tests/framework_venvs.py.
"""

from __future__ import annotations

from framework_venvs import run

# Started ahead, two at a time, while the tests run (tests/frameworks/conftest.py).
SCENARIOS = [("megengine", "megengine_before_import.py"), ("megengine", "megengine_raw_size.py"),
             ("megengine", "megengine_after_import.py"), ("megengine", "megengine_imported_before_load.py"),
             ("paddle", "paddle_before_import.py"), ("paddle", "paddle_after_import.py"),
             *(("mxnet", "mxnet_threads.py", scenario)
               for scenario in ("baseline", "before_import", "after_import", "engine_after_import"))]

GiB = 1024**3


# ---- MegEngine 1.13 (Python 3.10) ---------------------------------------------------------------------------------

def test_megengine_reads_values_set_before_import():
    r = run("megengine", "megengine_before_import.py")
    assert set(r["set"]["outcomes"].values()) == {"pending_import"}
    assert r["default_device"] == "cpu0"
    assert r["dtr_eviction_threshold"] == 5 * GiB  # "5GB" was normalised to bytes
    assert r["async_level"] == 0
    assert r["enable_host_compute"] == 0
    assert set(r["status"].values()) == {"effective"}


def test_megengine_reads_raw_5GB_as_5_bytes():
    assert run("megengine", "megengine_raw_size.py")["dtr_eviction_threshold"] == 5


def test_megengine_after_import_warns_truthfully_and_live_changes_really_apply():
    r = run("megengine", "megengine_after_import.py")
    env_only = r["env_only"]
    assert set(env_only["outcomes"].values()) == {"already_read"}
    assert len(env_only["warnings"]) == 2
    assert any("MGE_DEFAULT_DEVICE" in w and "megengine" in w and "not set" in w and "restart" in w
               for w in env_only["warnings"])
    # ...and MegEngine indeed did not change:
    assert r["after_env_only"] == {"default_device": "xpux", "dtr_eviction_threshold": 0}
    assert r["no_live_api"]["outcomes"] == {"MEGENGINE_ASYNC_QUEUE_SIZE": "already_read"}
    assert r["no_live_api"]["warnings"]
    # live changes, read back from MegEngine's C++ options, not from our cache:
    assert set(r["live"]["outcomes"].values()) == {"applied_live"} and not r["live"]["warnings"]
    assert r["after_live"] == {"default_device": "cpu0", "dtr_eviction_threshold": 3 * GiB,
                               "dtr_evictee_minimum_size": 2 * 1024**2, "async_level": 1}
    assert r["live"]["effective"]["MEGENGINE_DTR_EVICTION_THRESHOLD"] == str(3 * GiB)


def test_megengine_imported_before_loading_is_said_honestly():
    r = run("megengine", "megengine_imported_before_load.py")
    assert r["set"]["outcomes"] == {"MGE_DEFAULT_DEVICE": "already_read"}
    assert "imported before mgenv_jupyter was loaded" in r["set"]["warnings"][0]
    assert r["default_device"] == "xpux"


# ---- Paddle 3.3 ----------------------------------------------------------------------------------------------------

def test_paddle_reads_values_set_before_import():
    r = run("paddle", "paddle_before_import.py")
    assert set(r["set"]["outcomes"].values()) == {"pending_import"}
    assert r["flags"] == {
        "FLAGS_allocator_strategy": "naive_best_fit",
        "FLAGS_fraction_of_gpu_memory_to_use": 0.5,
        "FLAGS_initial_cpu_memory_in_mb": 1024,
        "FLAGS_eager_delete_tensor_gb": 1.5,
        "FLAGS_init_allocated_mem": True,
    }


def test_paddle_after_import_warns_truthfully_and_set_flags_applies():
    r = run("paddle", "paddle_after_import.py")
    assert set(r["env_only"]["outcomes"].values()) == {"already_read"}
    assert any("paddle" in w and "paddle.set_flags" in w for w in r["env_only"]["warnings"])
    assert r["after_env_only"] == {"FLAGS_eager_delete_tensor_gb": 0.0, "FLAGS_initial_cpu_memory_in_mb": 500}
    assert r["live"]["outcomes"] == {
        "FLAGS_fraction_of_gpu_memory_to_use": "may_be_latched",  # matters until the first GPU allocation
        "FLAGS_eager_delete_tensor_gb": "applied_live",
        "FLAGS_init_allocated_mem": "applied_live",
    }
    assert r["after_live"] == {"FLAGS_fraction_of_gpu_memory_to_use": 0.3, "FLAGS_eager_delete_tensor_gb": 4.0,
                               "FLAGS_init_allocated_mem": True}
    latched = r["latched"]
    assert latched["outcomes"] == {"FLAGS_allocator_strategy": "may_be_latched"}
    assert "first tensor allocation" in latched["messages"]["FLAGS_allocator_strategy"]
    # the call actually made, with the value set (issue 11), not the docs' example 'naive_best_fit'
    assert "applied through paddle.set_flags({'FLAGS_allocator_strategy': 'auto_growth'})" in \
        latched["messages"]["FLAGS_allocator_strategy"]
    assert "naive_best_fit" not in latched["messages"]["FLAGS_allocator_strategy"]


# ---- MXNet 1.9.1 ---------------------------------------------------------------------------------------------------

def test_mxnet_worker_threads_read_at_import_only():
    baseline = run("mxnet", "mxnet_threads.py", "baseline")["threads"]
    before = run("mxnet", "mxnet_threads.py", "before_import")
    after = run("mxnet", "mxnet_threads.py", "after_import")
    assert before["set"]["outcomes"] == {"MXNET_CPU_WORKER_NTHREADS": "pending_import"}
    assert before["threads"] == baseline + 5  # 6 CPU workers instead of the default 1
    assert after["set"]["outcomes"] == {"MXNET_CPU_WORKER_NTHREADS": "already_read"}
    assert "mxnet" in after["set"]["warnings"][0]
    assert after["threads"] == baseline  # MXNet indeed ignored it


def test_mxnet_engine_type_is_read_at_first_op_not_import():
    baseline = run("mxnet", "mxnet_threads.py", "baseline")["threads"]
    r = run("mxnet", "mxnet_threads.py", "engine_after_import")
    assert r["set"]["outcomes"] == {"MXNET_ENGINE_TYPE": "may_be_latched"}
    assert not r["set"]["warnings"]
    assert r["threads"] < baseline  # no op had run yet, so NaiveEngine (no worker threads) was used
    assert r["set_after_first_op"]["outcomes"] == {"MXNET_ENGINE_TYPE": "may_be_latched"}
    assert r["threads_after"] == r["threads"]  # after the first op the engine is latched
