"""Real out-of-memory errors on the host, raised by the real PyTorch, JAX, Paddle, MegEngine, MXNet and TensorFlow in
their own venvs (tests/framework_checks/oom_host.py, a real IPython shell): each one is recognised and reported under
the normal traceback, which IPython still shows in full. TensorFlow's GPU texts, which the CPU wheel cannot raise, are
data (tests/data/oom/tensorflow_messages.json): every literal they rely on is checked to be in the installed wheel."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from setup_beside import venv

from framework_venvs import ROOT, Started, run, start

ANSI = re.compile(r"\x1b\[[0-9;]*m")
PIB = 1 << 50
TF_ERROR = "tensorflow.python.framework.errors_impl.ResourceExhaustedError"


# Started ahead, two at a time, while the tests run (tests/frameworks/conftest.py); TensorFlow's below.
SCENARIOS = [(framework, "oom_host.py", framework) for framework in ("torch", "jax", "paddle", "megengine", "mxnet")]
# TensorFlow's scenarios, started together by the first test that needs one: each is a process of its own, and most of
# their time is the BFC pool's 10 s wait for memory (below), which they then spend side by side.
# `oom_host.py tensorflow` is the one command of two tests (the host allocation's plain case, the BFC test as the
# machine has it): both read its one run, where each ran it once before.
TENSORFLOW_RUNS = [("tensorflow",), ("tensorflow", "cpu-allocator"), ("tensorflow", "xla"),
                   ("tensorflow", "onednn=0"), ("tensorflow", "onednn=1")]


@pytest.fixture(scope="module")
def tensorflow_runs() -> Iterator[dict[tuple[str, ...], Started]]:
    runs = {args: start("tensorflow", "oom_host.py", *args) for args in TENSORFLOW_RUNS}
    yield runs
    for started in runs.values():
        started.stop()


def scenario(request: pytest.FixtureRequest, framework: str, *args: str) -> dict:
    """oom_host.py's result for `framework` and `args`: TensorFlow's from the runs started together, others' now."""
    if framework == "tensorflow":
        return request.getfixturevalue("tensorflow_runs")[(framework, *args)].result()
    return run(framework, "oom_host.py", framework, *args)


@pytest.mark.parametrize("framework, variant, error, requested", [
    ("torch", "", "builtins.RuntimeError", PIB),
    ("jax", "", "jax.errors.JaxRuntimeError", PIB),
    ("paddle", "", "builtins.MemoryError", PIB),
    ("megengine", "", "megengine.core._imperative_rt.core2.AsyncError", PIB),  # its cause carries the allocator's error
    ("mxnet", "", "mxnet.base.MXNetError", None),  # "Failed to allocate CPU Memory" gives no size
    # TensorFlow: its size is the shape times the type's size (uint8, then float32 for 1 << 48 elements); XLA's message
    # names no device and gives the size itself
    ("tensorflow", "", TF_ERROR, PIB),
    ("tensorflow", "cpu-allocator", TF_ERROR, PIB),
    ("tensorflow", "xla", TF_ERROR, PIB),
])
def test_a_host_allocation_far_beyond_the_machine(request, framework, variant, error, requested):
    r = scenario(request, framework, *([variant] if variant else []))
    assert r["error"] == error
    traceback = ANSI.sub("", r["traceback"])
    assert "Traceback (most recent call last)" in traceback and error.rsplit(".", 1)[1] in traceback
    report = r["report"]
    assert report is not None, traceback
    event = report["event"]
    assert (event["framework"], event["device"], event["requested"]) == (framework, "host", requested)
    assert report["findings"][0]["cause"] == "host"
    assert report["host"]["total"] and report["host"]["kernel_rss"]
    assert "Verdict: host memory" in r["shown"] and r["oom_again"] == r["shown"]
    if requested is not None:
        assert "far beyond the machine" in report["findings"][0]["evidence"]


