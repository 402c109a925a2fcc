"""A kernel's sampler whose series a reader could misread from their keys (issue 30: a series is identified by its
fields, never by parsing its key): the simulated GPU (the kernel holds 6 GB of gpu0), PyTorch's allocator on gpu0, and
a cluster node labelled "gpubox" (a label the cluster allows: no local device is named so) with a GPU of its own,
gpu1, and PyTorch's allocator there. Read word by word, "gpubox torch gpu1 reserved" is a device "gpubox ..." of a
framework "gpubox" on GPU 1: the node's memory passed for the kernel's own.

    with kernels_sampler() as sampler: ...     # the three together
    Sampler([TorchAllocator(), Node(nvml=False)])   # a machine without NVML, beside a node whose NVML cannot attribute
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from mgenv_jupyter.base._source_state import STATE_OK
from mgenv_jupyter.cluster._remote_source import NodeBatch, RemoteSource
from mgenv_jupyter.memory._sample import Sample
from mgenv_jupyter.memory._sampler import Sampler
from mgenv_jupyter.memory._sources import default_sources
from mgenv_jupyter.memory.simulated._scenario import Scenario
from mgenv_jupyter.memory.simulated._simulation import Simulation

GiB = 1024**3
NODE = "gpubox"


class TorchAllocator:
    """The counters PyTorch's allocator gives for gpu0, as its framework source samples them (PyTorch itself runs in
    its own venv, tests/frameworks)."""

    name = "torch"
    state = STATE_OK
    simulated = False

    def sample(self) -> list[Sample]:
        return [Sample(time.time(), "torch", "gpu0", framework="torch", allocated=4 * GiB, reserved=5 * GiB)]

    def close(self) -> None:
        pass


class Node(RemoteSource):
    """The node's stream, as `consume` feeds it: one fresh batch before each of the sampler's readings. `nvml=False`:
    the node's NVML cannot attribute its processes' memory (a container), so only its allocator says."""

    def __init__(self, nvml: bool = True) -> None:
        super().__init__(NODE)
        self.nvml = nvml

    def sample(self) -> list[Sample]:
        now = time.time()
        samples = [Sample(now, "torch", "gpu1", framework="torch", allocated=GiB, reserved=3 * GiB)]
        if self.nvml:
            samples.insert(0, Sample(now, "nvml", "gpu1", used=30 * GiB, total=80 * GiB, process=5 * GiB))
        batch: NodeBatch = {"samples": samples, "states": [], "cpu_seconds": 0.0, "sampled": 1}
        self.feed(batch)
        return super().sample()


@contextmanager
def kernels_sampler() -> Iterator[Sampler]:
    """The kernel's sources over the simulated GPU, PyTorch's allocator and the node, in one sampler (closed after)."""
    scenario = {"name": "fields", "devices": [{"name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "kernel": "6GB"}]}
    with Simulation(Scenario.from_json(scenario)):
        sampler = Sampler([*default_sources(), TorchAllocator(), Node()])
        try:
            yield sampler
        finally:
            sampler.close()
