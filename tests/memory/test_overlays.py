"""The lines drawn over the memory chart (memory/overlays.py): each device's total, MegEngine's DTR eviction threshold
and Paddle's first-chunk cap, from the framework when it is loaded, else from what the kernel's session will hand it."""

from __future__ import annotations

from mgenv_jupyter.memory.fake_nvml import FakeDevice, FakeNvml
from mgenv_jupyter.memory.nvml_source import NvmlSource
from mgenv_jupyter.memory.sampler import Sampler

GiB = 1024**3


def test_dtr_threshold_and_paddle_cap_overlays_follow_the_session(fresh_session):
    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB", "MEGENGINE_DTR_AUTO_DROP": "1",
                       "FLAGS_allocator_strategy": "naive_best_fit", "FLAGS_fraction_of_gpu_memory_to_use": "0.5"})
    with FakeNvml([FakeDevice(total=40 * GiB), FakeDevice(total=16 * GiB)]):
        s = Sampler([NvmlSource()], session=fresh_session)
        s.sample_once()
        lines = {line.key: line for line in s.overlays}
        s.close()
    assert lines["dtr_threshold:*"].bytes == 5 * GiB and "environment" in lines["dtr_threshold:*"].note
    assert lines["paddle_cap:gpu0 (simulated)"].bytes == 20 * GiB
    assert lines["paddle_cap:gpu1 (simulated)"].bytes == 8 * GiB
    assert "naive_best_fit" in lines["paddle_cap:gpu0 (simulated)"].note
    assert lines["total:gpu1 (simulated)"].bytes == 16 * GiB


def test_no_paddle_cap_under_auto_growth_and_no_dtr_line_at_zero(fresh_session):
    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "0", "FLAGS_allocator_strategy": "auto_growth"})
    with FakeNvml([FakeDevice(total=40 * GiB)]):
        s = Sampler([NvmlSource()], session=fresh_session)
        s.sample_once()
        kinds = {line.kind for line in s.overlays}
        s.close()
    assert kinds == {"total"}
