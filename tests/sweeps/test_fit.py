"""The largest-fit search's input, in a real IPython shell and through `sweep(...)`: bad input is refused before
anything starts (no kernel, no result, the environment unchanged), saying what is allowed; and the candidates a range
describes, a number inside an allocator config included."""

from __future__ import annotations

import os

import pytest
from IPython.core.error import UsageError

from mgenv_jupyter import InvalidValueError, sweep
from mgenv_jupyter.sweeps._fit import candidates, checked_margin
from mgenv_jupyter.sweeps._result import last_sweep


@pytest.mark.parametrize("line, words", [
    ("FIT_N=100..1 --largest-fit --budget 600MB", "above HIGH"),
    ("FIT_N=a..b --largest-fit --budget 600MB", "must be numbers"),
    ("FIT_N=1..x --largest-fit --budget 600MB", "must be numbers"),
    ("FIT_N=-5..10 --largest-fit --budget 600MB", "without a sign"),
    ("FIT_N=big --largest-fit --budget 600MB", "LOW..HIGH"),
    ("FIT_N=1..2..3 --largest-fit --budget 600MB", "LOW..HIGH"),
    ("FIT_N=1..10 --largest-fit --margin 100%", "margin"),
    ("FIT_N=1..10 --largest-fit --margin -5%", "margin"),
    ("FIT_N=1..10 --largest-fit --margin lots", "margin"),
    ("FIT_N=1..10 --largest-fit --budget lots", "budget"),
    ("FIT_N=1..10 FIT_M=1..10 --largest-fit", "one variable"),
    ("FIT_N=1..10 --largest-fit --together", "--together"),
    ("FIT_N=1,2 --margin 10%", "largest-fit"),
    ("MEGENGINE_DTR_EVICTION_THRESHOLD=1..x --largest-fit", "must be numbers"),
    ("XLA_PYTHON_CLIENT_MEM_FRACTION=0.5..1.5 --largest-fit", "XLA_PYTHON_CLIENT_MEM_FRACTION"),
    ("PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:1..64 --largest-fit", "max_split_size_mb"),
])
def test_bad_input_is_refused_before_anything_starts(ip, line, words):
    before, environ = last_sweep(), dict(os.environ)
    with pytest.raises(UsageError, match=words):
        ip.run_cell_magic("envsweep", line, "x = 1")
    assert last_sweep() is before and dict(os.environ) == environ


def test_no_budget_known_is_refused(fresh_session, monkeypatch):
    """Without a GPU and without the host's memory there is nothing to fit into: refused unless a budget is given."""
    from mgenv_jupyter.sweeps import _fit

    monkeypatch.setenv("MGENV_SIMULATE_GPU", "no-driver")
    monkeypatch.setattr(_fit, "_host_total", lambda: None)  # a /proc that cannot be read (containers without it)
    before = last_sweep()
    with pytest.raises(InvalidValueError, match="no budget is known"):
        sweep("x = 1", {"FIT_N": range(1, 11)}, setup="", search="largest_fit")
    with pytest.raises(InvalidValueError, match="search must be"):
        sweep("x = 1", {"FIT_N": range(1, 11)}, setup="", search="biggest")
    with pytest.raises(InvalidValueError, match="above HIGH"):
        sweep("x = 1", {"FIT_N": range(10, 1)}, setup="", search="largest_fit", budget="1GB")
    with pytest.raises(InvalidValueError, match="increasing"):
        sweep("x = 1", {"FIT_N": [4, 2, 1]}, setup="", search="largest_fit", budget="1GB")
    assert last_sweep() is before


def test_candidates_a_range_describes():
    whole = candidates("N", "1..1024")
    assert len(whole) == 1024 and whole.text(0) == "1" and whole.text(1023) == "1024"
    fraction = candidates("XLA_PYTHON_CLIENT_MEM_FRACTION", "0.50..0.95")
    assert len(fraction) == 46 and fraction.text(0) == "0.50" and fraction.text(45) == "0.95"
    inside = candidates("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:False,max_split_size_mb:64..1024")
    assert inside.text(0) == "expandable_segments:False,max_split_size_mb:64"
    assert inside.text(len(inside) - 1) == "expandable_segments:False,max_split_size_mb:1024"
    assert candidates("N", range(8, 65)).text(56) == "64"
    assert [candidates("N", [1, 2, 4]).text(i) for i in range(3)] == ["1", "2", "4"]
    assert checked_margin("10%") == pytest.approx(0.1) and checked_margin(0.25) == 0.25 and checked_margin(None) == 0.1


