"""The warnings tell the truth for PyTorch 2.13, JAX 0.10 and TensorFlow 2.21: each CPU wheel in its own venv runs a
scenario in a real IPython shell (a fresh process each: import order is the point), and each test observes the
framework's own behaviour (device counts, dtypes, thread counts, what torch's own parser says), not our status alone.
"""

from __future__ import annotations

import functools

from mgenv_jupyter.catalog import catalog

from framework_venvs import run

# Started ahead, two at a time, while the tests run (tests/frameworks/conftest.py).
SCENARIOS = [("jax", "jax_xla_flags.py", "before_first_op"), ("jax", "jax_xla_flags.py", "after_first_op"),
             ("jax", "jax_x64.py", "before_import"), ("jax", "jax_x64.py", "after_import"),
             ("torch", "torch_threads.py", "before_import"), ("torch", "torch_threads.py", "after_import"),
             ("torch", "torch_threads.py", "above_cores"), ("torch", "torch_inductor.py"),
             ("torch", "torch_allocator.py"), ("torch", "widgets_torch.py", "before_import"),
             ("torch", "widgets_torch.py", "after_import"), ("tensorflow", "tensorflow_threads.py", "baseline"),
             ("tensorflow", "tensorflow_threads.py", "before_first_op"),
             ("tensorflow", "tensorflow_threads.py", "after_first_op"),
             ("tensorflow", "tensorflow_threads.py", "before_import"), ("torch", "torch_warning.py"),
             ("torch", "torch_alloc_conf_names.py")]


@functools.cache  # a fresh process each; the default is asked by several tests
def torch_threads(scenario: str) -> dict:
    return run("torch", "torch_threads.py", scenario)


def torch_default_threads() -> int:
    """The threads torch uses when nothing is set: MKL's count of the cores (physical ones: os.cpu_count() counts two
    per core where cores run two threads), asked of torch in a fresh process."""
    return int(torch_threads("after_import")["baseline"])

# ---- JAX 0.10 -------------------------------------------------------------------------------------------------------


def test_jax_reads_xla_flags_at_the_first_operation_not_at_import():
    r = run("jax", "jax_xla_flags.py", "before_first_op")
    assert r["outcomes"] == {"XLA_FLAGS": "pending_first_use"} and not r["warnings"] and not r["may_be_latched"]
    assert r["devices"] == 4  # set after `import jax`, before the first operation: JAX read it
    assert r["status_now"] == "effective"  # ...and after that first operation it is said to be read with this value


def test_jax_ignores_xla_flags_after_the_first_operation_and_the_warning_says_so():
    r = run("jax", "jax_xla_flags.py", "after_first_op")
    assert r["outcomes"] == {"XLA_FLAGS": "already_read"} and r["devices"] == 1
    assert len(r["warnings"]) == 1 and "at the backend's initialisation" in r["warnings"][0]
    assert "change it live" not in r["warnings"][0]  # nothing live can change it: only a restart


def test_jax_enable_x64_before_import_gives_float64():
    r = run("jax", "jax_x64.py", "before_import")
    assert r["outcomes"] == {"JAX_ENABLE_X64": "pending_import"}
    assert r["dtype"] == "float64" and r["config"] is True


def test_jax_enable_x64_after_import_applies_live_through_jax_config():
    r = run("jax", "jax_x64.py", "after_import")
    assert r["outcomes"] == {"JAX_ENABLE_X64": "applied_live"} and r["effective"] == {"JAX_ENABLE_X64": "True"}
    assert r["dtype"] == "float64" and not r["warnings"]


# ---- PyTorch 2.13 ---------------------------------------------------------------------------------------------------


def test_torch_reads_omp_num_threads_at_import():
    r = torch_threads("before_import")
    assert r["set"]["outcomes"] == {"OMP_NUM_THREADS": "pending_import"}
    assert r["threads"] == 1 and torch_default_threads() > 1  # the default would have been the number of cores


