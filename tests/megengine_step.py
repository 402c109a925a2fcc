"""A real MegEngine training step that holds enough tensors for DTR to matter (12 Linear layers of 512, a batch of
512), as the setup of a sweep's cell: tests/frameworks/test_sweep_real.py sweeps DTR's threshold over it, and
bench/megengine_dtr_sweep.py DTR on and off. `setup(dtr)` is its code with `dtr`, the line that turns DTR on (or
decides whether to), after the imports."""

from __future__ import annotations

IMPORTS = """import numpy as np
import megengine as mge
import megengine.autodiff as ad
import megengine.functional as F
import megengine.module as M
import megengine.optimizer as optim
"""

MODEL_AND_STEP = """class Net(M.Module):
    def __init__(self, width=512, depth=12):
        super().__init__()
        self.layers = [M.Linear(width, width) for _ in range(depth)]
        self.out = M.Linear(width, 10)

    def forward(self, x):
        for layer in self.layers:
            x = F.relu(layer(x))
        return self.out(x)

net = Net()
gm = ad.GradManager().attach(net.parameters())
opt = optim.SGD(net.parameters(), lr=0.01)
rng = np.random.default_rng(0)
x = mge.tensor(rng.standard_normal((512, 512), dtype=np.float32))
y = mge.tensor(rng.integers(0, 10, 512).astype("int32"))

def step():
    with gm:
        loss = F.nn.cross_entropy(net(x), y)
        gm.backward(loss)
    opt.step().clear_grad()
    return float(loss.numpy())
"""


def setup(dtr: str) -> str:
    return f"{IMPORTS}\n{dtr}\n\n{MODEL_AND_STEP}"
