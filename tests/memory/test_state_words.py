"""A memory source's state, a code and its arguments, in the user's language (memory/_state_words.py): what the chart's
status line and legend show, chosen from the code."""

from __future__ import annotations

import re

import pytest

from mgenv_jupyter.base._source_state import FOREIGN_PIDS, PROBLEMS, STATE_OK, State, problems
from mgenv_jupyter.memory._state_words import WORDS, lead, state_text

UNAVAILABLE = "per-process memory unavailable (MIG or container PID namespace): "
# Every state a source of ours writes (memory/*_source.py, framework_sources.py, the adapters, the cluster's remote
# source), with the part that varies filled in, and its English words: the sentences the sources wrote before they
# wrote codes, word for word.
STATES = [
    (State("not_sampled"), "not sampled yet"),
    (State("not_read"), "not read yet"),
    (State("not_imported", framework="paddle"), "paddle is not imported"),
    (State("host_idle"), "idle: GPUs are visible (host memory is the fallback)"),
    (State("no_library"), "no NVIDIA driver (libnvidia-ml.so.1 not found)"),
    (State("driver_not_loaded"), "no NVIDIA driver (the driver is not loaded)"),
    (State("no_gpu"), "NVML sees no GPU"),
    (State("no_pynvml"), "nvidia-ml-py is not installed (pip install nvidia-ml-py)"),
    (State("nvml_error", error="GPU is lost"), "NVML error: GPU is lost"),
    (State("nvml_device_error", device="gpu1", error="GPU is lost"), "NVML error on gpu1: GPU is lost"),
    (State("mig_process_list_refused", answer="Not Supported"),
     UNAVAILABLE + "MIG mode, NVML answers 'Not Supported' for the process list"),
    (State("process_list_refused", answer="Insufficient Permissions"),
     UNAVAILABLE + "NVML answers 'Insufficient Permissions' for the process list"),
    (State(FOREIGN_PIDS, pids="4242"),
     UNAVAILABLE + "NVML lists PIDs 4242, which do not exist in this kernel's namespace"),
    (State("mig_no_process"), UNAVAILABLE + "MIG mode, and NVML lists no process for the full device"),
    (State("process_memory_unreported"),
     "per-process memory unavailable (the driver does not report it, as under Windows WDDM)"),
    (State("host_unavailable", error="PermissionError: /proc/meminfo"),
     "host memory unavailable: PermissionError: /proc/meminfo"),
    (State("cpu_only", framework="megengine"),
     "megengine sees no GPU; its CPU device keeps no allocator statistics (get_allocated_memory('cpu0') is always 0)"),
    (State("default_device_not_gpu", framework="megengine", device="cpu0"),
     "megengine's default device is cpu0, which has no GPU allocator"),
    (State("cpu_only_build"), "CPU-only PaddlePaddle build: no GPU allocator statistics"),
    (State("sees_no_gpu", framework="paddle"), "paddle sees no GPU"),
    (State("no_cuda_build", framework="mxnet"), "mxnet sees no GPU (this MXNet build has no CUDA)"),
    (State("cuda_not_initialised", framework="torch"), "torch has not initialised CUDA in this kernel yet"),
    (State("backends_not_started", framework="jax"),
     "jax has not started its backends yet (its first operation starts them)"),
    (State("no_memory_statistics", framework="jax", platforms="cpu"),
     "jax's cpu backend keeps no memory statistics (Device.memory_stats() is None)"),
    (State("runtime_not_initialised", framework="tensorflow"),
     "tensorflow has not initialised its runtime yet (its first operation does)"),
    (State("waiting_for_devices", framework="torch", devices="gpu0, gpu1"),
     "waiting for the kernel to use gpu0, gpu1: reading torch's counters there now would create a CUDA context"),
    (State("framework_error", framework="torch", error="RuntimeError: CUDA error"),
     "torch error: RuntimeError: CUDA error"),
    (State("source_error", error="ValueError: bad"), "error: ValueError: bad"),
    (State("lost", reason="ConnectionError: the node died"), "lost: ConnectionError: the node died"),
    (State("starting"), "starting"),
    (State("ended"), "ended"),
    (State("quiet", seconds="7"), "no data for 7 s"),
    (State("simulation_refused", error="no such preset"), "simulated GPU not started: no such preset"),
    (State("holds_nothing", framework="paddle"), "paddle holds no GPU memory yet"),
]
# English left in a Chinese state may only be names: of sources, frameworks, devices, functions, and what an
# exception or the driver said (carried over as it is).
NAMES = {"paddle", "NVML", "NVIDIA", "nvidia", "ml", "py", "pip", "install", "libnvidia", "so", "MIG", "PID", "PIDs",
         "megengine", "get_allocated_memory", "cpu0", "PaddlePaddle", "mxnet", "MXNet", "CUDA", "torch", "jax", "cpu",
         "Device", "memory_stats", "None", "tensorflow", "gpu0", "gpu1", "GPU", "CPU", "Windows", "WDDM", "is", "lost",
         "Not", "Supported", "Insufficient", "Permissions", "PermissionError", "proc", "meminfo", "RuntimeError",
         "error", "ValueError", "bad", "ConnectionError", "the", "node", "died", "no", "such", "preset"}


