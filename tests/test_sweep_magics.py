"""%%envsweep in a real IPython shell: its help, bad input refused with UsageError before anything runs (and nothing
changed), -o returning the SweepResult, which IPython shows as the sweep view; loading twice is harmless."""

from __future__ import annotations

import os

import pytest
from IPython.core.error import UsageError

from mgenv_jupyter.tuner._result import last_sweep


def test_the_magic_has_help(ip):
    help_text = ip.find_cell_magic("envsweep").__doc__
    assert "Measure this cell under several values" in help_text and "NAME=VALUE word" in help_text


@pytest.mark.parametrize("line, words", [
    ("FLAGS_allocator_strategy=auto_growth,fastest", "fastest"),
    ("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128", "repeat the name"),
    ("MGE_DEFALT_DEVICE=cpu0,cpu1", "did you mean"),
    ("X=1,2 --repeat 0", "repeat"),
    ("X=1,2 --budget lots", "budget"),
    ("X=1,2 --setup three", "--setup"),
    ("X=1,2 --kernel no-such-kernel", "kernelspec"),
    ("NOEQUALS", "NAME=VALUES"),
])
def test_bad_input_is_a_usage_error_and_starts_nothing(ip, line, words):
    before, environ = last_sweep(), dict(os.environ)
    with pytest.raises(UsageError, match=words):
        ip.run_cell_magic("envsweep", line, "x = 1")
    assert last_sweep() is before and dict(os.environ) == environ


def test_a_sweep_returns_its_result_with_o_and_ipython_shows_the_sweep_view(ip):
    result = ip.run_cell_magic("envsweep", "-o SWEEP_MAGIC_X=1,2 --setup none",
                               "import os\nvalue = int(os.environ['SWEEP_MAGIC_X']) * 2")
    assert result is last_sweep() and [p.outcome.value for p in result.points] == ["ok", "ok"]
    data, _ = ip.display_formatter.format(result)
    assert data["text/plain"].startswith("Sweep of SWEEP_MAGIC_X") and "<svg" in data["text/html"]
    assert ip.run_cell_magic("envsweep", "SWEEP_MAGIC_X=3 --setup none", "pass") is None  # without -o: shown only


def test_unloading_removes_the_magic_and_loading_again_brings_it_back(ip):
    ip.run_line_magic("unload_ext", "mgenv_jupyter")
    assert ip.find_cell_magic("envsweep") is None
    ip.run_line_magic("load_ext", "mgenv_jupyter")
    ip.run_line_magic("load_ext", "mgenv_jupyter")
    assert ip.find_cell_magic("envsweep") is not None
