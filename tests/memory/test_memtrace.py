"""Memtrace: starting and stopping the frameworks' recordings around cells of a real IPython shell. The recorder
here is a recorder of memtrace's own interface (`MemtraceRecorder`, as a memory source of one's own is any
`MemorySource`), whose blocks point into the shell's real cells; real JAX and PyTorch recorders are tested in
tests/frameworks/test_memtrace_real.py."""

from __future__ import annotations

from mgenv_jupyter.memory._memtrace import Memtrace, failure_sites, kernel_memtrace, unrecorded
from mgenv_jupyter.memory._memtrace_sites import CellNames
from mgenv_jupyter.runtime._memtrace import BlockRecord, Frame, LiveBlocks

MiB = 1 << 20


class Recorder:
    """Records every cell of the shell it watches: the block the cell's first line allocated (1 MiB a cell)."""

    framework = "jax"

    def __init__(self, shell) -> None:
        self.shell = shell
        self.started = 0
        self.kept: list[bool] = []
        self.live: list[LiveBlocks] = []

    def available(self) -> bool:
        return True

    def keep_on(self, on: bool) -> bool:
        self.kept.append(on)
        return on

    def start(self) -> None:
        self.started += 1

    def _record(self) -> BlockRecord:
        last = list(self.shell.compile._filename_map)[-1]
        self.live.append(LiveBlocks(MiB, 1, "cpu:0", (Frame(last, 1, "<module>"),)))
        return BlockRecord("jax", tuple(self.live), len(self.live) * MiB)

    def stop(self) -> BlockRecord:
        return self._record()

    def now(self) -> BlockRecord:
        return BlockRecord("jax", tuple(self.live), len(self.live) * MiB)


def test_memtrace_on_records_every_cell_and_off_stops(ip):
    recorder = Recorder(ip)
    memtrace = Memtrace(lambda: {"jax": recorder})
    assert memtrace.switch(ip, True) == {"jax": True}
    first = ip.run_cell("a = 1", store_history=True)
    assert recorder.started == 1 and memtrace.last is not None
    (site,) = memtrace.last.sites
    assert (site.cell, site.line, site.code) == (first.execution_count, 1, "a = 1")
    assert memtrace.switch(ip, False) == {"jax": False}
    ip.run_cell("b = 2", store_history=True)
    assert recorder.started == 1 and recorder.kept == [True, False]


def test_a_recording_already_open_is_one_recording(ip):
    recorder = Recorder(ip)
    memtrace = Memtrace(lambda: {"jax": recorder})
    memtrace.begin(5)
    memtrace.begin(6)  # a %%memtrace cell under %memtrace on
    assert recorder.started == 1 and memtrace.recording
    sites = memtrace.finish(CellNames(ip))
    assert sites is not None and sites.cell == 5 and not memtrace.recording
    assert memtrace.finish(CellNames(ip)) is None


def test_at_a_failure_the_open_recording_ends_there(ip):
    recorder = Recorder(ip)
    memtrace = Memtrace(lambda: {"jax": recorder})
    ip.run_cell("c = 3", store_history=True)
    memtrace.begin(7)
    sites = memtrace.at_failure(CellNames(ip), 7)
    assert sites is not None and sites.moment == "failure" and memtrace.last is sites and not memtrace.recording


def test_at_a_failure_without_a_recording_what_the_frameworks_keep_anyway(ip):
    recorder = Recorder(ip)
    memtrace = Memtrace(lambda: {"jax": recorder})
    empty = memtrace.at_failure(CellNames(ip), 3)  # the framework answers: nothing of it is live
    assert empty is not None and empty.sites == () and empty.frameworks == ("jax",)
    ip.run_cell("d = 4", store_history=True)
    recorder._record()
    sites = memtrace.at_failure(CellNames(ip), 3)
    assert sites is not None and sites.total == MiB and sites.cell == 3


def test_the_report_is_told_what_could_record(ip):
    sites, offer = failure_sites(ip, ip.execution_count)
    assert offer == ()  # neither JAX nor PyTorch is loaded in this test process
    assert kernel_memtrace(ip) is kernel_memtrace(ip)


def test_frameworks_that_keep_no_stacks_are_named_only_when_loaded():
    assert all(key in __import__("sys").modules for key, _ in unrecorded())
