"""Which kernel the report offers to shut down: only when another process is among the causes, only the largest
holder on the failing GPU, and only when that holder is another kernel of this server."""

from __future__ import annotations

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.memory._server_owners import NotebookOwner
from mgenv_jupyter.oom._causes import Cause, Finding
from mgenv_jupyter.oom._holder import kernel_holder
from mgenv_jupyter.oom._recognise import OutOfMemory
from mgenv_jupyter.oom._state import MemoryState, OtherProcess

GiB = 1024**3
EVENT = OutOfMemory("torch", "gpu", "torch.OutOfMemoryError", "CUDA out of memory.", gpu=0)
OTHER = Finding(Cause.OTHER_PROCESS, 0.85, Text("other processes hold it", "其他进程占用"))
TOO_BIG = Finding(Cause.TOO_BIG, 0.6, Text("too big", "太大"))
OWNER = NotebookOwner("k-b", ("b.ipynb",), "idle", 3600.0)


def state(*processes: OtherProcess) -> MemoryState:
    return MemoryState(processes=processes)


def test_the_largest_holder_on_the_failing_gpu_is_offered_when_it_is_a_kernel():
    kernel = OtherProcess(0, 101, 30 * GiB, "alice", "python", OWNER)
    stranger = OtherProcess(0, 102, 2 * GiB, "bob", "train")
    elsewhere = OtherProcess(1, 103, 39 * GiB, "alice", "python", NotebookOwner("k-c", ("c.ipynb",), "busy", None))
    assert kernel_holder([TOO_BIG, OTHER], state(stranger, kernel, elsewhere), EVENT) == kernel


def test_nothing_is_offered_without_the_cause_or_when_the_largest_is_no_kernel():
    kernel = OtherProcess(0, 101, 3 * GiB, "alice", "python", OWNER)
    stranger = OtherProcess(0, 102, 30 * GiB, "bob", "train")
    assert kernel_holder([OTHER], state(kernel, stranger), EVENT) is None
    assert kernel_holder([TOO_BIG], state(OtherProcess(0, 101, 30 * GiB, owner=OWNER)), EVENT) is None
    assert kernel_holder([OTHER], state(), EVENT) is None
