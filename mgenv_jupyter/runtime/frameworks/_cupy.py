"""CuPy's out-of-memory errors and its pools. CuPy is no framework of the catalog (it reads CUDA's own variables), but
a notebook's arrays are often CuPy's: its failures are recognised and its pools given back like a framework's."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import Adapter, CacheCall
from ._out_of_memory import SIZE, OomPattern, sizes

# ---- its out-of-memory errors (oom/_recognise.py asks; runtime/frameworks/_out_of_memory.py) ---------------------

OOM_PATTERNS = (
    # CuPy: cupy.cuda.memory.OutOfMemoryError (a MemoryError), "Out of memory allocating 1,099,511,627,776 bytes
    # (allocated so far: 0 bytes)." (H100 capture). Before the plain MemoryError below.
    OomPattern("cupy", "gpu", ("cupy.cuda.memory.OutOfMemoryError",),
               re.compile(rf"Out of memory allocating (?P<requested>{SIZE}) \(allocated so far: (?P<allocated>{SIZE})"),
               sizes(requested="requested", allocated="allocated")),
    OomPattern("cupy", "gpu", ("cupy.cuda.memory.OutOfMemoryError",), None),
)

# ---- giving its cached memory back (oom/_free.py asks) -------------------------------------------------------------

def release_cache(cupy: Any, gpus: Callable[[], list[int]]) -> list[CacheCall]:
    """The free blocks of CuPy's device and pinned memory pools."""
    return [CacheCall("cupy.get_default_memory_pool().free_all_blocks()",
                      lambda: cupy.get_default_memory_pool().free_all_blocks()),
            CacheCall("cupy.get_default_pinned_memory_pool().free_all_blocks()",  # page-locked host memory
                      lambda: cupy.get_default_pinned_memory_pool().free_all_blocks(), gpu=False)]


# What this adapter offers the rest of the product (runtime/frameworks/__init__.py, Adapter).
ADAPTER = Adapter(oom_patterns=OOM_PATTERNS, release_cache=release_cache)
