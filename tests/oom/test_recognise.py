"""Out-of-memory errors are recognised from their classes and messages.

GPU-only errors cannot be raised on this machine, so they are tested as data: PyTorch's, JAX's and CuPy's are the REAL
errors captured on an H100 (tests/data/cuda_facts_h100.json: class, MRO and message verbatim), raised here through
stand-in classes built from the captured MRO (same module-qualified names, same bases); Paddle's, MegEngine's and
MXNet's are their source's own format strings (file paths cited beside each), filled in as the C++ would;
TensorFlow's are in tests/data/oom/tensorflow_messages.json (source files and commits there, GPU texts filled in from
them, host texts as TensorFlow 2.21 raised them). The CPU errors below are the real messages the frameworks raised in
their venvs (tests/frameworks/test_oom_real.py raises them for real).
"""

from __future__ import annotations

import builtins
import json
import re
from functools import partial
from pathlib import Path

import pytest
from framework_stand_ins import TensorFlowRuntime, install, tensorflow_modules

from mgenv_jupyter.oom._recognise import OutOfMemory, parse_size, recognise

DATA = Path(__file__).parents[1] / "data"
FACTS = json.loads((DATA / "cuda_facts_h100.json").read_text())
TENSORFLOW = json.loads((DATA / "oom" / "tensorflow_messages.json").read_text())
GiB = 1024**3


def stand_in(qualified: str, mro: list[str]) -> type[BaseException]:
    """A class named as the captured one (module and qualname), on the captured builtin base: a stand-in, labelled,
    for an exception this machine cannot raise."""
    module, _, name = qualified.rpartition(".")
    base = next(getattr(builtins, entry.split(".", 1)[1]) for entry in mro[1:] if entry.startswith("builtins."))
    return type(name, (base,), {"__module__": module})


def captured(case: str) -> BaseException:
    data = FACTS["cases"][case]
    return stand_in(data["type"], data["mro"])(data["message"])


def test_torch_gpu_oom_captured_on_an_h100_with_every_figure_its_message_gives():
    event = recognise(captured("torch: the GPU filled by many allocations"))
    assert event is not None
    assert (event.framework, event.device, event.gpu, event.exception) == ("torch", "gpu", 0, "torch.OutOfMemoryError")
    assert event.requested == 4 * GiB
    assert event.facts["total"] == int(79.18 * GiB) and event.facts["free"] == int(2.66 * GiB)
    assert event.facts["in_use"] == int(76.51 * GiB) and event.facts["allocated"] == 76 * GiB
    assert event.facts["cached_free"] == 0 and "allowed" not in event.facts


def test_torch_per_process_fraction_is_read_as_the_allowed_size():
    event = recognise(captured("torch: past the per-process memory fraction"))
    assert event is not None and event.facts["allowed"] == int(3.96 * GiB) and event.requested == 8 * GiB


@pytest.mark.parametrize("case, requested", [("jax: one allocation larger than the GPU", 1024 * GiB),
                                             ("jax: past XLA_PYTHON_CLIENT_MEM_FRACTION", 12 * GiB)])
def test_jax_gpu_oom_captured_on_an_h100(case, requested):
    event = recognise(captured(case))
    assert event is not None
    assert (event.framework, event.device, event.gpu, event.requested) == ("jax", "gpu", 0, requested)


# Paddle, from paddle/phi/core/memory/allocation/cuda_allocator.cc (CUDAAllocator::AllocateImpl):
#   "\n\nOut of memory error on GPU %d. Cannot allocate %s memory on GPU %d, %s memory has been allocated and available
#   memory is only %s.\n\nPlease check whether there is any other process using GPU %d.\n..." thrown as
#   ResourceExhausted through PADDLE_THROW_BAD_ALLOC, which Python sees as MemoryError with the "(ResourceExhausted)"
#   summary (as the CPU allocator's error shows in the paddle venv). Sizes come from string::HumanReadableSize.
PADDLE_GPU = ("(ResourceExhausted) \n\nOut of memory error on GPU 0. Cannot allocate 15.503906GB memory on GPU 0, "
              "28.770508GB memory has been allocated and available memory is only 10.815613GB.\n\n"
              "Please check whether there is any other process using GPU 0.\n"
              "1. If yes, please stop them, or start PaddlePaddle on another GPU.\n"
              "2. If no, please decrease the batch size of your model. \n\n"
              " (at /paddle/paddle/phi/core/memory/allocation/cuda_allocator.cc:84)\n")
