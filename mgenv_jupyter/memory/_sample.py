"""One memory reading (`Sample`) and what every memory source promises (`MemorySource`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

from ..base._source_state import State

if TYPE_CHECKING:
    from ..protocol import SeriesInfo

# The quantities a sample can carry, in the order front ends list them. Each becomes a series "<device> <quantity>".
QUANTITIES = ("used", "total", "process", "allocated", "reserved", "peak")

# Which quantity stands for a device in per-cell tables and legends: the kernel's own memory when it is known.
HEADLINE_ORDER = ("process", "allocated", "used")


# Digits of a GPU's index in its device name: NVML indexes a machine's GPUs from 0, far below 10,000.
_GPU_DIGITS = 4

# The mark a simulated device's label carries in series keys and DataFrame columns ("gpu0 (simulated) process"):
# written here only, read back by nobody (a series says `simulated` in its own field).
_SIMULATED_MARK = " (simulated)"


class DeviceId(NamedTuple):
    """Which device a reading is of, as fields: `device` as its source names it ("gpu0", "host", "cpu0"), the
    framework whose allocator counted it (None: the driver or the host), the cluster node it was read on (None: this
    machine), and whether it is the simulated GPU. Code tells devices apart by these fields; `label` is the name
    histories, DataFrames and series keys give it, written from them and never parsed back."""

    device: str
    framework: str | None = None
    node: str | None = None
    simulated: bool = False

    @property
    def label(self) -> str:
        """"gpu0", "torch gpu0", "node_b gpu0 (simulated)"."""
        named = " ".join(part for part in (self.node, self.framework, self.device) if part)
        return named + _SIMULATED_MARK if self.simulated else named

    @property
    def gpu(self) -> int | None:
        """The GPU's index when the device is one ("gpu0" → 0, as NVML and the framework sources name GPUs); None for
        the host, a CPU or anything else."""
        digits = self.device[3:]
        if self.device.startswith("gpu") and 0 < len(digits) <= _GPU_DIGITS and digits.isascii() and digits.isdigit():
            return int(digits)
        return None

    def series(self, quantity: str, source: str) -> SeriesInfo:
        """The fields of this device's series of `quantity`, as the sampler records and sends them."""
        return {"key": series_key(self.label, quantity), "device": self.device, "framework": self.framework,
                "quantity": quantity, "source": source, "simulated": self.simulated, "node": self.node}

    @classmethod
    def of(cls, series: SeriesInfo) -> DeviceId:
        """The device a series is of, from its fields."""
        return cls(series["device"], series["framework"], series["node"], series["simulated"])


@dataclass(slots=True)
class Sample:
    """One reading of one device by one source. Sizes are bytes; None means the source cannot know it.

    - `used` / `total`: the whole device (every process on it), or the host's memory for the host source.
    - `process`: the kernel's process tree (the kernel and all its descendants, e.g. DataLoader workers).
    - `allocated` / `reserved` / `peak`: the framework allocator's own counters (tensors live now, memory its caching
      allocator holds, and the highest `allocated` since start or the framework's last reset).
    - `simulated`: the reading comes from the simulated GPU (`MGENV_SIMULATE_GPU`), not from hardware.
    - `node`: the cluster node it was read on (set by `cluster.RemoteSource`); None for this machine.
    - `framework`: the framework whose allocator gave the counters ("megengine"); None for NVML and the host.
    """

    time: float  # seconds since the epoch
    source: str
    device: str  # the device alone, as its source names it: "gpu0", "host", "cpu0"
    used: int | None = None
    total: int | None = None
    process: int | None = None
    allocated: int | None = None
    reserved: int | None = None
    peak: int | None = None
    simulated: bool = False
    node: str | None = None
    framework: str | None = None

    @property
    def device_id(self) -> DeviceId:
        return DeviceId(self.device, self.framework, self.node, self.simulated)

    @property
    def label(self) -> str:
        """The device as series keys name it: "gpu0 (simulated)", "megengine gpu0", "node_b host"."""
        return self.device_id.label

    def values(self) -> Iterator[tuple[str, int]]:
        """(series key, bytes) for every quantity this sample knows."""
        label = self.label
        for quantity in QUANTITIES:
            value = getattr(self, quantity)
            if value is not None:
                yield series_key(label, quantity), value


def series_key(label: str, quantity: str) -> str:
    """The name of a series in histories, DataFrames and chart payloads: "gpu0 process", "megengine gpu0 allocated"
    (`label`: `DeviceId.label`). A name for people and tables; the chart and the reports read a series' fields."""
    return f"{label} {quantity}"


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
