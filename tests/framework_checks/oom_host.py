"""A real out-of-memory error on the host: a cell asks the framework for far more memory than the machine has, in a
real IPython shell with mgenv_jupyter loaded. The address space is capped first (RLIMIT_AS) so the allocation fails at
once and nothing is ever committed, whatever the framework does with the request.

    python oom_host.py FRAMEWORK
"""

import resource
import sys

framework = sys.argv[1]
# MXNet refuses tensors of 2^31 elements or more, so its request is 16 GiB: under a 6 GiB cap it still fails at once.
cap = (6 if framework == "mxnet" else 16) << 30
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

from IPython.utils.capture import capture_output  # noqa: E402

from _shell import emit, shell  # noqa: E402

SETUP = {
    "torch": "import torch",
    "jax": "import jax.numpy as jnp",
    "paddle": "import paddle",
    "megengine": "import megengine.functional as F",
    "mxnet": "import mxnet as mx",
}
CELL = {
    "torch": "x = torch.empty(1 << 50, dtype=torch.uint8)",
    "jax": "x = jnp.zeros((1 << 50,), dtype='uint8').block_until_ready()",
    "paddle": "x = paddle.empty([1 << 50], dtype='uint8')",
    "megengine": "x = F.zeros((1 << 25, 1 << 25), dtype='uint8').numpy()",
    "mxnet": "x = mx.nd.zeros(((1 << 31) - 2,), dtype='float64'); x.wait_to_read()",
}

ip = shell()
ip.run_cell(SETUP[framework], store_history=True)
with capture_output() as captured:
    result = ip.run_cell(CELL[framework], store_history=True)

import mgenv_jupyter  # noqa: E402

report = mgenv_jupyter.last_oom()
shown = "".join(str(output.data.get("text/plain", "")) for output in captured.outputs)
error = result.error_in_exec
emit({
    "error": f"{type(error).__module__}.{type(error).__qualname__}" if error is not None else None,
    "traceback": captured.stdout,
    "report": report.to_json() if report is not None else None,
    "shown": shown,
    "oom_again": repr(ip.run_line_magic("oom", "")) if report is not None else None,
})
