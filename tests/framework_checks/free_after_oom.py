"""Giving back what a failed cell holds, with a real framework in a real IPython shell: a cell's function allocates a
large tensor (its pages touched, so they are resident) and then asks the framework for far more than the machine has,
which raises the framework's real out-of-memory error; the tensor stays alive through the traceback. Then `%memfree`.

    python free_after_oom.py FRAMEWORK

Reports whether the tensor is still alive after the cell and after the free (a weak reference, where the framework's
tensors take one; `weakref` says whether they do), the process's RSS before and after, the size, whether a global
defined before is untouched, and what the free said. The address space is capped (RLIMIT_AS) so the huge request
fails at once, as in oom_host.py.
"""

import gc
import resource
import sys

framework = sys.argv[1]
cap = (6 if framework == "mxnet" else 16) << 30
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

import psutil  # noqa: E402

from _shell import emit, shell  # noqa: E402

SIZE = 512 << 20  # bytes of the tensor the failed call holds

SETUP = {
    "torch": "import torch",
    "jax": "import jax, jax.numpy as jnp",
    "paddle": "import paddle",
    "megengine": "import megengine, megengine.functional as F",
    "mxnet": "import mxnet as mx",
}
# A tensor of SIZE bytes, every page written; then the allocation that fails (oom_host.py's requests).
BIG = {
    "torch": f"torch.ones({SIZE}, dtype=torch.uint8)",
    "jax": f"jnp.ones(({SIZE},), dtype='uint8').block_until_ready()",
    "paddle": f"paddle.ones([{SIZE}], dtype='uint8')",
    "megengine": f"F.ones(({SIZE},), dtype='uint8')",
    "mxnet": f"mx.nd.ones(({SIZE},), dtype='uint8')",
}
HUGE = {
    "torch": "torch.empty(1 << 50, dtype=torch.uint8)",
    "jax": "jnp.zeros((1 << 50,), dtype='uint8').block_until_ready()",
    "paddle": "paddle.empty([1 << 50], dtype='uint8')",
    "megengine": "F.zeros((1 << 25, 1 << 25), dtype='uint8').numpy()",
    "mxnet": "mx.nd.zeros(((1 << 31) - 2,), dtype='float64').wait_to_read()",
}
SYNC = {  # make sure the tensor's memory is really written before the failure
    "torch": "big.sum()",
    "jax": "big.block_until_ready()",
    "paddle": "big.sum()",
    "megengine": "big.numpy()",
    "mxnet": "big.wait_to_read()",
}


def rss() -> int:
    return int(psutil.Process().memory_info().rss)


ip = shell()
ip.run_cell(SETUP[framework] + "\nimport weakref\nrefs = []\nuser_global = list(range(10))", store_history=True)
cell = f"""
def step():
    big = {BIG[framework]}
    {SYNC[framework]}
    try:
        refs.append(weakref.ref(big))
    except TypeError:
        pass  # this framework's tensors take no weak reference: RSS tells instead
    return {HUGE[framework]}

out = step()
"""
baseline = rss()
result = ip.run_cell(cell, store_history=True)
error = result.error_in_exec
gc.collect()
refs = ip.user_ns["refs"]
alive_after_cell = bool(refs and refs[0]() is not None)
before = rss()
view = ip.run_line_magic("memfree", "")
after = rss()
import mgenv_jupyter  # noqa: E402

report = mgenv_jupyter.last_oom()
emit({
    "error": f"{type(error).__module__}.{type(error).__qualname__}" if error is not None else None,
    "recognised": report is not None,
    "weakref": bool(refs),
    "alive_after_cell": alive_after_cell,
    "alive_after_free": bool(refs and refs[0]() is not None),
    "size": SIZE,
    "baseline": baseline,
    "before": before,
    "after": after,
    "result": view.result.to_json(),
    "said": repr(view),
    "global_untouched": ip.user_ns.get("user_global") == list(range(10)),
    "holders": repr(ip.run_line_magic("memholders", "")),
})
