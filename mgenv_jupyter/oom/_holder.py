"""Which kernel of this Jupyter server to offer to shut down when another process holds the GPU.

When the report's findings include "another process holds the memory" and the largest such process on the failing
GPU is another kernel of this kernel's server (its extension said so: memory/_server_owners.py), the report offers
to shut that kernel down. Only the offer is decided here; the front end asks the user, takes the notebook and the
memory it names from the server again, and shuts it down through the server's kernel API.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._causes import Cause, Finding
from ._recognise import OutOfMemory
from ._state import MemoryState, OtherProcess


def kernel_holder(findings: Iterable[Finding], state: MemoryState, event: OutOfMemory) -> OtherProcess | None:
    """The other kernel holding the most of the failing GPU, when another process is among the causes; else None."""
    if not any(finding.cause is Cause.OTHER_PROCESS for finding in findings):
        return None
    on_gpu = [p for p in state.processes if event.gpu is None or p.gpu == event.gpu]
    largest = max(on_gpu, key=lambda p: p.bytes or 0, default=None)
    # Only when the largest holder is a kernel: offering a smaller kernel would not answer the verdict.
    return largest if largest is not None and largest.owner is not None else None
