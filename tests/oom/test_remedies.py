"""Remedies: catalog values only, best first, through the session, and saying what the session will say of them once
set (restart or not): its own decision, asked ahead."""

from __future__ import annotations

import os
import sys
import types
import warnings

import pytest
from framework_stand_ins import TorchGpu, install, torch_modules

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.oom._causes import Cause, Finding
from mgenv_jupyter.oom._recognise import OutOfMemory
from mgenv_jupyter.oom._remedies import remedies, status_after
from mgenv_jupyter.oom._state import DeviceFigures, MemoryState
from mgenv_jupyter.runtime import Status

GiB = 1024**3
STATE = MemoryState((DeviceFigures("gpu0", 0, 40 * GiB, 38 * GiB, 30 * GiB),
                     DeviceFigures("gpu1", 1, 40 * GiB, 1 * GiB, 0)))


def for_cause(session, framework: str, cause: Cause, state: MemoryState = STATE):
    event = OutOfMemory(framework, "gpu", "x.Error", "", 0, 2 * GiB)
    return remedies(event, [Finding(cause, 0.9, Text("", ""))], state, session)


@pytest.mark.parametrize("framework, cause, first", [
    ("torch", Cause.FRAGMENTATION, ("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")),
    ("mxnet", Cause.FRAGMENTATION, ("MXNET_GPU_MEM_POOL_TYPE", "Round")),
    ("tensorflow", Cause.FRAGMENTATION, ("TF_GPU_ALLOCATOR", "cuda_malloc_async")),
    ("jax", Cause.CAP, ("XLA_PYTHON_CLIENT_MEM_FRACTION", "0.76")),  # 95% of the 32 GiB others leave of 40
    ("paddle", Cause.CAP, ("FLAGS_fraction_of_gpu_memory_to_use", "0.95")),
    ("tensorflow", Cause.CAP, ("TF_FORCE_GPU_ALLOW_GROWTH", "true")),
    ("megengine", Cause.DTR_OFF, ("MEGENGINE_ENABLE_DROP", "1")),
    ("torch", Cause.OTHER_PROCESS, ("CUDA_DEVICE_ORDER", "PCI_BUS_ID")),
])
def test_each_cause_and_framework_gets_its_catalog_remedy(fresh_session, framework, cause, first):
    chosen = for_cause(fresh_session, framework, cause)
    assert chosen and chosen[0].assignments[0] == first and chosen[0].cause is cause


def test_no_remedy_without_a_catalog_setting_for_it(fresh_session):
    assert for_cause(fresh_session, "torch", Cause.TOO_BIG) == []
    one_gpu = MemoryState(STATE.devices[:1])
    assert for_cause(fresh_session, "torch", Cause.OTHER_PROCESS, one_gpu) == []


def test_the_allocator_config_keeps_what_is_set_and_is_not_offered_twice(fresh_session):
    fresh_session.set({"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:128"})
    (remedy,) = for_cause(fresh_session, "torch", Cause.FRAGMENTATION)
    assert dict(remedy.assignments)["PYTORCH_CUDA_ALLOC_CONF"] == "expandable_segments:True,max_split_size_mb:128"
    remedy.apply(fresh_session)
    assert for_cause(fresh_session, "torch", Cause.FRAGMENTATION) == []


def test_the_name_already_in_use_is_the_one_extended(fresh_session):
    fresh_session.set({"PYTORCH_ALLOC_CONF": "max_split_size_mb:128"})
    (remedy,) = for_cause(fresh_session, "torch", Cause.FRAGMENTATION)
    assert remedy.assignments[0][0] == "PYTORCH_ALLOC_CONF"  # the other name with it would be refused together


def test_applying_goes_through_the_session_and_its_history(fresh_session):
    (remedy,) = for_cause(fresh_session, "mxnet", Cause.FRAGMENTATION)
    report = remedy.apply(fresh_session)
    assert os.environ["MXNET_GPU_MEM_POOL_TYPE"] == "Round"
    assert fresh_session.history[-1].name == "MXNET_GPU_MEM_POOL_TYPE" and report["MXNET_GPU_MEM_POOL_TYPE"]
    assert remedy.envset == "%envset MXNET_GPU_MEM_POOL_TYPE=Round"


# ---- what a remedy says about taking effect is what the session will say ------------------------------------------

REMEDY_VALUES = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "CUDA_VISIBLE_DEVICES": "1",
                 "CUDA_DEVICE_ORDER": "PCI_BUS_ID", "MXNET_GPU_MEM_POOL_TYPE": "Round",
                 "TF_GPU_ALLOCATOR": "cuda_malloc_async", "TF_FORCE_GPU_ALLOW_GROWTH": "true",
                 "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.50", "FLAGS_allocator_strategy": "auto_growth",
                 "MEGENGINE_ENABLE_DROP": "1"}


