"""GPU memory of the running kernel: sources, a sampler thread and a bounded history.

    from mgenv_jupyter.memory import Sampler, default_sources
    sampler = Sampler(default_sources(), interval=0.1).start()
    sampler.history.frame()        # a DataFrame, one column per series ("gpu0 process", "megengine gpu0 allocated")

Sources: `NvmlSource` (every NVIDIA GPU, and what the kernel's process tree holds on it), `MegEngineSource`,
`PaddleSource`, `TorchSource`, `MXNetSource` (framework allocators, read only when already imported), `HostSource`
(RAM of the process tree, the fallback without a GPU). `MGENV_SIMULATE_GPU=<preset or scenario file>` replaces the
GPU with a simulated one, labelled "simulated" everywhere (see `simulation`). The batch format the chart consumes is
in `protocol`.

Names are imported on first use, so `import mgenv_jupyter.memory` loads neither numpy nor pandas nor pynvml.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .cells import CellMarker, CellTracker
    from .fake_nvml import FakeDevice, FakeNvml, FakeProcess
    from .framework_sources import MegEngineSource, MXNetSource, PaddleSource, TorchSource
    from .history import History
    from .host_source import HostSource
    from .nvml_source import NvmlSource
    from .overlays import Overlay
    from .process_tree import ProcessTree
    from .sample import MemorySource, Sample
    from .sampler import Sampler
    from .scenario import Scenario
    from .shared import kernel_sampler
    from .simulation import Simulation
    from .sources import default_sources, gpu_total_bytes

_EXPORTS = {
    "CellMarker": "cells", "CellTracker": "cells",
    "FakeDevice": "fake_nvml", "FakeNvml": "fake_nvml", "FakeProcess": "fake_nvml",
    "MegEngineSource": "framework_sources", "MXNetSource": "framework_sources", "PaddleSource": "framework_sources",
    "TorchSource": "framework_sources",
    "History": "history",
    "HostSource": "host_source",
    "NvmlSource": "nvml_source",
    "Overlay": "overlays",
    "ProcessTree": "process_tree",
    "MemorySource": "sample", "Sample": "sample",
    "Sampler": "sampler",
    "Scenario": "scenario", "Simulation": "simulation",
    "default_sources": "sources", "gpu_total_bytes": "sources",
    "kernel_sampler": "shared",
}

__all__ = ["CellMarker", "CellTracker", "FakeDevice", "FakeNvml", "FakeProcess", "History", "HostSource", "MXNetSource",
           "MegEngineSource", "MemorySource", "NvmlSource", "Overlay", "PaddleSource", "ProcessTree", "Sample",
           "Sampler", "Scenario", "Simulation", "TorchSource", "default_sources", "gpu_total_bytes", "kernel_sampler"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
