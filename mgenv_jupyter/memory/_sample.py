"""One memory reading (`Sample`) and what every memory source promises (`MemorySource`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from .._source_state import State

# The quantities a sample can carry, in the order front ends list them. Each becomes a series "<device> <quantity>".
QUANTITIES = ("used", "total", "process", "allocated", "reserved", "peak")

# Which quantity stands for a device in per-cell tables and legends: the kernel's own memory when it is known.
HEADLINE_ORDER = ("process", "allocated", "used")



@dataclass(slots=True)
class Sample:
    """One reading of one device by one source. Sizes are bytes; None means the source cannot know it.

    - `used` / `total`: the whole device (every process on it), or the host's memory for the host source.
    - `process`: the kernel's process tree (the kernel and all its descendants, e.g. DataLoader workers).
    - `allocated` / `reserved` / `peak`: the framework allocator's own counters (tensors live now, memory its caching
      allocator holds, and the highest `allocated` since start or the framework's last reset).
    - `simulated`: the reading comes from the simulated GPU (`MGENV_SIMULATE_GPU`), not from hardware.
    - `node`: the cluster node it was read on (set by `cluster.RemoteSource`); None for this machine.
    """

    time: float  # seconds since the epoch
    source: str
    device: str  # as shown: "gpu0", "megengine gpu0", "host"; the simulated GPU says so in its label
    used: int | None = None
    total: int | None = None
    process: int | None = None
    allocated: int | None = None
    reserved: int | None = None
    peak: int | None = None
    simulated: bool = False
    node: str | None = None

    def values(self) -> Iterator[tuple[str, int]]:
        """(series key, bytes) for every quantity this sample knows."""
        for quantity in QUANTITIES:
            value = getattr(self, quantity)
            if value is not None:
                yield series_key(self.device, quantity), value


def series_key(device: str, quantity: str) -> str:
    """The name of a series in histories, DataFrames and chart payloads: "gpu0 process", "megengine gpu0 allocated"."""
    return f"{device} {quantity}"


def split_key(key: str) -> tuple[str, str]:
    """(device, quantity) of a series key."""
    device, _, quantity = key.rpartition(" ")
    return device, quantity


@runtime_checkable
class MemorySource(Protocol):
    """Anything the sampler can read memory from.

    `state` says, as a code and its arguments (`State`), whether the source works ("ok") and, if not, why
    ("no_library": no NVIDIA driver, "nvml_error" and its error, "foreign_pids": NVML's pids are another namespace's,
    ...; memory/_state_words.py words them). `sample()` never raises: a failure
    becomes `state`, and the readings that still worked are returned. A source may also have an `idle` attribute:
    while it is True (nothing to read, e.g. its framework is not imported) the sampler asks it only once a second; and
    `simulated` / `simulation` attributes: it reads the simulated GPU, and that simulation's name.
    """

    @property
    def name(self) -> str: ...

    @property
    def state(self) -> State: ...

    def sample(self) -> list[Sample]: ...

    def close(self) -> None: ...