def megengine_stand_in(monkeypatch) -> None:
    """megengine.core._imperative_rt.core2 with the real set_option/get_option, and megengine.dtr's enable(),
    disable() and eviction_threshold setting those options as megengine/dtr/dtr.py does (megengine venv): MegEngine's
    live DTR switches."""
    options: dict[str, int] = {}
    core2 = types.ModuleType("megengine.core._imperative_rt.core2")
    core2.set_option = options.__setitem__  # type: ignore[attr-defined]
    core2.get_option = options.__getitem__  # type: ignore[attr-defined]

    class Dtr:
        def enable(self) -> None:
            options.update(enable_dtr_auto_drop=1, enable_drop=1, record_computing_path=1)

        def disable(self) -> None:
            options.update(enable_dtr_auto_drop=0, enable_drop=0, record_computing_path=0)

        @property
        def eviction_threshold(self) -> int:
            return options.get("dtr_eviction_threshold", 0)

        @eviction_threshold.setter
        def eviction_threshold(self, value: int) -> None:
            options["dtr_eviction_threshold"] = value

    for name in ("megengine", "megengine.core", "megengine.core._imperative_rt"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "megengine.core._imperative_rt.core2", core2)
    sys.modules["megengine"].dtr = Dtr()  # type: ignore[attr-defined]


@pytest.mark.parametrize("cuda", ["not loaded", False, True, None])
def test_each_remedy_variable_gets_the_status_setting_it_then_gets(request, monkeypatch, cuda):
    """`status_after` asks the session's one decision before the change; setting the variable through the session
    then records that very status, and %envdiff/%envget read it back: for PyTorch not loaded, loaded with CUDA not
    initialised, initialised, and a probe that cannot tell (stand-ins: tests/framework_stand_ins.py)."""
    if cuda != "not loaded":
        install(monkeypatch, torch_modules(TorchGpu(cuda_initialised=cuda)))
    session = request.getfixturevalue("fresh_session")  # after the stand-in: the watcher sees torch as imported
    for name, value in REMEDY_VALUES.items():
        (predicted,) = status_after(session, ((name, value),)).values()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (change,) = session.set({name: value})
        assert change.outcome is predicted, name
        assert session.state(name).status is predicted, name
        session.unset([name])


def test_a_remedy_needs_a_restart_exactly_when_the_session_says_so(request, monkeypatch):
    install(monkeypatch, torch_modules(TorchGpu(cuda_initialised=False)))
    session = request.getfixturevalue("fresh_session")
    (move,) = for_cause(session, "torch", Cause.OTHER_PROCESS)
    # CUDA is not initialised: the devices are read at the first use, which has not happened (the old report said
    # "needs a restart" here while the session said "takes effect at first use")
    assert dict(move.statuses) == {"CUDA_DEVICE_ORDER": Status.PENDING_FIRST_USE,
                                   "CUDA_VISIBLE_DEVICES": Status.PENDING_FIRST_USE}
    assert not move.restart and move.when.en == "takes effect at first use"
    sys.modules["torch"].cuda.is_initialized = lambda: True
    (move,) = for_cause(session, "torch", Cause.OTHER_PROCESS)
    assert move.status is Status.ALREADY_READ and move.restart
    assert move.to_json()["statuses"] == {"CUDA_DEVICE_ORDER": "already_read", "CUDA_VISIBLE_DEVICES": "already_read"}


def test_a_framework_not_loaded_reads_the_remedy_when_it_is(fresh_session):
    (pool,) = for_cause(fresh_session, "mxnet", Cause.FRAGMENTATION)
    assert pool.status is Status.PENDING_FIRST_USE and not pool.restart
    assert fresh_session.state("MXNET_GPU_MEM_POOL_TYPE").status is Status.UNSET


def test_megengines_dtr_switches_are_read_at_its_import_when_it_is_not_loaded(fresh_session):
    (dtr,) = for_cause(fresh_session, "megengine", Cause.DTR_OFF)
    assert dtr.status is Status.PENDING_IMPORT and not dtr.restart


def test_megengines_dtr_switches_apply_live_when_megengine_is_loaded(request, monkeypatch):
    megengine_stand_in(monkeypatch)
    session = request.getfixturevalue("fresh_session")  # after the stand-in: the watcher sees megengine as imported
    (live,) = for_cause(session, "megengine", Cause.DTR_OFF)
    statuses = dict(live.statuses)
    assert statuses["MEGENGINE_ENABLE_DROP"] is Status.APPLIED_LIVE and not live.restart
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = live.apply(session)
    assert {change.name: change.outcome for change in report} == statuses


def test_the_allocator_config_is_read_as_the_catalog_reads_it_lists_included(fresh_session):
    """The current config is split by the catalog's KeyValueConfig (PyTorch's tokenizer's rules), so a list value
    with commas in it stays whole (a comma split cut it into pieces the session would then refuse)."""
    fresh_session.set({"PYTORCH_CUDA_ALLOC_CONF": "roundup_power2_divisions:[256:1,512:2],max_split_size_mb:128"})
    (remedy,) = for_cause(fresh_session, "torch", Cause.FRAGMENTATION)
    config = dict(remedy.assignments)["PYTORCH_CUDA_ALLOC_CONF"]
    assert "roundup_power2_divisions:[256:1,512:2]" in config and "expandable_segments:True" in config
