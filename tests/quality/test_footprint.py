"""What loading costs a kernel (issue 21): `import mgenv_jupyter` and `%load_ext mgenv_jupyter` in a fresh, real
IPython shell import neither numpy nor pandas, the only thread loading starts is the memory sampler's, and nothing is
imported behind the user's back afterwards (the sampler's thread ticks, a cell runs, no module appears). Loading
builds no catalog: the first magic does, and works. Without a simulated GPU asked for, none of the simulation is
imported: only the question whether the server keeps a simulated machine.

The timings and memory of the same are in bench/footprint_bench.py and bench/RESULTS.md, not asserted here."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

SCRIPT = r"""
import json, os, sys, threading, time

import mgenv_jupyter

heavy = ("numpy", "pandas")
result = {"after_import": [m for m in heavy if m in sys.modules]}

from IPython.core.interactiveshell import InteractiveShell

ip = InteractiveShell.instance()
ip.run_cell("warm = 1")  # IPython's own first-cell imports happen before we look
threads = {t.ident for t in threading.enumerate()}
ip.run_line_magic("load_ext", "mgenv_jupyter")
loaded = set(sys.modules)
result["after_load"] = [m for m in heavy if m in sys.modules]
result["threads_started"] = sorted(t.name for t in threading.enumerate() if t.ident not in threads)
result["simulation"] = sorted(m for m in sys.modules if m.startswith("mgenv_jupyter.memory.simulated."))
result["magic"] = "envset" in ip.magics_manager.magics["line"]
ip.run_cell("x = 2")
# Until the sampler's thread has ticked for over a second, so it has passed twice over every source (once a second).
# The sampler %load_ext started, read without kernel_sampler(), whose call would import what it follows.
sampler = sys.modules["mgenv_jupyter.memory._shared"].made_sampler()
deadline = time.monotonic() + 60
while sampler.history.count < 2 + 1.0 / sampler.interval:
    assert time.monotonic() < deadline, "the sampler did not tick"
    time.sleep(0.05)
result["imported_later"] = sorted(set(sys.modules) - loaded)
result["sampled"] = mgenv_jupyter.memory.kernel_sampler().history.count
result["catalog_built"] = mgenv_jupyter.catalog.catalog.cache_info().currsize
ip.run_line_magic("envset", "MGE_DEFAULT_DEVICE=gpu0")
result["envset"] = [os.environ.get("MGE_DEFAULT_DEVICE"), mgenv_jupyter.catalog.catalog.cache_info().currsize]
print(json.dumps(result))
"""


@pytest.mark.parametrize("gpu", ["", "a100-40gb"], ids=["no GPU", "simulated GPU"])
def test_loading_imports_neither_numpy_nor_pandas_and_starts_only_the_sampler(gpu: str) -> None:
    env = {**os.environ, "MGENV_SIMULATE_GPU": gpu}
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["after_import"] == [] and result["after_load"] == []
    assert result["magic"]
    assert result["threads_started"] == ["mgenv-memory-sampler"]
    if not gpu:  # issue 36: the shared machine (secrets, hmac, tempfile) was imported to ask whether one is defined
        assert result["simulation"] == ["mgenv_jupyter.memory.simulated._machine_file"]
    assert result["imported_later"] == []
    assert result["sampled"] >= 2  # the sampler did run while we watched for imports
    assert result["catalog_built"] == 0 and result["envset"] == ["gpu0", 1]