# MegEngine v1.13.4, src/core/impl/comp_node/mem_alloc/impl.cpp (MemAllocImplHelper::do_alloc), MemAllocError; Python
# sees it as the RuntimeError cause of core2.AsyncError (imperative/python/src/tensor.cpp), as the CPU case shows.
MEGENGINE_GPU = ("out of memory while requesting 2147483648 bytes; you can try setting MGB_CUDA_RESERVE_MEMORY to "
                 "reserve all memory. If there are dynamic variables, you can also try enabling graph option "
                 "`enable_grad_var_static_reshape` so some gradient variables can be statically allocated")
# MXNet 1.9.1, src/storage/pooled_storage_manager.h:160 (GPUPooledStorageManager::Alloc), LOG(FATAL) << "cudaMalloc
# retry failed: " << cudaGetErrorString(e), as MXNetError with MXNet's own traceback header (as for the CPU case).
MXNET_GPU = ('Traceback (most recent call last):\n  File "../src/storage/./pooled_storage_manager.h", line 160\n'
             "MXNetError: cudaMalloc retry failed: out of memory")
MXNET_UNPOOLED = ('Traceback (most recent call last):\n  File "../src/storage/./gpu_device_storage.h", line 67\n'
                  "MXNetError: CUDA: out of memory")  # gpu_device_storage.h, MXNET_GPU_MEM_POOL_TYPE=Unpooled


def async_error(cause: BaseException) -> BaseException:
    outer = stand_in("megengine.core._imperative_rt.core2.AsyncError", ["x", "builtins.RuntimeError"])(
        "An async error is reported. See above for the actual cause.")
    outer.__cause__ = cause
    return outer


def test_paddle_gpu_oom_from_its_source_text():
    event = recognise(MemoryError(PADDLE_GPU))
    assert event is not None
    assert (event.framework, event.device, event.gpu) == ("paddle", "gpu", 0)
    assert event.requested == int(15.503906 * GiB) and event.facts["free"] == int(10.815613 * GiB)


def test_megengine_gpu_oom_is_found_behind_its_async_error():
    event = recognise(async_error(RuntimeError(MEGENGINE_GPU)))
    assert event is not None
    assert (event.framework, event.device, event.requested) == ("megengine", "gpu", 2 * GiB)
    assert event.exception == "builtins.RuntimeError"


@pytest.mark.parametrize("message", [MXNET_GPU, MXNET_UNPOOLED])
def test_mxnet_gpu_oom_from_its_source_text(message):
    error = stand_in("mxnet.base.MXNetError", ["x", "builtins.RuntimeError"])(message)
    event = recognise(error)
    assert event is not None and (event.framework, event.device, event.requested) == ("mxnet", "gpu", None)


# ---- TensorFlow: tests/data/oom/tensorflow_messages.json ------------------------------------------------------------

def tensorflow_error(message: str) -> BaseException:
    python = TENSORFLOW["python"]
    return stand_in(python["type"], python["mro"])(message)


@pytest.fixture
def no_tensorflow(monkeypatch):
    """No TensorFlow loaded: a message that names no device is the host's."""
    install(monkeypatch, {})


@pytest.mark.parametrize("case", sorted(TENSORFLOW["cases"]))
def test_tensorflow_oom_from_its_source_and_its_real_errors(case, no_tensorflow):
    data = TENSORFLOW["cases"][case]
    assert data["source"] in TENSORFLOW["sources"] or data.get("captured"), case
    event = recognise(tensorflow_error(data["message"]))
    assert event is not None
    assert (event.framework, event.device, event.gpu, event.requested) == (
        "tensorflow", data["device"], data["gpu"], data["requested"])
    assert event.exception == TENSORFLOW["python"]["type"]


def test_tensorflow_gpu_texts_are_its_host_texts_with_a_gpus_device_and_allocator():
    """The GPU cases differ from the captured host ones only where the C++ puts the device's and allocator's names."""
    cases = TENSORFLOW["cases"]
    host = cases["host: an eager op, oneDNN's BFC CPU allocator (the default)"]["message"]
    gpu = cases["gpu: an eager op past the GPU's BFC pool"]["message"]
    numbers = re.compile(r"shape\[[0-9,]*\] and type \w+")
    assert numbers.sub("S", host).replace("CPU:0", "GPU:0").replace("mklcpu", "GPU_0_bfc") == numbers.sub("S", gpu)
    graph_host = cases["host: a tf.function (graph error)"]["message"]
    graph_gpu = cases["gpu: a tf.function on the second GPU (graph error, node and hint)"]["message"]
    hint = graph_host[graph_host.index("\nHint:"):graph_host.index(" [Op:")]
    assert hint in graph_gpu and graph_gpu.startswith("Graph execution error:\n\nDetected at node ")


