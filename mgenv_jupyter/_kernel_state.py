"""`KernelState`: everything the extension keeps for its kernel, in one object that every module reaches one way,
`kernel_state()`. A reader who wants to know what the kernel holds reads this class; nothing else keeps kernel state
at module level or as an attribute on the IPython shell.

Why a holder in the base layer, not an object of the front ends that hands each part down: the parts are made and
used by every layer (runtime makes the session, memory the sampler and the tracer, oom the recorder and its reports,
the tuner its sweeps, the front ends the cells' comm), and most of them are asked for from where no front end is on
the stack (the sampler's thread, a report's button, a `verify()` in user code). So each layer keeps making its own
part as before, and keeps it here. This module imports nothing above the base layer, not even for the type checker
(tests/quality/test_layers.py counts `TYPE_CHECKING` imports), so a slot is typed `Any` here: the module that owns a
kind names its type where it hands the part out (`memory._shared.kernel_sampler() -> Sampler`, ...).

Why one per process rather than one per shell: IPython's shell is a singleton in its process
(`InteractiveShell.instance()`, which ipykernel and `get_ipython()` return), so a kernel has one shell, and the
callers without a shell in hand (a script calling `mgenv_jupyter.session()`, the sampler's thread) find the same
state. The slots tied to a shell (the cell follower, the hook, the cells' records, the tracer) follow `get_ipython()`'s.

Tests put back what each test made (tests/conftest.py's autouse fixtures: the session, the sampler).
"""

from __future__ import annotations

import threading
from typing import Any

from ._last_result import LastResult


class KernelState:
    """What the extension keeps for this kernel. Each slot is made by the module that owns its kind (named beside
    it) and is None until then."""

    def __init__(self) -> None:
        # Held while a slot is made (the session, the sampler): made once, whichever thread asks first.
        self.lock = threading.RLock()
        # `%load_ext` done (_magics.register), so loading twice installs nothing twice
        self.loaded = False
        # runtime: the import watcher, installed at `%load_ext`; the session the first magic makes on it
        self.watcher: Any = None
        self.session: Any = None
        # memory/_cell_events.py: the one listener of IPython's cell events, which every follower of cells asks
        self.cell_follower: Any = None
        # memory/_shared.py: the one sampler and its history
        self.sampler: Any = None
        # _cell_comm.py: every cell's memory record, and the cells' comm that sends each one
        self.cell_records: Any = None
        # memory/_tracing.py: the recording of allocation sites
        self.tracer: Any = None
        # oom/_hook.py: the out-of-memory recorder and the listeners around each cell
        self.oom_hook: Any = None
        # oom/_report.py: the last report, and the free that gave its cell back (by the report's key)
        self.oom_reports: LastResult[Any] = LastResult("out-of-memory report")
        self.oom_freed: Any = None
        self.oom_follows_frees = False
        # oom/_free.py: every free, as it ends
        self.frees: LastResult[Any] = LastResult("free")
        # cluster/_last_verify.py: the last verify() and when it was made
        self.verifies: LastResult[Any] = LastResult("verify() result")
        # tuner: the last sweep, and what it offers the sidebars (tuner/_result.py, tuner/_offers.py)
        self.sweeps: LastResult[Any] = LastResult("sweep")
        self.profile_offers: LastResult[Any] = LastResult("sweep's profile offer")
        self.cell_offers: LastResult[Any] = LastResult("sweep cell offer")
        # _sweep_magics.py: the cells in which a sweep ran, never replayed
        self.sweep_cells: set[int] = set()
        # tuner/_child.py: in a sweep's point kernel, the probe that measures its cells
        self.sweep_probe: Any = None
        # _text.py: the language chosen by `%envlang` (set_language) and the one the front end said it speaks
        self.language: str | None = None
        self.front_end_language: str | None = None


_state = KernelState()


def kernel_state() -> KernelState:
    """This kernel's state."""
    return _state
