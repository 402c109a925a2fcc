"""The widgets against the real frameworks, each in its own venv and a fresh process (tests/framework_venvs.py).

What the framework uses is read back from the framework itself: MegEngine's interpreter options, `paddle.get_flags`.
"""

from __future__ import annotations

from framework_venvs import run

# Started ahead, two at a time, while the tests run (tests/frameworks/conftest.py).
SCENARIOS = [(framework, f"widgets_{framework}.py", scenario)
             for framework in ("megengine", "paddle") for scenario in ("before_import", "after_import")]

GiB, MiB = 1024**3, 1024**2
DTR_ON = {"enable_drop": 1, "enable_dtr_auto_drop": 1, "record_computing_path": 1}
DTR_OFF = {"enable_drop": 0, "enable_dtr_auto_drop": 0, "record_computing_path": 0}


def test_dtr_widget_before_import_leaves_bytes_for_megengine_to_read():
    r = run("megengine", "widgets_megengine.py", "before_import")
    assert set(r["outcomes"].values()) == {"pending_import"}
    assert r["options"] == {"dtr_eviction_threshold": 5 * GiB, "dtr_evictee_minimum_size": 2 * MiB,
                            "enable_dtr_sqrt_sampling": 1, **DTR_ON}
    assert "31%" in r["share"]  # 5 GB of a 16 GB GPU
    assert set(r["statuses"].values()) == {"effective"}
    assert "5 GiB (5368709120 bytes)" in r["effect"]


def test_dtr_widget_after_import_changes_megengine_live():
    r = run("megengine", "widgets_megengine.py", "after_import")
    assert r["options_before"]["dtr_eviction_threshold"] == 0 and r["options_before"]["enable_drop"] == 0
    assert set(r["outcomes"].values()) == {"applied_live"}
    assert r["options"] == {"dtr_eviction_threshold": 3 * GiB, "dtr_evictee_minimum_size": 4 * MiB,
                            "enable_dtr_sqrt_sampling": 1, **DTR_ON}
    assert r["effective"]["MEGENGINE_DTR_EVICTION_THRESHOLD"] == str(3 * GiB)  # what MegEngine reported back
    assert "3 GiB (3221225472 bytes)" in r["effect"]
    assert {k: r["options_disabled"][k] for k in DTR_OFF} == DTR_OFF  # unticking is megengine.dtr.disable()...
    assert r["candidates_cleared"] == 1 and "megengine.dtr.disable()" in r["disable_message"]  # ...candidates too
    assert r["widget_after_envset"] == [1.0, "GiB"]  # %envset in a later cell reaches the widget...
    assert r["options_after_envset"]["dtr_eviction_threshold"] == GiB  # ...and MegEngine


def test_allocator_widget_before_import_leaves_flags_for_paddle_to_read():
    r = run("paddle", "widgets_paddle.py", "before_import")
    assert set(r["outcomes"].values()) == {"pending_import"}
    assert r["flags"] == {"FLAGS_allocator_strategy": "naive_best_fit", "FLAGS_fraction_of_gpu_memory_to_use": 0.4,
                          "FLAGS_initial_gpu_memory_in_mb": 512, "FLAGS_reallocate_gpu_memory_in_mb": 1024}
    assert set(r["statuses"].values()) == {"effective"}


def test_allocator_widget_after_import_changes_paddle_flags_and_shows_latching():
    r = run("paddle", "widgets_paddle.py", "after_import")
    assert r["flags_before"]["FLAGS_allocator_strategy"] == "auto_growth"
    assert not r["naive_marked_before_apply"]  # naive_best_fit chosen: the pool rows are active
    assert r["flags"] == {"FLAGS_allocator_strategy": "naive_best_fit", "FLAGS_fraction_of_gpu_memory_to_use": 0.3,
                          "FLAGS_initial_gpu_memory_in_mb": 256, "FLAGS_reallocate_gpu_memory_in_mb": 2048}
    assert r["outcomes"]["FLAGS_allocator_strategy"] == "may_be_latched"
    assert r["outcomes"]["FLAGS_reallocate_gpu_memory_in_mb"] == "applied_live"
    assert "may already be latched" in r["row_status"] and "first tensor allocation" in r["row_status"]
    assert r["slider_after_envset"] == 0.6 and r["flags_after_envset"] == {"FLAGS_fraction_of_gpu_memory_to_use": 0.6}
