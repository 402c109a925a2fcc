"""Remedies: catalog values only, best first, through the session, and honest about restarts."""

from __future__ import annotations

import os
import sys
import types

import pytest

from mgenv_jupyter.oom.causes import Cause, Finding
from mgenv_jupyter.oom.recognise import OutOfMemory
from mgenv_jupyter.oom.remedies import remedies, restart_needed
from mgenv_jupyter.oom.state import DeviceFigures, MemoryState
from mgenv_jupyter.runtime import Status
from mgenv_jupyter.text import Text

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


def test_restart_when_the_failed_framework_has_read_it_and_has_no_live_api(fresh_session):
    # MXNet's pool type is read at its first GPU allocation, which the failure proves happened
    assert restart_needed(fresh_session, "MXNET_GPU_MEM_POOL_TYPE", "mxnet")
    assert fresh_session.state("MXNET_GPU_MEM_POOL_TYPE").status is Status.UNSET
    # a framework that has not read it yet will read the new value
    assert not restart_needed(fresh_session, "MXNET_GPU_MEM_POOL_TYPE", "torch")


def test_megengines_dtr_switches_apply_live_when_megengine_is_loaded(fresh_session, monkeypatch):
    assert restart_needed(fresh_session, "MEGENGINE_ENABLE_DROP", "megengine")  # not loaded: nothing to call
    options: dict[str, int] = {}
    core2 = types.ModuleType("megengine.core._imperative_rt.core2")  # stand-in with the real set/get_option API
    core2.set_option = options.__setitem__  # type: ignore[attr-defined]
    core2.get_option = options.__getitem__  # type: ignore[attr-defined]
    for name in ("megengine", "megengine.core", "megengine.core._imperative_rt"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "megengine.core._imperative_rt.core2", core2)
    assert not restart_needed(fresh_session, "MEGENGINE_ENABLE_DROP", "megengine")
