"""PyTorch's live APIs and latch probe (runtime/frameworks/_torch.py), against a stand-in module with torch 2.13's
names, parameters and behaviour (tests/framework_stand_ins.py, checked against the wheel): the allocator settings are
passed whole and normalised (torch re-parses the whole string), the thread count through torch.set_num_threads, the
compiler's config as attributes; CUDA's initialisation is asked, never caused. Real torch (CPU) is checked in
tests/frameworks/; the GPU side only here."""

from __future__ import annotations

import sys
import types

import pytest
from framework_stand_ins import TorchGpu, install, torch_modules

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.runtime.frameworks import latched, live_api, live_call


def entry(name: str):
    found = catalog().get(name)
    assert found is not None, name
    return found


@pytest.fixture
def fake_torch(monkeypatch):
    """torch as a CUDA build has it: _C._accelerator_{set,get}AllocatorSettings, set/get_num_threads,
    cuda.is_initialized."""
    gpu = TorchGpu()
    install(monkeypatch, torch_modules(gpu))
    return gpu


def test_the_allocator_settings_are_applied_whole_and_normalised(fake_torch):
    conf = entry("PYTORCH_ALLOC_CONF")
    api = live_api(conf)
    assert api is not None and api.survives_latch  # the allocator reads its settings at every allocation
    value = conf.type.parse("max_split_size_mb:128, expandable_segments:true").value
    api.apply(conf, value)
    assert fake_torch.settings == "expandable_segments:True,max_split_size_mb:128" == api.read(conf)
    assert api.call(conf, value) == \
        "torch._C._accelerator_setAllocatorSettings('expandable_segments:True,max_split_size_mb:128')"



def test_a_torch_without_the_settings_getter_is_changed_and_not_read_back(fake_torch, fresh_session):
    """torch 2.11 (seen on a real H100) has _accelerator_setAllocatorSettings but no getter: the change is made, the
    session says nothing about what torch holds, and the batch does not fail after the change went through."""
    del sys.modules["torch"]._C._accelerator_getAllocatorSettings
    report = fresh_session.set({"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:256"})
    assert fake_torch.settings == "max_split_size_mb:256"
    (change,) = report
    assert change.effective is None
    assert "_accelerator_setAllocatorSettings('max_split_size_mb:256')" in str(report)


def test_a_read_back_that_raises_leaves_the_change_made_and_said(fake_torch, fresh_session):
    """A framework that fails when asked what it now uses (here the getter raises) has still taken the change: the
    batch is not refused after the fact, and nothing escapes to the cell."""
    def broken() -> str:
        raise RuntimeError("allocator not ready")

    sys.modules["torch"]._C._accelerator_getAllocatorSettings = broken
    (change,) = fresh_session.set({"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:256"})
    assert fake_torch.settings == "max_split_size_mb:256" and change.effective is None

def test_threads_apply_through_set_num_threads(fake_torch):
    threads = entry("OMP_NUM_THREADS")
    api = live_api(threads)
    assert api is not None
    api.apply(threads, 3)
    assert fake_torch.threads == 3 and api.read(threads) == "3"
    assert live_call(threads, 3) == "torch.set_num_threads(3)"


def test_compiler_config_is_live_only_once_its_module_is_loaded(monkeypatch):
    autotune = entry("TORCHINDUCTOR_MAX_AUTOTUNE")
    monkeypatch.delitem(sys.modules, "torch._inductor.config", raising=False)
    assert live_api(autotune) is None
    config = types.ModuleType("torch._inductor.config")
    config.max_autotune = False  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch._inductor.config", config)
    api = live_api(autotune)
    assert api is not None
    api.apply(autotune, autotune.type.parse("1").value)
    assert config.max_autotune is True and api.read(autotune) == "True"  # type: ignore[attr-defined]
    assert api.call(autotune, True) == "torch._inductor.config.max_autotune = True"