@pytest.mark.parametrize("gpus, device", [([(0, 0)], "gpu"), ([], "host")])
def test_a_tensorflow_message_without_a_device_is_where_tensorflow_runs_by_default(monkeypatch, gpus, device):
    """XLA's "Out of memory while trying to allocate 4.00PiB." names no device: a TensorFlow whose (initialised) context
    has a GPU runs there; the stand-in is TensorFlow 2.21's context and config (tests/framework_stand_ins.py)."""
    install(monkeypatch, tensorflow_modules(TensorFlowRuntime(gpus=gpus, initialised=True)))
    message = TENSORFLOW["cases"]["host: XLA (jit_compile=True), no device in the message"]["message"]
    event = recognise(tensorflow_error(message))
    assert event is not None and (event.device, event.requested) == (device, 4 << 50)


def test_a_tensorflow_context_not_started_is_not_started_by_asking(monkeypatch):
    runtime = TensorFlowRuntime(gpus=[(0, 0)], initialised=None)
    install(monkeypatch, tensorflow_modules(runtime))
    event = recognise(tensorflow_error("OOM when allocating temporary tensor with shape[1024]"))
    assert event is not None and event.device == "host" and runtime.initialised is None


def test_tensorflow_resource_exhausted_for_other_resources_is_not_out_of_memory(no_tensorflow):
    for message in ("Quota exceeded for user", "No space left on device", "Too many open files"):
        assert recognise(tensorflow_error(message)) is None, message
    # The BFC allocator's "ran out of memory" line is logged on stderr, never raised: as some other error's text it
    # is not TensorFlow's out-of-memory error
    assert recognise(RuntimeError(TENSORFLOW["logged_not_raised"]["captured"])) is None


@pytest.mark.parametrize("shape, dtype, requested", [
    ("[]", "float", 4), ("[0,5]", "double", 0), ("[3]", "string", None), ("[2,2]", "float8_e4m3fn", None),
    ("[" + ",".join(["2"] * 65) + "]", "float", None),
])
def test_tensorflow_sizes_from_shape_and_type(shape, dtype, requested, no_tensorflow):
    message = (f"OOM when allocating tensor with shape{shape} and type {dtype} on "
               "/job:localhost/replica:0/task:0/device:GPU:2 by allocator GPU_2_bfc")
    event = recognise(tensorflow_error(message))
    assert event is not None and (event.device, event.gpu, event.requested) == ("gpu", 2, requested)


# Raised for real in the venvs (1 << 50 bytes asked on CPU), kept here as data:
TORCH_CPU = ("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to "
             "allocate 1125899906842624 bytes. Error code 12 (Cannot allocate memory)")
JAX_CPU = "RESOURCE_EXHAUSTED: Out of memory allocating 1125899906842624 bytes."
PADDLE_CPU = ("(ResourceExhausted) Fail to alloc memory of 1125899906842624 size, error code is 12.\n  [Hint: Expected "
              "error == 0, but received error:12 != 0:0.] (at /paddle/paddle/phi/core/memory/allocation/"
              "cpu_allocator.cc:44)\n")
MEGENGINE_CPU = ("assertion `!err' failed at /home/code/src/core/impl/comp_node/cpu/comp_node.cpp:265: void* "
                 "mgb::CpuCompNode::CompNodeBaseImpl::mgb_aligned_alloc(size_t)\nextra message: failed to malloc "
                 "1125899906842624bytes with align 64\n")


def test_host_ooms_as_the_frameworks_raised_them_in_their_venvs():
    jax_error = stand_in("jax.errors.JaxRuntimeError", ["x", "builtins.RuntimeError"])
    mxnet_error = stand_in("mxnet.base.MXNetError", ["x", "builtins.RuntimeError"])
    cases = {
        "torch": RuntimeError(TORCH_CPU), "jax": jax_error(JAX_CPU), "paddle": MemoryError(PADDLE_CPU),
        "megengine": async_error(RuntimeError(MEGENGINE_CPU)),
        "mxnet": mxnet_error('  File "../src/storage/./cpu_device_storage.h", line 74\n'
                             "MXNetError: Failed to allocate CPU Memory"),
    }
    for framework, error in cases.items():
        event = recognise(error)
        assert event is not None, framework
        assert (event.framework, event.device) == (framework, "host"), framework
        if framework != "mxnet":
            assert event.requested == 1 << 50, framework


def test_a_plain_memory_error_is_python_on_the_host():
    assert recognise(MemoryError()) == OutOfMemory("python", "host", "builtins.MemoryError", "")