def test_torch_caps_omp_num_threads_at_the_cores_at_import_as_its_caveat_says():
    r = torch_threads("above_cores")
    assert r["set"]["outcomes"] == {"OMP_NUM_THREADS": "pending_import"}
    # torch asked: with MKL (x86 wheels) the cap is MKL's count of the cores, torch's default; without it, none
    assert r["threads"] == (torch_default_threads() if r["mkl"] else r["asked"]) and r["live"] == r["asked"]
    [caveat] = [c.get("en") for c in catalog().get("OMP_NUM_THREADS").caveats if "MKL_DYNAMIC" in c.get("en")]
    assert "OMP_NUM_THREADS=3 gives torch.get_num_threads() == 2" in caveat


def test_torch_omp_num_threads_after_import_warns_env_only_and_applies_live():
    r = torch_threads("after_import")
    assert r["env_only"]["outcomes"] == {"OMP_NUM_THREADS": "already_read"}
    assert "torch.set_num_threads(1)" in r["env_only"]["warnings"][0]
    assert r["after_env_only"] == r["baseline"] != 1  # torch indeed ignored the environment
    assert r["live"]["outcomes"] == {"OMP_NUM_THREADS": "applied_live"} and r["threads"] == 1


def test_torch_inductor_variables_are_read_when_its_config_module_loads_then_apply_live():
    r = run("torch", "torch_inductor.py")
    assert r["loaded_with_torch"] is False  # `import torch` does not read them
    assert set(r["before"]["outcomes"].values()) == {"pending_import"}
    assert "torch._inductor.config" in r["before"]["messages"]["TORCHINDUCTOR_MAX_AUTOTUNE"]
    assert r["config_before"] == {"max_autotune": True, "fx_graph_cache": False}
    assert r["after"]["outcomes"] == {"TORCHINDUCTOR_MAX_AUTOTUNE": "applied_live"}
    assert r["config_after"] == {"max_autotune": False}


def test_the_allocator_config_validator_agrees_with_torchs_own_parser():
    r = run("torch", "torch_allocator.py")
    assert r["counts"]["strings"] > 700 and r["counts"]["we_accept"] > 80
    assert r["torch_refused_we_accepted"] == []  # nothing torch refuses gets through
    assert r["we_accepted_torch_refused_normalised"] == []  # what we write, torch accepts
    # Where torch accepts and we refuse, torch would misread the number (stoull: -1 wraps, 0.5 reads as 0) or the
    # string starts with a comma:
    assert all(any(bad in text for bad in ("-1", ".", "e-3", ",expandable")) for text in r["stricter"]), r["stricter"]


def test_the_allocator_config_is_read_at_its_first_use_and_applies_live():
    r = run("torch", "torch_allocator.py")
    assert r["moment"]["outcomes"] == {"PYTORCH_ALLOC_CONF": "pending_first_use"}
    assert r["read_then"] == "max_split_size_mb:256"  # set after `import torch`, still read
    assert r["live"]["outcomes"] == {"PYTORCH_ALLOC_CONF": "applied_live"}
    assert r["settings_after_live"] == "expandable_segments:True,max_split_size_mb:128"  # normalised, as torch has it


def test_allocator_widget_edit_is_what_torchs_allocator_holds():
    before = run("torch", "widgets_torch.py", "before_import")
    assert before["set"]["outcomes"] == {"PYTORCH_ALLOC_CONF": "pending_first_use"}
    assert before["settings"] == "expandable_segments:True,max_split_size_mb:128"  # torch read the widget's value
    after = run("torch", "widgets_torch.py", "after_import")
    assert after["set"]["outcomes"] == {"PYTORCH_ALLOC_CONF": "applied_live"}
    assert after["settings"] == "expandable_segments:True,max_split_size_mb:128"
    assert after["after_envset"] == {"gc": 0.5, "set": ["garbage_collection_threshold"]}
    assert "garbage_collection_threshold:0.5" in after["settings_after_envset"]


# ---- TensorFlow 2.21 ------------------------------------------------------------------------------------------------


def test_tensorflow_intra_op_threads_set_before_the_first_operation_are_used():
    baseline = run("tensorflow", "tensorflow_threads.py", "baseline")
    r = run("tensorflow", "tensorflow_threads.py", "before_first_op")
    assert r["set"]["outcomes"] == {"TF_NUM_INTRAOP_THREADS": "applied_live"}
    assert r["reported"] == r["asked"]  # what tf.config.threading reports
    assert r["new_threads"] > baseline["new_threads"]  # and the pool really has more threads