def test_the_latch_is_cudas_initialisation(fake_torch, monkeypatch):
    conf = entry("PYTORCH_ALLOC_CONF")
    assert latched(conf) is False
    fake_torch.cuda_initialised = True
    assert latched(conf) is True
    monkeypatch.delitem(sys.modules, "torch")
    assert latched(conf) is None  # not loaded: cannot tell (and nothing is imported)
    assert "torch" not in sys.modules


def test_cuda_variables_are_latched_by_whichever_framework_initialised_cuda(fake_torch, monkeypatch):
    visible = entry("CUDA_VISIBLE_DEVICES")
    assert latched(visible) is False
    fake_torch.cuda_initialised = True
    assert latched(visible) is True
    fake_torch.cuda_initialised = False
    monkeypatch.setitem(sys.modules, "paddle", types.ModuleType("paddle"))
    assert latched(visible) is None  # Paddle cannot be asked without initialising CUDA itself

# ---- the CUDA memory snapshot read into live blocks ------------------------------------------------------------
# PyTorch's CUDA memory snapshot read into live blocks. No GPU here, so the snapshot is written by hand in the shape
# `torch.cuda.memory._snapshot()` returns and torch/cuda/_memory_viz.py reads (segments with their blocks' state,
# size, address and frames innermost first; device_traces with alloc / free_requested / free_completed events): what
# this tests is our reading of that documented shape, not PyTorch's output (tests/gpu does that on a lent GPU).

from mgenv_jupyter.runtime.frameworks._torch import snapshot_record  # noqa: E402

MiB = 1 << 20


def _frames(line: int) -> list[dict]:
    return [{"filename": "/site-packages/torch/nn/modules/linear.py", "line": 125, "name": "forward"},
            {"filename": "/tmp/ipykernel_1/123.py", "line": line, "name": "<module>"}]


SNAPSHOT = {
    "segments": [
        {"device": 0, "address": 0, "total_size": 64 * MiB, "blocks": [
            {"address": 0, "size": 2 * MiB, "requested_size": 2 * MiB, "state": "active_allocated",
             "frames": _frames(1)},  # alive before the history began: never in the trace
            {"address": 2 * MiB, "size": 4 * MiB, "state": "active_allocated", "frames": _frames(2)},
            {"address": 6 * MiB, "size": 16 * MiB, "state": "inactive", "frames": []},
        ]},
        {"device": 1, "address": 0, "total_size": 8 * MiB, "blocks": [
            {"address": 0, "size": 8 * MiB, "state": "active_pending_free", "frames": _frames(9)},
        ]},
    ],
    "device_traces": [
        [
            {"action": "segment_alloc", "addr": 0, "size": 64 * MiB, "frames": []},
            {"action": "alloc", "addr": 2 * MiB, "size": 4 * MiB, "frames": _frames(2)},
            {"action": "alloc", "addr": 6 * MiB, "size": 16 * MiB, "frames": _frames(3)},  # the temporary
            {"action": "free_requested", "addr": 6 * MiB, "size": 16 * MiB, "frames": _frames(3)},
            {"action": "free_completed", "addr": 6 * MiB, "size": 16 * MiB, "frames": _frames(3)},
        ],
        [],
    ],
}


def _lines(record) -> dict[int, int]:
    return {block.frames[-1].line: block.bytes for block in record.blocks}


def test_now_is_the_active_blocks():
    record = snapshot_record(SNAPSHOT, at_peak=False)
    assert record.framework == "torch" and record.total == 6 * MiB
    assert _lines(record) == {1: 2 * MiB, 2: 4 * MiB}
    assert {block.device for block in record.blocks} == {"gpu0"}
    assert record.blocks[0].frames[0].function == "forward"  # innermost first, as PyTorch gives them


def test_the_peak_replays_the_trace_with_what_was_alive_before_it():
    record = snapshot_record(SNAPSHOT, at_peak=True)
    assert _lines(record) == {1: 2 * MiB, 2: 4 * MiB, 3: 16 * MiB}
    assert record.total == 22 * MiB


def test_an_empty_or_partial_snapshot_is_nothing():
    assert snapshot_record({}, at_peak=True).blocks == ()
    assert snapshot_record({"segments": [{"blocks": [{"state": "active_allocated"}]}]}, at_peak=False).total == 0
