"""Out-of-memory reports for the view's tests (tests/presentation/oom): a fragmentation failure on a simulated GPU,
its timeline built as the sampler records the series."""

from __future__ import annotations

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.oom._causes import Cause, Finding
from mgenv_jupyter.oom._recognise import OutOfMemory
from mgenv_jupyter.oom._remedies import Remedy
from mgenv_jupyter.oom._report import OomReport, Timeline
from mgenv_jupyter.oom._state import DeviceFigures, MemoryState, OtherProcess
from mgenv_jupyter.protocol import SeriesInfo

GiB = 1024**3
# The series as the sampler records it when the simulated GPU's NVML source first reports it (Sampler.series_info):
# the report carries it, so the view never parses the key.
SERIES: SeriesInfo = {"key": "gpu0 (simulated) process", "device": "gpu0", "framework": None, "quantity": "process",
                      "source": "nvml (simulated)", "simulated": True, "node": None}


def gpu_timeline(*fields, **named) -> Timeline:
    return Timeline(SERIES["key"], *fields, info=SERIES, **named)


def report(timeline: Timeline | None = None, failed_at: float = 3.0) -> OomReport:
    event = OutOfMemory("torch", "gpu", "torch.OutOfMemoryError", "...", 0, 2 * GiB,
                        {"allocated": 21 * GiB, "cached_free": 16 * GiB})
    state = MemoryState((DeviceFigures("gpu0 (simulated)", 0, 40 * GiB, 39 * GiB, 38 * GiB, simulated=True),),
                        (OtherProcess(0, 77, GiB, None, None),)).with_error(event.gpu, event.facts)
    if timeline is None:
        timeline = gpu_timeline((1.0, 2.0, 3.0), (2 * GiB, 20 * GiB, 38 * GiB), 7, 2.0,
                            ((5, 2 * GiB), (6, 3 * GiB)))
    finding = Finding(Cause.FRAGMENTATION, 0.9, Text("16 GiB reserved <unallocated>", "预留 16 GiB"))
    remedy = Remedy(Cause.FRAGMENTATION, (("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"),),
                    Text("growable segments", "可增长的显存段"), restart=False, caveat=Text("a caveat", "注意事项"))
    return OomReport(event, failed_at, state, timeline, (finding,), (remedy,), 0.012)
