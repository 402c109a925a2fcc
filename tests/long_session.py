"""A long session replayed in seconds, for the chart's browser tests: the kernel's own sampler and the simulated GPU are
fast-forwarded together through their clocks, so every reading goes through the real path (the simulated NVML
library, the NVML source, the sampler's history and cell markers, the chart's snapshot and batches) with fifteen
minutes of simulated time behind it.

Run inside the kernel (a notebook cell): `from long_session import fast_forward; fast_forward(minutes=15)`, with
`MGENV_SIMULATE_GPU` set for the kernel and this folder on `sys.path`. Afterwards the sampler's and the simulation's
clocks stay that far ahead of the wall clock, so the live chart goes on from the replayed session's end.
"""

from __future__ import annotations

import time


class Ahead:
    """Clocks running `ahead` seconds ahead of the real ones: the sampler's (seconds since the epoch) and the
    simulation's (monotonic)."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def epoch(self) -> float:
        return time.time() + self.ahead

    def monotonic(self) -> float:
        return time.monotonic() + self.ahead


def fast_forward(minutes: float = 15, interval: float = 1.0, cell_every: float = 8.0, cell_seconds: float = 2.0,
                 first_cell: int = 100) -> int:
    """Replay `minutes` of the kernel's session: a sample every `interval` seconds of simulated time, and a cell every
    `cell_every` seconds that runs `cell_seconds` (numbered from `first_cell`); returns how many cells ran."""
    from mgenv_jupyter.memory._shared import kernel_sampler
    from mgenv_jupyter.memory.simulated._simulation import running

    sampler = kernel_sampler()
    simulation = running()
    if simulation is None:
        raise RuntimeError("set MGENV_SIMULATE_GPU for the kernel: the replay runs the simulated GPU's timeline")
    clock = Ahead()
    sampler.clock = sampler.cells.clock = clock.epoch
    simulation.clock = clock.monotonic
    cells = 0
    steps = round(minutes * 60 / interval)
    for step in range(steps):
        clock.ahead += interval
        elapsed = step * interval
        phase = elapsed % cell_every
        if phase < interval:
            sampler.cells.start(first_cell + cells)
        elif phase - interval < cell_seconds <= phase:
            sampler.cells.finish(first_cell + cells, ok=True)
            cells += 1
        sampler.sample_once()
    sampler.cells.finish(first_cell + cells, ok=True)  # none left open for the real cell's end to take
    return cells