@pytest.mark.parametrize("name, given, first, last", [
    ("MEGENGINE_DTR_EVICTION_THRESHOLD", "1GB..8GB", str(1024**3), str(8 * 1024**3)),
    ("MEGENGINE_DTR_EVICTION_THRESHOLD", "1..8GB", str(1024**3), str(8 * 1024**3)),
    ("XLA_PYTHON_CLIENT_MEM_FRACTION", "0.50..0.95", "0.50", "0.95"),
    ("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True,max_split_size_mb:64..1024",
     "expandable_segments:True,max_split_size_mb:64", "expandable_segments:True,max_split_size_mb:1024"),
])
def test_the_frameworks_settings_are_searched_as_envset_writes_them(fresh_session, name, given, first, last):
    """Each probe's value goes through the catalog as `%envset` checks it: the DTR threshold in bytes, the fraction
    as given, the split size inside the allocator config's option string."""
    from mgenv_jupyter.sweeps._fit import _normalised

    found = candidates(name, given)
    ends = [_normalised(fresh_session, name, found.text(i), "api", False) for i in (0, len(found) - 1)]
    assert ends == [first, last]


def _probe(index, value, outcome="ok", peak=100 * 2**20, signal=None, kind=None):
    from mgenv_jupyter.sweeps._point import Failure, Outcome, Phase, PointResult

    failure = None if outcome == "ok" else Failure(kind=kind, message="boom", signal=signal)
    phase = None if outcome == "ok" else Phase.CELL
    return PointResult(index, {"N": value}, {"N": value}, Outcome(outcome), phase=phase, failure=failure,
                       runs=(0.1,) if outcome == "ok" else (), peak_host_bytes=peak)


def _search(points, positions, interrupted=False):
    from mgenv_jupyter.sweeps._fit import FitSearch
    from mgenv_jupyter.sweeps._grid import Grid, Variable
    from mgenv_jupyter.sweeps._replay import SetupPlan
    from mgenv_jupyter.sweeps._result import Budget, BudgetOf, SweepResult

    budget = Budget(540 * 2**20, BudgetOf.HOST, total=600 * 2**20, margin=0.1, given=True)
    search = FitSearch(candidates("N", "1..1024"), list(positions))
    return SweepResult("x", Grid((Variable("N", (), ()),)), SetupPlan((), False), points, budget, search=search,
                       interrupted=interrupted)


def test_what_each_probe_says_and_what_the_search_answers():
    """Out of memory, the OOM killer's SIGKILL and a peak over the limit mean too big; an error stops the search and
    the largest that fit so far is kept; the status says which, with the reason."""
    import signal as signals

    from mgenv_jupyter.presentation.sweep import SweepView
    from mgenv_jupyter.sweeps._fit import Verdict

    found = _search([_probe(0, "512", peak=600 * 2**20), _probe(1, "256", peak=300 * 2**20),
                     _probe(2, "384", "oom", kind="MemoryError"),
                     _probe(3, "320", "crashed", signal=signals.SIGKILL), _probe(4, "288", peak=530 * 2**20),
                     _probe(5, "289", peak=541 * 2**20)], [511, 255, 383, 319, 287, 288])
    verdicts = [found.search.verdict(p, found.budget) for p in found.points]
    assert verdicts == [Verdict.TOO_BIG, Verdict.FITS, Verdict.TOO_BIG, Verdict.TOO_BIG, Verdict.FITS, Verdict.TOO_BIG]
    assert found.best.values == {"N": "288"} and found.choice.value == "largest_fit"
    assert SweepView(found, language="en").lines()[1] == (
        "largest that fits: N=288 — peak 530 MiB, within 540 MiB (600 MiB less 10%); found in 6 probe(s); 289 did "
        "not fit")
    stopped = _search([_probe(0, "512", peak=300 * 2**20), _probe(1, "768", "error", kind="builtins.ValueError")],
                      [511, 767])
    assert stopped.best.values == {"N": "512"} and stopped.choice.value == "fit_so_far"
    assert SweepView(stopped, language="en").lines()[1] == (
        "the search stopped at N=768: error (ValueError: boom, in the measured cell). The largest that fit so far: "
        "N=512 (peak 300 MiB)")
    nothing = _search([_probe(0, "512", "oom"), _probe(1, "1", peak=600 * 2**20)], [511, 0])
    assert nothing.best is None and nothing.choice.value == "nothing_fits"
    assert "nothing fits: N=1, the smallest, peaked at 600 MiB, above 540 MiB" in SweepView(nothing).lines()[1]
    interrupted = _search([_probe(0, "512", peak=300 * 2**20), _probe(1, "768", "not_run")], [511, 767],
                          interrupted=True)
    assert SweepView(interrupted, language="en").lines()[1] == (
        "Interrupted after 1 probe(s). The largest that fit so far: N=512 (peak 300 MiB)")
    assert interrupted.frame()["N"].tolist() == ["512", "768"]  # every probe, in the order it ran
