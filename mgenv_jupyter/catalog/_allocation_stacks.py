"""Which frameworks record where their memory was allocated (a Python stack per block), how, and what the others do
not record: the facts the allocation sites (`%%memtrace`, the out-of-memory report's "Where the memory was
allocated") ask instead of restating. Each framework's home declares its own (`STACKS`); `_homes.STACK_FACTS`
gathers them, those that record first. Checked against the wheels the tests run (catalog._frameworks)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .._text import Text


class Recording(str, Enum):
    ALWAYS = "always"  # the framework keeps a stack for every live block whatever we do (JAX)
    WHEN_ON = "when_on"  # a recording the kernel turns on (PyTorch's CUDA memory history, its CPU profiler)
    NEVER = "never"  # the framework keeps no stack for its blocks


@dataclass(frozen=True)
class StackFacts:
    framework: str
    recording: Recording
    how: Text  # the framework's own record, named
    kept_on: Text | None = None  # what `%memtrace on` keeps on for it (None: nothing to switch, or no stacks)
    per_cell: Text | None = None  # what records each cell instead where nothing can be kept on
    when: Text | None = None  # when it records, said where nothing was recorded ("JAX always records")
    after_off: Text | None = None  # what it still records after `%memtrace off`