@pytest.mark.parametrize(("state", "english"), STATES, ids=[state.code for state, _ in STATES])
def test_every_state_of_ours_is_worded_from_its_code_in_english_and_chinese(state, english):
    assert state_text(state, "en") == english
    chinese = state_text(state, "zh")
    assert re.search("[\u4e00-\u9fff]", chinese), chinese
    left = set(re.findall(r"[A-Za-z_]\w*", chinese)) - NAMES
    assert not left, (state, chinese, left)


def test_every_code_has_the_same_blanks_in_both_languages():
    for code, text in WORDS.items():
        assert code.isidentifier(), code
        assert set(re.findall(r"{(\w+)}", text.en)) == set(re.findall(r"{(\w+)}", text.zh)), code


def test_the_words_after_the_sources_name_are_given_where_the_words_start_with_the_source():
    assert lead(State("sees_no_gpu", framework="paddle"), "en") == "sees no GPU"
    assert lead(State("sees_no_gpu", framework="paddle"), "zh") == "未发现 GPU"
    assert lead(State("holds_nothing", framework="paddle"), "zh") == "尚未占用 GPU 显存"
    assert lead(State("nvml_device_error", device="gpu0", error="GPU is lost"), "en") == "error on gpu0: GPU is lost"
    assert lead(State("host_unavailable", error="OSError"), "en") == "memory unavailable: OSError"
    assert lead(State("host_unavailable", error="OSError"), "zh") is None  # 无法读取主机内存: not the source first
    assert lead(State("no_library"), "en") is None and lead(STATE_OK, "en") is None
    assert lead(State("no_memory_statistics", framework="jax", platforms="cpu"), "en") is None  # "jax's"


def test_several_problems_are_worded_one_by_one_each_after_what_it_concerns():
    both = problems([State("nvml_device_error", device="gpu0", error="lost"), State("no_gpu").at("gpu1")])
    assert both.code == PROBLEMS and len(both.parts) == 2
    assert state_text(both, "en") == "NVML error on gpu0: lost; gpu1: NVML sees no GPU"
    assert state_text(both, "zh") == "NVML 在 gpu0 上出错:lost; gpu1:NVML 未发现 GPU"
    assert lead(both, "en") == "error on gpu0: lost; gpu1: NVML sees no GPU"
    assert problems([]) == STATE_OK and problems([State("no_gpu")] * 2) == State("no_gpu")
    assert both.has("no_gpu") and not both.has(FOREIGN_PIDS)


def test_an_unknown_code_is_shown_as_its_code_and_long_arguments_are_cut():
    assert state_text(State("something_new", detail="x"), "zh") == "something_new: x"
    assert len(state_text(State("nvml_error", error="x" * 100_000), "zh")) < 700
