"""What holds memory, by name, with a real framework in a real IPython shell: three globals of known sizes (1, 2 and 3
MiB... times 8), a view sharing the storage of one of them (where the framework has views), a module/layer/block
with parameters, and a list holding a tensor; then `%memholders`.

    python holders_real.py FRAMEWORK

Reports each row (name, bytes, devices, shared, shares_with, what) and the totals; then, where the framework has
modules, the row of a user's module that overrides what lists its parameters and counts every call and attribute
look-up, and those counts after a second `%memholders`.
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

# A user's module that overrides what lists its parameters and counts every call and attribute look-up: the walk
# reads the framework's registries from the instance's own dict instead (16×16 weights and 16 biases, float32).
COUNTING = {
    "torch": ("torch.nn.Module", "self.proj = torch.nn.Linear(16, 16)", ("parameters", "named_parameters")),
    "paddle": ("paddle.nn.Layer", "self.proj = paddle.nn.Linear(16, 16)", ("parameters", "named_parameters")),
    "megengine": ("M.Module", "self.proj = M.Linear(16, 16)", ("parameters", "named_parameters")),
    "mxnet": ("mx.gluon.Block", "self.proj = mx.gluon.nn.Dense(16, in_units=16)", ("collect_params",)),
}
COUNTING_CELL = """
calls = {{"__getattr__": 0, "__getattribute__": 0, {methods}}}
class Counting({base}):
    def __init__(self):
        super().__init__()
        {build}
    def forward(self, x):
        return self.proj(x)
{overrides}
    def __getattr__(self, name):
        calls["__getattr__"] += 1
        return super().__getattr__(name)
    def __getattribute__(self, name):
        calls["__getattribute__"] += 1
        return object.__getattribute__(self, name)
counting = Counting()
{initialise}
for name in calls:
    calls[name] = 0  # making it ran its own code: the user's, not ours
"""

ip = shell()
result = ip.run_cell(CELLS[framework], store_history=True)
assert result.error_in_exec is None, result.error_in_exec
view = ip.run_line_magic("memholders", "")
data = view.holders

if framework in COUNTING:
    base, build, methods = COUNTING[framework]
    overrides = "".join(f"    def {method}(self, *args, **kwargs):\n"
                        f"        calls[{method!r}] += 1\n"
                        f"        return super().{method}(*args, **kwargs)\n" for method in methods)
    cell = COUNTING_CELL.format(methods=", ".join(f"{method!r}: 0" for method in methods), base=base, build=build,
                                overrides=overrides,
                                initialise="counting.initialize()" if framework == "mxnet" else "")
    made = ip.run_cell(cell, store_history=True)
    assert made.error_in_exec is None, made.error_in_exec
    again = ip.run_line_magic("memholders", "").holders
    counting = next((h.to_json() for h in again.holders if h.name == "counting"), None)
    calls = ip.user_ns["calls"]
else:  # JAX has no modules of its own
    counting = calls = None

emit({
    "rows": [h.to_json() for h in data.holders],
    "totals": data.totals,
    "skipped": [s.en for s in data.skipped], "left_out": list(data.left_out), "closed": list(data.closed),
    "shown": repr(view),
    "counting": counting,
    "counting_calls": calls,
})
