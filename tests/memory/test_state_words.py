"""A memory source's state in the user's language (memory/_state_words.py): what the chart's status line shows."""

from __future__ import annotations

import re

import pytest

from mgenv_jupyter.memory._state_words import state_text

# Every state a source of ours writes (memory/*_source.py, framework_sources.py, the cluster's remote source), with
# the part that varies filled in.
STATES = [
    "not sampled yet",
    "not read yet",
    "paddle is not imported",
    "idle: GPUs are visible (host memory is the fallback)",
    "no NVIDIA driver (libnvidia-ml.so.1 not found)",
    "no NVIDIA driver (the driver is not loaded)",
    "NVML sees no GPU",
    "nvidia-ml-py is not installed (pip install nvidia-ml-py)",
    "NVML error: GPU is lost",
    "NVML error on gpu1: GPU is lost",
    "per-process memory unavailable (MIG or container PID namespace): MIG mode, NVML answers 'Not Supported' for "
    "the process list",
    "per-process memory unavailable (MIG or container PID namespace): NVML lists PIDs 4242, which do not exist in "
    "this kernel's namespace",
    "per-process memory unavailable (MIG or container PID namespace): MIG mode, and NVML lists no process for the "
    "full device",
    "per-process memory unavailable (the driver does not report it, as under Windows WDDM)",
    "host memory unavailable: PermissionError: /proc/meminfo",
    "megengine sees no GPU; its CPU device keeps no allocator statistics (get_allocated_memory('cpu0') is always 0)",
    "megengine's default device is cpu0, which has no GPU allocator",
    "CPU-only PaddlePaddle build: no GPU allocator statistics",
    "paddle sees no GPU",
    "mxnet sees no GPU (this MXNet build has no CUDA)",
    "torch has not initialised CUDA in this kernel yet",
    "jax has not started its backends yet (its first operation starts them)",
    "jax's cpu backend keeps no memory statistics (Device.memory_stats() is None)",
    "tensorflow has not initialised its runtime yet (its first operation does)",
    "waiting for the kernel to use gpu0, gpu1: reading torch's counters there now would create a CUDA context",
    "torch error: RuntimeError: CUDA error",
    "error: ValueError: bad",
    "lost: ConnectionError: the node died",
    "starting",
    "ended",
    "no data for 7 s",
]
# English left in a Chinese state may only be names: of sources, frameworks, devices, functions, and what an
# exception or the driver said (carried over as it is).
NAMES = {"paddle", "NVML", "NVIDIA", "nvidia", "ml", "py", "pip", "install", "libnvidia", "so", "MIG", "PID", "PIDs",
         "megengine",
         "get_allocated_memory", "cpu0", "PaddlePaddle", "mxnet", "MXNet", "CUDA", "torch", "jax", "cpu", "Device",
         "memory_stats", "None", "tensorflow", "gpu0", "gpu1", "GPU", "CPU", "Windows", "WDDM", "GPU is lost",
         "Not", "Supported", "PermissionError", "proc", "meminfo", "RuntimeError", "error", "ValueError", "bad",
         "ConnectionError", "the", "node", "died", "is", "lost"}


@pytest.mark.parametrize("state", STATES)
def test_every_state_of_ours_has_chinese_words(state):
    chinese = state_text(state, "zh")
    assert re.search("[\u4e00-\u9fff]", chinese), chinese
    left = set(re.findall(r"[A-Za-z_]\w*", chinese)) - NAMES
    assert not left, (state, chinese, left)
    assert state_text(state, "en") == state  # English is as the source wrote it


def test_an_ok_with_a_detail_gives_the_detail_and_parts_are_worded_one_by_one():
    assert state_text("ok: paddle holds no GPU memory yet", "en") == "paddle holds no GPU memory yet"
    assert state_text("ok: paddle holds no GPU memory yet", "zh") == "paddle 尚未占用 GPU 显存"
    assert state_text("ok", "zh") == "正常"
    both = state_text("gpu0: NVML error: lost; gpu1: NVML sees no GPU", "zh")
    assert both == "gpu0:NVML 出错:lost; gpu1:NVML 未发现 GPU"


def test_an_unknown_state_is_shown_as_written_and_long_text_is_cut():
    assert state_text("something new", "zh") == "something new"
    assert len(state_text("NVML error: " + "x" * 100_000, "zh")) < 700
