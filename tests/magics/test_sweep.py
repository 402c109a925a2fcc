"""%%envsweep in a real IPython shell: its help, bad input refused with UsageError before anything runs (and nothing
changed), -o returning the SweepResult, which IPython shows as the sweep view; loading twice is harmless. With real
point kernels, it follows %envset's rules: secrets never shown, a code-loading variable warned of, --force carried to
`.apply()` (and %envdiff says the sweep set it); its result objects print as people read them, a `%%memtrace` cell is
replayed, an impossible point on a simulated GPU is never "ok"."""

from __future__ import annotations

import json
import os
import warnings

import pytest
from IPython.core.error import UsageError

from mgenv_jupyter.base._errors import CodeLoadingWarning
from mgenv_jupyter.sweeps._result import Choice, last_sweep


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


TOKENS = ("hf_" + "a" * 30 + "1", "hf_" + "b" * 30 + "2")


def test_secrets_are_masked_in_every_view_of_a_sweep_and_the_points_still_get_them(ip):
    line = f"-o HF_TOKEN={TOKENS[0]},{TOKENS[1]} --setup none"
    result = ip.run_cell_magic("envsweep", line, "import os\nheld = len(os.environ['HF_TOKEN'])")
    assert [p.outcome.value for p in result.points] == ["ok", "ok"]
    assert all(p.values_held for p in result.points)  # the kernels had the real tokens
    data, _ = ip.display_formatter.format(result)
    best = result.best
    shown = [repr(result), data["text/plain"], data["text/html"], data["image/svg+xml"], result.frame().to_string(),
             json.dumps(result.to_json()), str(best), repr(best), str(result.frame().to_dict())]
    for text in shown:
        assert not any(token in text for token in TOKENS), text[:300]
    assert best is not None and "********" in str(best)
    # the two points stay told apart
    assert len(set(result.frame()["HF_TOKEN"])) == 2


def test_code_loading_variables_warn_as_envset_does(ip):
    with pytest.warns(CodeLoadingWarning) as caught:
        result = ip.run_cell_magic("envsweep", "-o PYTHONPATH=/nonexistent/a LD_PRELOAD=/nonexistent/b.so "
                                   "--setup none", "x = 1")
    said = " ".join(str(w.message) for w in caught)
    assert "PYTHONPATH" in said and "LD_PRELOAD" in said
    assert result.points[0].kernel_values == {"PYTHONPATH": "/nonexistent/a", "LD_PRELOAD": "/nonexistent/b.so"}


def test_a_forced_sweep_applies_with_force_and_envdiff_names_the_sweep(ip):
    name = "MGE_DEFALT_DEVICE"  # a misspelt-looking name: %envset takes it only with --force
    result = ip.run_cell_magic("envsweep", f"-o {name}=cpu0,cpu1 --force --setup none", "x = 1")
    assert result.best is not None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result.apply()
        assert os.environ[name] == result.best.environment[name]
        diff = ip.run_line_magic("envdiff", "")
        assert diff.loc[name, "source"] == "sweep"
    finally:
        os.environ.pop(name, None)


def test_result_objects_print_as_people_read_them(ip):
    result = ip.run_cell_magic("envsweep", "-o SWEEP_PRINT_X=1,2 --setup none", "x = 1")
    best = str(result.best)
    assert best.startswith("SWEEP_PRINT_X=") and "ok" in best and "\n" not in best
    assert "timeline" not in best.lower() and "PointResult(" not in best
    assert str(result.choice) == "recommended: the fastest point within the budget"
    assert "Choice." not in repr(result.choice) and result.choice is Choice.FASTEST_WITHIN_BUDGET
    assert ip.display_formatter.format(result.best)[0]["text/plain"] == best


def test_a_memtrace_cell_is_replayed_as_the_code_it_ran(ip):
    ip.run_cell("%%memtrace\nbase_value = 21", store_history=True)
    number = ip.execution_count - 1
    assert ip.user_ns["base_value"] == 21
    result = ip.run_cell_magic("envsweep", f"-o SWEEP_TRACED_X=1,2 --setup {number}",
                               "y = base_value * int(__import__('os').environ['SWEEP_TRACED_X'])")
    assert [p.outcome.value for p in result.points] == ["ok", "ok"], [p.failure for p in result.points]
    assert result.setup.cells[0].code.strip() == "base_value = 21"


def test_a_point_peaking_above_its_simulated_device_is_out_of_memory_and_never_best(ip, tmp_path, monkeypatch):
    card = tmp_path / "small.json"
    card.write_text(json.dumps({"devices": [{"name": "NVIDIA Simulated 320MB", "total": "320MB", "kernel": "host"}]}))
    monkeypatch.setenv("MGENV_SIMULATE_GPU", str(card))
    result = ip.run_cell_magic(
        "envsweep", "-o SWEEP_MB=0,400 --setup none --budget 2GB",
        "import os\nx = bytearray(int(os.environ['SWEEP_MB']) * 2**20)\nimport time\ntime.sleep(0.5)")
    over = result.points[1]
    assert over.peak_device_bytes > over.device_total_bytes  # it really held more than the card has
    assert over.outcome.value == "oom" and over.failure is not None and over.failure.over_total
    assert result.best is not None and result.best.index == 0
    assert "peaked above the device's whole" in repr(result)


def test_a_secret_by_name_is_masked_where_the_cell_quotes_it(ip):
    """A value that is a secret only by its name (no token shape the probe would know): the sweep knows it, and
    masks it in what the point's cell printed and in its exception's message."""
    secrets = ("plain-words-one", "plain-words-two")
    result = ip.run_cell_magic("envsweep", f"-o MY_DB_PASSWORD={secrets[0]},{secrets[1]} --setup none",
                               "import os\nprint('using', os.environ['MY_DB_PASSWORD'])\n"
                               "raise ValueError('refused ' + os.environ['MY_DB_PASSWORD'])")
    for point in result.points:
        assert point.outcome.value == "error" and point.failure is not None
        assert "refused ********" in point.failure.message and "using ********" in point.printed
    everything = json.dumps(result.to_json()) + repr(result) + "".join(p.printed for p in result.points)
    assert not any(secret in everything for secret in secrets)
