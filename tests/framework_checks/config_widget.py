"""ConfigWidget(framework=...) for PyTorch, JAX and TensorFlow with the real framework, its rows made from the catalog
alone: a user's edits applied before import reach the framework when it reads them, and after its reading moment the
widget applies live where the framework allows it and says "already read" where it does not.
argv[1]: torch | jax | tensorflow | tensorflow_baseline (no edit: the threads TensorFlow starts by default)."""

import os
import sys
import warnings

from mgenv_jupyter import ConfigWidget

from _shell import emit, shell

framework = sys.argv[1].removesuffix("_baseline")
ip = shell()
widget = ConfigWidget(framework=framework)
result: dict = {"rows": sorted(widget.rows), "editors": {n: type(r.editor).__name__ for n, r in widget.rows.items()},
                "statuses_before_import": {n: widget.session.state(n).status.value for n in widget.rows}}


def apply() -> dict:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = widget.apply()
    return {"outcomes": {c.name: c.outcome.value for c in report}, "effective": {c.name: c.effective for c in report},
            "warnings": [f"{w.category.__name__}: {w.message}" for w in caught]}


rows = widget.rows
if framework == "torch":
    rows["OMP_NUM_THREADS"].editor.text.value = "1"
    allocator = rows["PYTORCH_ALLOC_CONF"].editor  # key by key, as in every front end
    allocator.controls["expandable_segments"].value = True
    allocator.controls["max_split_size_mb"].value = 128
    result["before_import"] = apply()
    import torch

    result["threads_at_import"] = torch.get_num_threads()
    result["allocator_at_first_use"] = torch._C._accelerator_getAllocatorSettings()
    rows["OMP_NUM_THREADS"].editor.text.value = "2"
    result["after_import"] = apply()
    result["threads_after"] = torch.get_num_threads()
elif framework == "jax":
    rows["JAX_ENABLE_X64"].editor.checkbox.value = True
    result["before_import"] = apply()
    import jax

    result["dtype_at_import"] = str(jax.numpy.ones(1).dtype)  # the first operation: the backends start
    rows["JAX_ENABLE_X64"].editor.checkbox.value = False
    rows["XLA_FLAGS"].editor.text.value = "--xla_force_host_platform_device_count=4"
    result["after_first_operation"] = apply()
    result["dtype_after"] = str(jax.numpy.ones(1).dtype)
    result["devices_after"] = len(jax.devices())
else:
    if not sys.argv[1].endswith("_baseline"):
        # more than TensorFlow's default pool, which has at most one thread per CPU, on any machine
        rows["TF_NUM_INTRAOP_THREADS"].editor.box.value = (os.cpu_count() or 1) + 5
        result["before_import"] = apply()
    import tensorflow as tf

    baseline = len(os.listdir("/proc/self/task"))
    (tf.ones(2) + 1).numpy()
    result["new_threads"] = len(os.listdir("/proc/self/task")) - baseline  # tf.config.threading reports only its own
    rows["TF_NUM_INTRAOP_THREADS"].editor.box.value = 5
    result["after_first_operation"] = apply()
    (tf.ones(2) + 1).numpy()
    result["new_threads_after"] = len(os.listdir("/proc/self/task")) - baseline
ip.run_cell("pass")  # a later cell: the rows refresh
edited_first = result.get("before_import", {}).get("outcomes", {})
result["badges"] = {name: row.badge.value for name, row in rows.items() if name in edited_first}
widget.close()
emit(result)