def test_other_errors_are_not_out_of_memory():
    jax_error = stand_in("jax.errors.JaxRuntimeError", ["x", "builtins.RuntimeError"])
    for error in (RuntimeError("CUDA error: an illegal memory access was encountered"), ValueError("out of memory"),
                  jax_error("INVALID_ARGUMENT: shapes do not match"), KeyboardInterrupt(),
                  RuntimeError("can't allocate memory")):
        assert recognise(error) is None, error


def test_a_cyclic_chain_ends():
    first, second = RuntimeError("a"), RuntimeError("b")
    first.__context__, second.__context__ = second, first
    assert recognise(first) is None


# ---- a message is outside input ------------------------------------------------------------------------------------

SECRET_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2"


def test_a_credential_in_the_message_is_masked_in_the_event_and_its_json():
    text = (f"out of memory while requesting 1024 bytes; token={SECRET_TOKEN} from postgres://u:hunter2@db/x "
            "and <script>alert(1)</script>")
    event = recognise(RuntimeError(text))
    assert event is not None and event.requested == 1024
    dumped = json.dumps(event.to_json())
    assert SECRET_TOKEN not in dumped and "hunter2" not in dumped and "********" in event.message
    assert "<script>" in event.message  # data: escaping is the presentation's business


def test_a_credential_cut_by_the_message_bound_is_masked_before_the_cut():
    text = "out of memory while requesting 1024 bytes " + "x" * 1940 + " " + SECRET_TOKEN  # straddles character 2000
    event = recognise(RuntimeError(text))
    assert event is not None and len(event.message) <= 2000
    assert "ghp_A1b2" not in event.message  # the token's start is not kept either


def test_absurd_numbers_in_a_message_give_no_figure_instead_of_an_error():
    assert parse_size("9" * 400 + " bytes") is None
    assert parse_size("1" * 5000) is None  # float("1"*5000) is inf
    event = recognise(RuntimeError("out of memory while requesting " + "9" * 400 + " bytes"))
    assert event is not None and event.framework == "megengine" and event.requested is None
    torch_like = type("OutOfMemoryError", (RuntimeError,), {"__module__": "torch"})
    message = ("CUDA out of memory. Tried to allocate 2.00 GiB. GPU " + "9" * 5000 + " has a total capacity of "
               "1.00 GiB of which 0 bytes is free.")
    event = recognise(torch_like(message))
    assert event is not None and event.gpu is None and event.requested == 2 * 1024**3


def test_a_huge_message_is_recognised_quickly_and_kept_bounded():
    import time

    started = time.perf_counter()
    event = recognise(RuntimeError("out of memory while requesting 8 bytes " + "ghp_" * 1_500_000))
    assert time.perf_counter() - started < 1.0
    assert event is not None and len(event.message) <= 2000


def _best_of(run, times: int = 5) -> float:
    import gc
    import time

    best = float("inf")
    gc.disable()
    try:
        for _ in range(times):
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
    finally:
        gc.enable()
    return best


def test_a_crafted_message_costs_linear_time_at_most():
    """Issue 19, finding 3: `RESOURCE_EXHAUSTED:.*(?:out of memory|GPU_(\\d+)_bfc)` took 3.9 s on a crafted 57 KB JAX
    error (1 MB: about 20 minutes), as did PyTorch's pattern on repeats of its head; a message 8× longer must cost
    less than a quadratic 64× more, and a crafted megabyte must still be recognised."""
    jax_error = stand_in("jax.errors.JaxRuntimeError", ["x", "builtins.RuntimeError"])
    torch_error = stand_in("torch.OutOfMemoryError", ["x", "builtins.RuntimeError"])
    head = ("out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 3.06 MiB "
            "is free. ")
    crafted = {
        "jax": lambda n: jax_error("RESOURCE_EXHAUSTED: " * (n // 20)),
        "torch": lambda n: torch_error(head * (n // len(head))),
    }
    for framework, make in crafted.items():
        small, large = make(8_000), make(64_000)
        assert _best_of(partial(recognise, large)) < 32 * _best_of(partial(recognise, small)), framework
    # A crafted megabyte: recognised from its start, as every framework writes its cause first; one that hides the
    # cause past the first 64 Ki characters is not taken for an out-of-memory error (the bound on the work).
    huge = jax_error("RESOURCE_EXHAUSTED: GPU_3_bfc ran out of memory; " + "RESOURCE_EXHAUSTED: " * 50_000)
    event = recognise(huge)
    assert event is not None and event.framework == "jax" and event.gpu == 3 and len(event.message) <= 2000
    assert recognise(jax_error("RESOURCE_EXHAUSTED: " * 50_000 + "GPU_3_bfc ran out of memory")) is None
    told = recognise(jax_error("RESOURCE_EXHAUSTED: while running; GPU_3_bfc ran out of memory"))
    assert told is not None and told.gpu == 3