def test_tensorflow_intra_op_threads_after_the_first_operation_warn_already_read():
    r = run("tensorflow", "tensorflow_threads.py", "after_first_op")
    assert r["set"]["outcomes"] == {"TF_NUM_INTRAOP_THREADS": "already_read"}
    assert len(r["set"]["warnings"]) == 1 and "first TensorFlow operation" in r["set"]["warnings"][0]
    assert r["reported"] == r["reported_before"] == 0 and r["new_threads"] == 0  # nothing changed


def test_tensorflow_reads_the_environment_at_the_first_operation_when_set_before_import():
    baseline = run("tensorflow", "tensorflow_threads.py", "baseline")
    r = run("tensorflow", "tensorflow_threads.py", "before_import")
    assert r["set"]["outcomes"] == {"TF_NUM_INTRAOP_THREADS": "pending_first_use"}
    assert r["reported"] == 0  # tf.config.threading does not report the variable...
    assert r["new_threads"] > baseline["new_threads"]  # ...but TensorFlow used it


def test_the_already_read_warning_points_at_the_users_line_and_its_way_out_works_with_real_torch():
    """Issue 29, points 1 and 2: `import torch`, then `%envset TORCH_SHOW_CPP_STACKTRACES=1`."""
    r = run("torch", "torch_warning.py")
    shown = r["shown"]
    heading, message = shown.split("\n", 1)
    # The user's own line, as they typed it, in the cell IPython numbered; then what happened and the way out.
    assert heading.startswith("AlreadyReadWarning — cell [")
    assert heading.endswith(", line 2: %envset TORCH_SHOW_CPP_STACKTRACES=1")
    assert message.startswith("torch already read TORCH_SHOW_CPP_STACKTRACES") and "\nWay out: " in message
    assert "mgenv_jupyter/" not in shown and "self._change" not in shown and "_session.py" not in shown
    # A real warning: a catcher records it, at the user's line; a filter silences it.
    assert r["recorded"] == [{"category": "AlreadyReadWarning", "is_already_read": True,
                              "filename": r["recorded"][0]["filename"], "lineno": 1}]
    assert r["recorded"][0]["filename"].startswith("<ipython-input-")
    assert r["silenced"] == ""
    # The way out, run as written in a new process before `import torch`: torch's errors carry the C++ stack.
    assert r["advice"] == "%envset TORCH_SHOW_CPP_STACKTRACES=1"
    assert r["had_stack_before"] is False
    assert r["new_kernel"] == ["C++ STACK True"] and not r["new_kernel_warned"]


def test_torch_reads_the_hip_name_of_the_allocator_config_on_every_build_between_the_other_two():
    """The catalog's PYTORCH_HIP_ALLOC_CONF (issue 29, point 13): read by the CPU wheel too, and the pairs the catalog
    refuses together are the ones where torch silently drops one."""
    r = run("torch", "torch_alloc_conf_names.py")
    assert r == {"PYTORCH_CUDA_ALLOC_CONF": "PYTORCH_CUDA_ALLOC_CONF",
                 "PYTORCH_HIP_ALLOC_CONF": "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_ALLOC_CONF": "PYTORCH_ALLOC_CONF",
                 "PYTORCH_CUDA_ALLOC_CONF+PYTORCH_HIP_ALLOC_CONF": "PYTORCH_CUDA_ALLOC_CONF",
                 "PYTORCH_CUDA_ALLOC_CONF+PYTORCH_ALLOC_CONF": "PYTORCH_CUDA_ALLOC_CONF",
                 "PYTORCH_HIP_ALLOC_CONF+PYTORCH_ALLOC_CONF": "PYTORCH_HIP_ALLOC_CONF"}
    from mgenv_jupyter.catalog import catalog

    refused_together = {frozenset(conflict.names) for conflict in catalog().conflicts}
    assert {frozenset(pair.split("+")) for pair in r if "+" in pair} <= refused_together
