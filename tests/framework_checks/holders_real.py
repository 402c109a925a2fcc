"""What holds memory, by name, with a real framework in a real IPython shell: three globals of known sizes (1, 2 and 3
MiB... times 8), a view sharing the storage of one of them (where the framework has views), a module/layer/block
with parameters, and a list holding a tensor; then `%memholders`.

    python holders_real.py FRAMEWORK

Reports each row (name, bytes, devices, shared, shares_with, what) and the totals.
"""

import sys

from _shell import emit, shell

framework = sys.argv[1]
MiB = 1 << 20

CELLS = {
    # float32: 4 bytes an element
    "torch": f"""
import torch
a = torch.zeros({MiB})            # 4 MiB
b = torch.zeros({2 * MiB})        # 8 MiB
c = torch.zeros({3 * MiB})        # 12 MiB
view = b[: {MiB}]                  # shares b's storage
model = torch.nn.Linear(1024, 256)  # 1024*256 + 256 floats
model.register_buffer("running", torch.zeros(1000))
kept = [torch.zeros(1000)]
""",
    "jax": f"""
import jax.numpy as jnp
a = jnp.zeros({MiB}, dtype='float32')
b = jnp.zeros({2 * MiB}, dtype='float32')
c = jnp.zeros({3 * MiB}, dtype='float32')
view = b                           # the same array under a second name
kept = [jnp.zeros(1000, dtype='float32')]
""",
    "paddle": f"""
import paddle
a = paddle.zeros([{MiB}], dtype='float32')
b = paddle.zeros([{2 * MiB}], dtype='float32')
c = paddle.zeros([{3 * MiB}], dtype='float32')
view = b
model = paddle.nn.Linear(1024, 256)
kept = [paddle.zeros([1000], dtype='float32')]
""",
    "megengine": f"""
import megengine, megengine.functional as F, megengine.module as M
a = F.zeros(({MiB},), dtype='float32')
b = F.zeros(({2 * MiB},), dtype='float32')
c = F.zeros(({3 * MiB},), dtype='float32')
view = b
model = M.Linear(1024, 256)
kept = [F.zeros((1000,), dtype='float32')]
""",
    "mxnet": f"""
import mxnet as mx
a = mx.nd.zeros(({MiB},), dtype='float32')
b = mx.nd.zeros(({2 * MiB},), dtype='float32')
c = mx.nd.zeros(({3 * MiB},), dtype='float32')
view = b
model = mx.gluon.nn.Dense(256, in_units=1024)
model.initialize()
kept = [mx.nd.zeros((1000,), dtype='float32')]
""",
}

ip = shell()
result = ip.run_cell(CELLS[framework], store_history=True)
assert result.error_in_exec is None, result.error_in_exec
view = ip.run_line_magic("memholders", "")
data = view.holders
emit({
    "rows": [h.to_json() for h in data.holders],
    "totals": data.totals,
    "skipped": [s.en for s in data.skipped],
    "shown": repr(view),
})
