"""Each framework's facts from its catalog homes, one typed `FrameworkFacts` per framework, by the catalog's key in the
order of `_frameworks.FRAMEWORKS`: what other layers ask instead of restating. What a framework declares none of is
None. Every home is imported here by name, so go-to-definition and the layer test see each edge; importing this
module imports them all, which builds their entries: it is imported when a feature asks, never at `%load_ext`.

The facts: its allocator's rows and words (`allocator`), what it records of its allocations (`memtrace`), what it does
when it runs out of memory and what remedies it (`out_of_memory`), why its cache is not given back (`cache_kept`),
and the options it takes in the user's code (`keyword_options`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ..base._text import Text
from . import _ascend, _jax, _megengine, _megengine_dtr, _mxnet, _paddle, _tensorflow, _torch
from ._allocators import Allocator
from ._frameworks import FRAMEWORKS
from ._keyword_options import KeywordOptions
from ._memtrace import MemtraceFacts, Recording
from ._out_of_memory import OutOfMemoryFacts

T = TypeVar("T")


@dataclass(frozen=True)
class FrameworkFacts:
    allocator: Allocator | None = None
    memtrace: MemtraceFacts | None = None
    out_of_memory: OutOfMemoryFacts | None = None
    cache_kept: Text | None = None
    keyword_options: KeywordOptions | None = None


NONE = FrameworkFacts()  # a key that is no framework of the catalog, or one that declares nothing (CUDA)

FACTS: dict[str, FrameworkFacts] = {
    "megengine": FrameworkFacts(allocator=_megengine.ALLOCATOR, memtrace=_megengine.MEMTRACE,
                                out_of_memory=_megengine_dtr.OUT_OF_MEMORY),
    "mxnet": FrameworkFacts(allocator=_mxnet.ALLOCATOR, memtrace=_mxnet.MEMTRACE, out_of_memory=_mxnet.OUT_OF_MEMORY),
    "paddle": FrameworkFacts(allocator=_paddle.ALLOCATOR, memtrace=_paddle.MEMTRACE,
                             out_of_memory=_paddle.OUT_OF_MEMORY),
    "torch": FrameworkFacts(allocator=_torch.ALLOCATOR, memtrace=_torch.MEMTRACE, out_of_memory=_torch.OUT_OF_MEMORY),
    "jax": FrameworkFacts(allocator=_jax.ALLOCATOR, memtrace=_jax.MEMTRACE, out_of_memory=_jax.OUT_OF_MEMORY,
                          cache_kept=_jax.CACHE_KEPT),
    "tensorflow": FrameworkFacts(allocator=_tensorflow.ALLOCATOR, memtrace=_tensorflow.MEMTRACE,
                                 out_of_memory=_tensorflow.OUT_OF_MEMORY, cache_kept=_tensorflow.CACHE_KEPT),
    "ascend": FrameworkFacts(keyword_options=_ascend.KEYWORD_OPTIONS),
}
FACTS = {framework.key: FACTS.get(framework.key, NONE) for framework in FRAMEWORKS}  # in the registry's order


def facts(key: str) -> FrameworkFacts:
    """Framework `key`'s facts (NONE when `key` is no framework of the catalog)."""
    return FACTS.get(key, NONE)


def declared(get: Callable[[FrameworkFacts], T | None]) -> dict[str, T]:
    """One kind of fact of every framework that declares it (`declared(lambda facts: facts.allocator)`), by key."""
    found = {key: get(each) for key, each in FACTS.items()}
    return {key: value for key, value in found.items() if value is not None}


_ORDER = (Recording.ALWAYS, Recording.WHEN_ON, Recording.NEVER)
# The frameworks' stack facts, those that always record first, then those that record when asked.
MEMTRACE_FACTS: dict[str, MemtraceFacts] = dict(sorted(declared(lambda each: each.memtrace).items(),
                                                 key=lambda item: _ORDER.index(item[1].recording)))

