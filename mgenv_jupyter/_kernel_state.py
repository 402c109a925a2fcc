"""`KernelState`: everything the extension keeps for its kernel, in one object that every module reaches one way,
`kernel_state()`. A reader who wants to know what the kernel holds reads this class; nothing else keeps kernel state
at module level or as an attribute on the IPython shell.

Why a holder in the base layer, not an object of the front ends that hands each part down: the parts are made and
used by every layer (runtime makes the session, memory the sampler and the tracer, oom the recorder and its reports,
the tuner its sweeps, the front ends the cells' comm), and most of them are asked for from where no front end is on
the stack (the sampler's thread, a report's button, a `verify()` in user code). So each layer keeps making its own
part as before, and keeps it here, in a slot typed with that part's class. The slots' types are named for the type
checker only (`TYPE_CHECKING`): this module imports nothing above the base layer, and holds no policy.

Why one per process rather than one per shell: IPython's shell is a singleton in its process
(`InteractiveShell.instance()`, which ipykernel and `get_ipython()` return), so a kernel has one shell, and the
callers without a shell in hand (a script calling `mgenv_jupyter.session()`, the sampler's thread) find the same
state. The slots tied to a shell (the hook, the cells' records, the tracer) are installed on `get_ipython()`'s.

Tests put back what each test made (tests/conftest.py's autouse fixtures: the session, the sampler).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ._last_result import LastResult

if TYPE_CHECKING:
    from .cluster._verify_report import ClusterReport
    from .memory._cell_records import CellRecords
    from .memory._sampler import Sampler
    from .memory._tracing import Tracer
    from .oom._free import FreeResult
    from .oom._hook import OomHook
    from .oom._report import OomReport
    from .runtime._import_watcher import ImportWatcher
    from .runtime._session import EnvSession
    from .tuner._child import Probe
    from .tuner._offers import CellOffer, ProfileOffer
    from .tuner._result import SweepResult


class KernelState:
    """What the extension keeps for this kernel. Each slot is made by the module that owns its kind (named beside
    it) and is None until then."""

    def __init__(self) -> None:
        # Held while a slot is made (the session, the sampler): made once, whichever thread asks first.
        self.lock = threading.RLock()
        # `%load_ext` done (_magics.register), so loading twice installs nothing twice
        self.loaded = False
        # runtime: the import watcher, installed at `%load_ext`; the session the first magic makes on it
        self.watcher: ImportWatcher | None = None
        self.session: EnvSession | None = None
        # memory/_shared.py: the one sampler and its history
        self.sampler: Sampler | None = None
        # _cell_comm.py: every cell's memory record, and the cells' comm that sends each one
        self.cell_records: CellRecords | None = None
        # memory/_tracing.py: the recording of allocation sites
        self.tracer: Tracer | None = None
        # oom/_hook.py: the out-of-memory recorder and the listeners around each cell
        self.oom_hook: OomHook | None = None
        # oom/_report.py: the last report, and the free that gave its cell back (by the report's key)
        self.oom_reports: LastResult[OomReport] = LastResult("out-of-memory report")
        self.oom_freed: tuple[str, FreeResult] | None = None
        self.oom_follows_frees = False
        # oom/_free.py: every free, as it ends
        self.frees: LastResult[FreeResult] = LastResult("free")
        # cluster/_last_verify.py: the last verify() and when it was made
        self.verifies: LastResult[tuple[ClusterReport, float]] = LastResult("verify() result")
        # tuner: the last sweep, and what it offers the sidebars (tuner/_result.py, tuner/_offers.py)
        self.sweeps: LastResult[SweepResult] = LastResult("sweep")
        self.profile_offers: LastResult[ProfileOffer] = LastResult("sweep's profile offer")
        self.cell_offers: LastResult[CellOffer] = LastResult("sweep cell offer")
        # _sweep_magics.py: the cells in which a sweep ran, never replayed
        self.sweep_cells: set[int] = set()
        # tuner/_child.py: in a sweep's point kernel, the probe that measures its cells
        self.sweep_probe: Probe | None = None
        # _text.py: the language chosen by `%envlang` (set_language) and the one the front end said it speaks
        self.language: str | None = None
        self.front_end_language: str | None = None


_state = KernelState()


def kernel_state() -> KernelState:
    """This kernel's state."""
    return _state
