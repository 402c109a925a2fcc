"""Which frameworks record where their memory was allocated (a Python stack per block), how, and what the others do
not record: the facts the allocation sites (`%%memtrace`, the out-of-memory report's "Where the memory was
allocated") ask instead of restating. Each framework's home declares its own (`MEMTRACE`); `_homes.MEMTRACE_FACTS`
gathers them, those that record first. Checked against the wheels the tests run (catalog._frameworks)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..base._text import Text


class Recording(str, Enum):
    ALWAYS = "always"  # the framework keeps a stack for every live block whatever we do (JAX)
    WHEN_ON = "when_on"  # a recording the kernel turns on (PyTorch's CUDA memory history, its CPU profiler)
    NEVER = "never"  # the framework keeps no stack for its blocks


@dataclass(frozen=True)
class MemtraceFacts:
    framework: str
    recording: Recording
    how: Text  # the framework's own record, named
    kept_on: Text | None = None  # what `%memtrace on` keeps on for it (None: nothing to switch, or no stacks)
    per_cell: Text | None = None  # what records each cell instead where nothing can be kept on
    after_off: Text | None = None  # what it still records after `%memtrace off`


# Libraries of no framework of the catalog whose arrays a cell allocates as often as a framework's tensors, which keep
# no stack for them either: named, where no framework recorded anything, so that an empty result says why.
UNRECORDED_LIBRARIES = {
    "numpy": Text("NumPy keeps no record of where its arrays were allocated: %memholders lists them by variable, "
                  "with their sizes",
                  "NumPy 不记录其数组的分配位置:%memholders 按变量列出这些数组及其大小"),
}
