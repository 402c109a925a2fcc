"""`%memfree` beside a real framework on a simulated GPU. The simulated GPU stands in for a framework's cache on the
device, so it gives back only when a GPU's allocator was asked: MXNet's CPU wheel is asked for its `cpu()` pool,
which is host memory, and the simulated figure must not move; MegEngine's `coalesce_free_memory()` asks its device
allocator, and the simulated figure drops to the scenario's start.

    python free_simulated.py FRAMEWORK SCENARIO_FILE

The scenario's kernel climbs 1 GiB a step from 1 GiB; the free comes once this process holds at least 4 GiB (read
from the kernel's own sampler, within a deadline). Reports the calls made and the simulated GPU's figure before and
after, and what failed.
"""

import os
import sys
import time

framework, scenario = sys.argv[1], sys.argv[2]
os.environ["MGENV_SIMULATE_GPU"] = scenario

from _shell import emit, shell  # noqa: E402

# An array on the host, as a user's cell makes: MXNet has no host pool to empty before its first.
ARRAY = {"mxnet": "x = mxnet.nd.ones((1024,))\nx.wait_to_read()", "megengine": "x = megengine.tensor([1.0]).numpy()"}

ip = shell()
ip.run_cell(f"import {framework}\n{ARRAY[framework]}", store_history=True)

from mgenv_jupyter.memory._shared import kernel_sampler  # noqa: E402

held: list[int] = []
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    held = [values.get("process", 0) for device, values in kernel_sampler().sample_devices().items()
            if device.gpu == 0]
    if held and held[0] >= 4 << 30:
        break
    time.sleep(0.05)

view = ip.run_line_magic("memfree", "")
result = view.result
emit({"climbed": held, "released": list(result.released), "problems": list(result.problems),
      "before": result.before.gpus, "after": result.after.gpus})
