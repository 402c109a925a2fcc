"""GPU memory of the running kernel: sources, a sampler thread and a bounded history.

    from mgenv_jupyter.memory import Sampler, default_sources
    sampler = Sampler(default_sources(), interval=0.1).start()
    sampler.history.frame()        # a DataFrame, one column per series ("gpu0 process", "megengine gpu0 allocated")

Sources (`default_sources()` gives them all; each is in its module): `NvmlSource` (every NVIDIA GPU, and what the
kernel's process tree holds on it), `MegEngineSource`, `PaddleSource`, `TorchSource`, `MXNetSource` (framework
allocators, read only when already imported), `HostSource` (RAM of the process tree, the fallback without a GPU); a
source of your own is any `MemorySource`. `MGENV_SIMULATE_GPU=<preset or scenario file>` replaces the
GPU with a simulated one, labelled "simulated" everywhere (the `simulated` subpackage). The batch format the chart
consumes is in `protocol`.

Names are imported on first use, so `import mgenv_jupyter.memory` loads neither numpy nor pandas nor pynvml.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base._lazy_names import lazy_names

if TYPE_CHECKING:
    from ._history import History
    from ._sample import MemorySource, Sample
    from ._sampler import Sampler
    from ._shared import kernel_sampler
    from ._sources import default_sources, gpu_total_bytes

# What users and the other layers use; the rest (the sources, the cell tracker, the simulation and its test double,
# the fake NVML library) is imported from its module.
_EXPORTS = {
    "History": "_history",
    "MemorySource": "_sample", "Sample": "_sample",
    "Sampler": "_sampler",
    "default_sources": "_sources", "gpu_total_bytes": "_sources",
    "kernel_sampler": "_shared",
}

__all__ = ["History", "MemorySource", "Sample", "Sampler", "default_sources", "gpu_total_bytes", "kernel_sampler"]


__getattr__, __dir__ = lazy_names(__name__, _EXPORTS, globals())
