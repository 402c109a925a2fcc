"""ConfigWidget(framework="torch" | "jax" | "tensorflow") with the real CPU wheels (tests/framework_checks/
config_widget.py): rows made from the catalog alone, one per variable with the editor its type calls for; a user's
edits applied before import are what the framework then uses, and afterwards the widget applies live where the
framework allows it and says "already read" where it does not."""

from __future__ import annotations

import functools

from mgenv_jupyter.catalog import catalog

from framework_venvs import run

# Started ahead, two at a time, while the tests run (tests/frameworks/conftest.py).
SCENARIOS = [(scenario.removesuffix("_baseline"), "config_widget.py", scenario)
             for scenario in ("torch", "jax", "tensorflow", "tensorflow_baseline")]


@functools.cache
def check(scenario: str) -> dict:
    return run(scenario.removesuffix("_baseline"), "config_widget.py", scenario)


def test_every_catalog_variable_of_each_framework_is_a_row():
    for framework in ("torch", "jax", "tensorflow"):
        r = check(framework)
        assert r["rows"] == sorted(e.name for e in catalog().for_framework(framework))
        assert set(r["statuses_before_import"].values()) == {"unset"}
    assert check("jax")["editors"]["XLA_PYTHON_CLIENT_MEM_FRACTION"] == "FractionEditor"  # a slider, 0 to 1
    assert check("tensorflow")["editors"]["TF_NUM_INTRAOP_THREADS"] == "NumberEditor"


def test_torch_rows_reach_torch_before_import_and_apply_live_after():
    r = check("torch")
    assert r["before_import"]["outcomes"] == {"PYTORCH_ALLOC_CONF": "pending_first_use",
                                              "OMP_NUM_THREADS": "pending_import"}
    assert r["threads_at_import"] == 1
    # edited key by key (expandable_segments on, max_split_size_mb 128): torch's allocator holds the joined string
    assert r["allocator_at_first_use"] == "expandable_segments:True,max_split_size_mb:128"
    assert r["after_import"]["outcomes"] == {"OMP_NUM_THREADS": "applied_live"} and r["threads_after"] == 2
    assert r["badges"] == {"PYTORCH_ALLOC_CONF": "effective", "OMP_NUM_THREADS": "applied live"}


def test_jax_rows_before_import_then_live_or_already_read_after_the_first_operation():
    r = check("jax")
    assert r["before_import"]["outcomes"] == {"JAX_ENABLE_X64": "pending_import"}
    assert r["dtype_at_import"] == "float64"
    assert r["after_first_operation"]["outcomes"] == {"JAX_ENABLE_X64": "applied_live", "XLA_FLAGS": "already_read"}
    assert r["dtype_after"] == "float32" and r["devices_after"] == 1  # x64 off live; the flags came too late


def test_tensorflow_intra_op_row_is_used_before_the_first_operation_and_already_read_after():
    r, baseline = check("tensorflow"), check("tensorflow_baseline")
    assert r["before_import"]["outcomes"] == {"TF_NUM_INTRAOP_THREADS": "pending_first_use"}
    assert r["new_threads"] > baseline["new_threads"]  # CPUs + 5 intra-op threads: more than by default
    assert r["after_first_operation"]["outcomes"] == {"TF_NUM_INTRAOP_THREADS": "already_read"}
    assert r["new_threads_after"] == r["new_threads"] and r["badges"] == {
        "TF_NUM_INTRAOP_THREADS": "already read, restart needed"}