@pytest.mark.parametrize("onednn", ["", "0", "1"], ids=["as-the-machine-has-it", "onednn-off", "onednn-on"])
def test_tensorflow_on_the_cpu_raises_resource_exhausted_after_its_bfc_pool_waits_and_logs(request, onednn):
    """What TensorFlow 2.21 really does with an allocation past the machine on the CPU: no abort, no MemoryError, a
    ResourceExhaustedError whose message is op_kernel.cc's (device, allocator, shape, type). Which allocator depends on
    oneDNN, which TensorFlow turns on by itself only on CPUs with the instructions it wants (AVX-512 VNNI or BF16,
    AVX-VNNI, AMX; util.cc's IsMKLEnabled) and TF_ENABLE_ONEDNN_OPTS overrides. With oneDNN the allocator is its BFC
    pool ("mklcpu", sized to the machine's memory): it first waits up to 10 s for memory to be freed
    (BFCAllocator::AllocateRawInternalWithRetry, kMaxMillisToWait), and logs its own "Allocator (mklcpu) ran out of
    memory" with an allocation summary on stderr, outside the exception. Without it the plain CPU allocator ("cpu")
    fails at once. Each run asks TensorFlow which case applies and checks that one: as the machine has it, and with the
    variable at 0 and at 1, so both cases run on any CPU where TensorFlow can turn oneDNN on."""
    r = scenario(request, "tensorflow", *([f"onednn={onednn}"] if onednn else []))
    if onednn == "0":
        assert r["onednn"] is False
    elif onednn == "1" and not r["onednn"]:
        pytest.skip("TensorFlow keeps oneDNN off on this CPU even with TF_ENABLE_ONEDNN_OPTS=1")
    allocator = "mklcpu" if r["onednn"] else "cpu"
    assert re.fullmatch(r"\{\{function_node __wrapped__Fill_device_/job:localhost/replica:0/task:0/device:CPU:0\}\} "
                        r"OOM when allocating tensor with shape\[1125899906842624\] and type uint8 on "
                        rf"/job:localhost/replica:0/task:0/device:CPU:0 by allocator {allocator} \[Op:Fill\] name: ",
                        r["message"]), r["message"]
    pooled = any("Allocator (mklcpu) ran out of memory trying to allocate 1.00PiB" in line for line in r["logged"])
    assert pooled is r["onednn"], r["logged"]
    if r["onednn"]:
        assert r["seconds"] >= 9  # the pool's retry wait
    else:
        assert r["seconds"] < 9  # the plain allocator does not wait


def _tensorflow_libraries() -> list[Path]:
    found = sorted(venv("tensorflow").glob("lib/python*/site-packages/tensorflow/libtensorflow_*.so.2"))
    if not found:
        if os.environ.get("MGENV_REQUIRE_FRAMEWORKS"):
            pytest.fail("the tensorflow venv is missing: run ./dev setup")
        pytest.skip("tensorflow venv not set up (./dev setup)")
    return found


def test_tensorflows_gpu_texts_are_made_of_literals_the_installed_tensorflow_holds():
    """The GPU cases of tests/data/oom/tensorflow_messages.json are format strings from TensorFlow's source; the
    installed 2.21 wheel (CPU build, but the same framework library) holds each literal they are made of."""
    binary = b"".join(path.read_bytes() for path in _tensorflow_libraries())
    literals = ["OOM when allocating tensor with shape", " by allocator ", "OOM when allocating tensor of shape ",
                "OOM when allocating temporary tensor with shape", ") ran out of memory trying ", "_bfc",
                "Hint: If you want to see a list of allocated tensors when OOM happens, add "
                "report_tensor_allocations_upon_oom to RunOptions for current allocation info. This isn't available "
                "when running in Eager mode.", "memory while trying to allocate "]
    missing = [literal for literal in literals if literal.encode() not in binary]
    assert not missing
    data = json.loads((ROOT / "tests" / "data" / "oom" / "tensorflow_messages.json").read_text())
    gpu = [case["message"] for name, case in data["cases"].items() if name.startswith("gpu:")]
    assert all(any(literal in message for literal in literals[:4]) for message in gpu)
