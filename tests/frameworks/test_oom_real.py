"""Real out-of-memory errors on the host, raised by the real PyTorch, JAX, Paddle, MegEngine and MXNet in their own
venvs (tests/framework_checks/oom_host.py, a real IPython shell): each one is recognised and reported under the
normal traceback, which IPython still shows in full."""

from __future__ import annotations

import re

import pytest

from framework_venvs import run

ANSI = re.compile(r"\x1b\[[0-9;]*m")
PIB = 1 << 50


@pytest.mark.parametrize("framework, error, requested", [
    ("torch", "builtins.RuntimeError", PIB),
    ("jax", "jax.errors.JaxRuntimeError", PIB),
    ("paddle", "builtins.MemoryError", PIB),
    ("megengine", "megengine.core._imperative_rt.core2.AsyncError", PIB),  # its cause carries the allocator's error
    ("mxnet", "mxnet.base.MXNetError", None),  # "Failed to allocate CPU Memory" gives no size
])
def test_a_host_allocation_far_beyond_the_machine(framework, error, requested):
    r = run(framework, "oom_host.py", framework)
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
