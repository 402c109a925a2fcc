"""A real out-of-memory error on the host: a cell asks the framework for far more memory than the machine has, in a
real IPython shell with mgenv_jupyter loaded. The address space is capped first (RLIMIT_AS) so the allocation fails at
once and nothing is ever committed, whatever the framework does with the request.

    python oom_host.py FRAMEWORK [VARIANT]

TensorFlow's variants: "" (its default CPU allocator: oneDNN's BFC pool "mklcpu" where TensorFlow turns oneDNN on,
the plain "cpu" allocator where it does not), "onednn=0" and "onednn=1" (the same cell with TF_ENABLE_ONEDNN_OPTS set),
"cpu-allocator" (the plain CPU allocator, TF_ENABLE_ONEDNN_OPTS=0, asked for float32 so the size comes from the type)
and "xla" (jit_compile=True, whose message names no device). `onednn` says what TensorFlow itself reports
(IsMklEnabled): whether oneDNN is on depends on the CPU's instructions, not only on the variable. What the process
writes on its stderr during the cell (TensorFlow's BFC allocator logs its "ran out of memory" there, outside the
exception) comes back as `logged`.
"""

import os
import resource
import sys
import tempfile
import time

framework = sys.argv[1]
variant = sys.argv[2] if len(sys.argv) > 2 else ""
if variant == "cpu-allocator":
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
elif variant.startswith("onednn="):
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = variant.removeprefix("onednn=")
    variant = ""
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
    "tensorflow": "import tensorflow as tf",
}
CELL = {
    "torch": "x = torch.empty(1 << 50, dtype=torch.uint8)",
    "jax": "x = jnp.zeros((1 << 50,), dtype='uint8').block_until_ready()",
    "paddle": "x = paddle.empty([1 << 50], dtype='uint8')",
    "megengine": "x = F.zeros((1 << 25, 1 << 25), dtype='uint8').numpy()",
    "mxnet": "x = mx.nd.zeros(((1 << 31) - 2,), dtype='float64'); x.wait_to_read()",
    "tensorflow": "x = tf.zeros((1 << 50,), dtype=tf.uint8)",
    "tensorflow cpu-allocator": "x = tf.zeros((1 << 48,), dtype=tf.float32)",
    "tensorflow xla": "f = tf.function(lambda n: tf.ones((1 << 50,), dtype=tf.uint8) * n, jit_compile=True)\n"
                      "x = f(tf.constant(2, dtype=tf.uint8))",
}

ip = shell()
ip.run_cell(SETUP[framework], store_history=True)
with tempfile.TemporaryFile() as logged_file:
    sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(logged_file.fileno(), 2)  # the C++ side logs on the process's stderr, not Python's sys.stderr
    try:
        started = time.monotonic()
        with capture_output() as captured:
            result = ip.run_cell(CELL[f"{framework} {variant}".strip()], store_history=True)
        seconds = time.monotonic() - started
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
    logged_file.seek(0)
    logged = logged_file.read().decode(errors="replace")

import mgenv_jupyter  # noqa: E402

report = mgenv_jupyter.last_oom()
shown = "".join(str(output.data.get("text/plain", "")) for output in captured.outputs)
error = result.error_in_exec
onednn = None
if framework == "tensorflow":
    from tensorflow.python.util import _pywrap_util_port  # noqa: E402

    onednn = bool(_pywrap_util_port.IsMklEnabled())
emit({
    "onednn": onednn,
    "error": f"{type(error).__module__}.{type(error).__qualname__}" if error is not None else None,
    "message": str(error)[:2000] if error is not None else None,
    "traceback": captured.stdout,
    "report": report.to_json() if report is not None else None,
    "shown": shown,
    "oom_again": repr(ip.run_line_magic("oom", "")) if report is not None else None,
    "seconds": seconds,
    "logged": [line for line in logged.splitlines() if "out of memory" in line.lower()][:5],
})
