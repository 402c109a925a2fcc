"""Allocation sites with a real framework in a real IPython shell: a function defined in one cell allocates two
arrays on two lines; a `%%memtrace` cell allocates a third on its own line and calls the function (and, for PyTorch,
makes a temporary that is freed before the cell ends, so the peak is not the end), with what it wrote to standard
error. With "oom", a cell that keeps an
array runs out of memory (the address space capped first, as oom_host.py does) and the report's sites are returned.

    python memtrace_real.py FRAMEWORK [oom]
"""

import os
import resource
import sys
import tempfile

framework = sys.argv[1]
variant = sys.argv[2] if len(sys.argv) > 2 else ""
if variant == "oom":
    resource.setrlimit(resource.RLIMIT_AS, (16 << 30, 16 << 30))

from _shell import emit, shell  # noqa: E402

MiB = 1 << 20
DEFINE = {
    "jax": "import jax.numpy as jnp\n"
           "def make(n):\n"
           "    x = jnp.ones((n,), dtype='float32')\n"
           "    y = jnp.full((3 * n,), 2.0, dtype='float32')\n"
           "    return x, y\n",
    "torch": "import torch\n"
             "def make(n):\n"
             "    x = torch.ones(n)\n"
             "    y = torch.full((3 * n,), 2.0)\n"
             "    return x, y\n",
}
TRACED = {  # line 1 is the magic's; line 2 ends with a comment, as a user's line may
    "jax": f"%%memtrace\na = jnp.zeros(({2 * MiB},), dtype='float32')  # 8 MiB (float32)\np, q = make({MiB})\n",
    "torch": f"%%memtrace\na = torch.zeros({2 * MiB})  # 8 MiB (float32)\np, q = make({MiB})\n"
             f"tmp = torch.ones({8 * MiB}); del tmp\n",
}
FAILING = {
    "jax": f"kept = make({MiB})\nbig = jnp.zeros((1 << 50,), dtype='uint8').block_until_ready()\n",
    "torch": f"kept = make({MiB})\nbig = torch.empty(1 << 50, dtype=torch.uint8)\n",
}

ip = shell()
defined = ip.run_cell(DEFINE[framework], store_history=True)
assert defined.error_in_exec is None, defined.error_in_exec
if variant == "oom":
    failed = ip.run_cell(FAILING[framework], store_history=True)
    import mgenv_jupyter
    from mgenv_jupyter.presentation.oom import OomView

    report = mgenv_jupyter.last_oom()
    # The report's advice where recording was off, followed literally: turn it on, run the cell again.
    ip.run_line_magic("memtrace", "on")
    again = ip.run_cell(FAILING[framework], store_history=True)
    second = mgenv_jupyter.last_oom()
    emit({"again": {"error": type(again.error_in_exec).__name__, "cell": again.execution_count,
                    "sites": second.sites.to_json() if second is not None and second.sites is not None else None,
                    "record_offer": list(second.record_offer) if second is not None else None},
          "defined": defined.execution_count,"error": type(failed.error_in_exec).__name__, "report": report is not None,
          "sites": report.sites.to_json() if report is not None and report.sites is not None else None,
          "record_offer": list(report.record_offer) if report is not None else None,
          "lines": OomView(report).site_lines() if report is not None else []})
else:
    # What the traced cell writes to the process's standard error (a notebook shows it as a red block), caught at the
    # file descriptor: the profiler's library writes there from C++, past sys.stderr.
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            traced = ip.run_cell(TRACED[framework], store_history=True)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        sink.seek(0)
        stderr = sink.read(4096).decode(errors="replace")
    assert traced.error_in_exec is None, traced.error_in_exec
    view = traced.result
    frame = view.frame()
    # A cell of NumPy's arrays, with the framework loaded: what it recorded of that cell is nothing.
    numpy_cell = ip.run_cell("%%memtrace\nimport numpy as np\nhost = np.zeros(2 << 20)\n", store_history=True)
    emit({"rows": frame.to_dict(orient="records"), "columns": list(frame.columns), "shown": repr(view),
          "stderr": stderr, "numpy_shown": repr(numpy_cell.result),
          "cells": [defined.execution_count, traced.execution_count]})
