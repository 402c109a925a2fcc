"""Framework allocators: what each framework says it has allocated, reserved and peaked at (or the device's used
and total), as its adapter reads it (`read_counters`, runtime/frameworks/_counters.py).

A framework is never imported here: its source reads only when the framework is already in `sys.modules`, and says "not
imported" (`NOT_IMPORTED`) otherwise. Some readings would create a CUDA context (hundreds of MB) on a GPU the kernel has
not used yet (MegEngine's per-device counters, MXNet's `gpu_memory_info`): those adapters ask which devices are open,
and the sources' `gate(ordinal)` answers: when it answers False (NVML sees no memory of the kernel's process tree on
that GPU) the device is skipped until it is used.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..base._ascii_numbers import whole_number
from ..base._imported import imported
from ..base._source_state import NOT_IMPORTED, STATE_OK, State
from ..runtime.frameworks import COUNTERS
from ..runtime.frameworks._counters import first_line
from ._sample import Sample

Gate = Callable[[int], "bool | None"]
_MAX_NVML_INDEX = 9999  # far beyond any machine's GPUs; a longer number in CUDA_VISIBLE_DEVICES names none


class FrameworkSource:
    """One framework's allocator, as its adapter reads it (`read_counters`): read only once the framework is imported,
    never raising, the reason kept in `state`. `name` is the framework's top-level module."""

    name = ""
    simulated = False

    def __init__(self, name: str = "", devices: Sequence[int] | None = None, gate: Gate | None = None) -> None:
        self.name = name or self.name
        self.devices = None if devices is None else list(devices)
        self.gate = gate
        self._idle = State(NOT_IMPORTED, framework=self.name)
        self._state = self._idle

    @property
    def state(self) -> State:
        return self._state

    @property
    def idle(self) -> bool:
        """True while the framework is not imported."""
        return self._state is self._idle

    def sample(self) -> list[Sample]:
        module = imported(self.name)  # never a framework a cell is still importing
        if module is None:
            self._state = self._idle
            return []
        try:
            return self._read(module)
        except Exception as exc:  # a framework call may raise anything; the sampler must carry on
            self._state = State("framework_error", framework=self.name,
                                error=f"{type(exc).__name__}: {first_line(exc)}")
            return []

    def close(self) -> None:
        pass

    def _read(self, module: Any) -> list[Sample]:
        # The adapter is imported once the framework is: the sampler imports nothing before the user's code does.
        from ..runtime.frameworks import adapter

        found = adapter(self.name)
        read = found.read_counters if found is not None else None
        if read is None:  # COUNTERS names only adapters that read them
            return []
        waiting: list[int] = []
        counters, state = read(module, self.devices, lambda ordinals: self._open(ordinals, waiting))
        samples = [Sample(time.time(), self.name, c.device, framework=self.name, allocated=c.allocated,
                          reserved=c.reserved, peak=c.peak, used=c.used, total=c.total) for c in counters]
        self._state = self._waiting_state(waiting) if waiting else state or STATE_OK
        return samples

    def _open(self, ordinals: Sequence[int], waiting: list[int]) -> list[int]:
        """The devices that may be read now; those held back because reading them would create a CUDA context go
        to `waiting`."""
        if self.gate is None:
            return list(ordinals)
        allowed: list[int] = []
        for ordinal in ordinals:
            (waiting if self.gate(ordinal) is False else allowed).append(ordinal)
        return allowed

    def _waiting_state(self, waiting: list[int]) -> State:
        # Reading there now would create a CUDA context.
        return State("waiting_for_devices", framework=self.name, devices=", ".join(f"gpu{d}" for d in waiting))


def framework_sources(gate: Gate | None = None) -> list[FrameworkSource]:
    """One source per framework whose adapter reads its allocator; each stays idle ("not imported") until its
    framework is imported. `gate(ordinal)` says whether the kernel uses a GPU, for the adapters whose reading would
    create a CUDA context on one it does not."""
    return [FrameworkSource(name, gate=gate) for name in COUNTERS]


def nvml_index(ordinal: int) -> int | None:
    """The NVML index of CUDA device `ordinal`, through CUDA_VISIBLE_DEVICES; None when that names GPUs by UUID or
    hides the ordinal. (CUDA orders GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID; on machines with one GPU
    model, as most are, both orders agree.)"""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None or not visible.strip():
        return ordinal
    entries = [e.strip() for e in visible.split(",")]
    # ASCII digits only: '²' passes str.isdigit() and then int() raises (base/_ascii_numbers.py).
    return whole_number(entries[ordinal], 0, _MAX_NVML_INDEX) if ordinal < len(entries) else None
