"""Each cell's memory to the front end: at `%load_ext` the kernel starts recording every cell's memory
(memory/_cell_records.py) and, in a Jupyter kernel, opens the cells' comm (protocol/_cells.py), on which each record
goes out as the cell finishes; the front end writes it into the cell's metadata. A leak is also said under the cell.
Routing only: the figures and the leak are the memory layer's, the words presentation's.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ..base._kernel_state import Slot

if TYPE_CHECKING:
    from ..memory._cell_records import CellRecord, CellRecords

log = logging.getLogger(__name__)

# Every cell's memory record, and the cells' comm that sends each one.
RECORDS: Slot[CellRecords] = Slot("the cells' records and their comm")


def _walk() -> Any:
    from ..memory._holders import memory_holders

    return memory_holders()


def _show_leak(record: CellRecord) -> None:
    from IPython.display import display

    from ..presentation._cell_records import LeakNote

    display(LeakNote(record))


def _sampler() -> Any:
    """The kernel's sampler as it is (asking `kernel_sampler()` at every cell would re-read the simulation's setting,
    importing its modules behind the user's back; and a paused recording is never restarted here)."""
    from ..memory._shared import kernel_sampler, made_sampler

    found = made_sampler()
    return found if found is not None else kernel_sampler()


def start(shell: Any) -> CellRecords:
    """Record every cell of `shell` and, in a kernel, send each record over the cells' comm; idempotent."""
    found = RECORDS.get()
    if found is not None:
        return found
    from ..memory._cell_records import CellRecords

    records = CellRecords(_sampler, _walk, _show_leak)
    records.register(shell)
    records.observe(_Sender(lambda: _open_comm(shell)))
    RECORDS.set(records)
    return records


def stop(shell: Any) -> None:
    records = RECORDS.take()
    if records is None:
        return
    records.unregister()
    for callback in list(getattr(records, "_observers", ())):
        if isinstance(callback, _Sender):
            callback.close()
        records.unobserve(callback)


class _Sender:
    """Sends each record on the cells' comm, opened now (so a front end that listens sees it before the first
    record) and again after a front end closed it: a client without our extension (nbclient, another editor)
    answers a comm it has no target for by closing it, for every front end."""

    def __init__(self, opener: Any) -> None:
        self._opener = opener
        self.comm: Any = None
        self._open()
        if self.comm is not None:  # what a record needs, now: nothing is imported behind the user's back later
            from ..presentation import _cell_records  # noqa: F401

    def _open(self) -> None:
        self.comm = self._opener()
        if self.comm is not None:
            self.comm.on_msg(_on_msg)
            self.comm.on_close(self._closed)

    def _closed(self, msg: Any = None) -> None:
        self.comm = None

    def __call__(self, record: CellRecord) -> None:
        if self.comm is None:
            self._open()
        if self.comm is None:  # outside a kernel
            return
        from ..presentation._cell_records import notice

        try:
            self.comm.send(notice(record))
        except Exception:  # a closed comm must not break the user's cell
            log.debug("mgenv_jupyter: the cells' comm could not send", exc_info=True)

    def close(self) -> None:
        comm, self.comm = self.comm, None
        try:
            if comm is not None:
                comm.close()
        except Exception:
            log.debug("mgenv_jupyter: the cells' comm could not close", exc_info=True)


def _on_msg(msg: Any) -> None:
    """A front end's hello: its language, for the leak note (protocol/_cells.py's CellsHello). Anything else, or a
    language we do not speak, is ignored: this comm changes nothing else."""
    from ..base._text import LANGUAGES, learn_language

    content = msg.get("content") if isinstance(msg, dict) else None
    data = content.get("data") if isinstance(content, dict) else None
    if isinstance(data, dict) and data.get("type") == "hello" and data.get("language") in LANGUAGES:
        learn_language(data["language"])


def _open_comm(shell: Any) -> Any:
    """The kernel's comm to the front ends for cell records (None outside a Jupyter kernel)."""
    if getattr(shell, "kernel", None) is None:
        return None
    from ..protocol._cells import CELL_MEMORY_VERSION, CELLS_TARGET

    try:
        from comm import create_comm

        return create_comm(target_name=CELLS_TARGET, data={"v": CELL_MEMORY_VERSION})
    except Exception:
        log.exception("mgenv_jupyter: the cells' comm could not open; cells' memory stays in the kernel")
        return None
