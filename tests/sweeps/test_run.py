"""Everything the user gives is checked before the first kernel starts, and where points may run: one slot per GPU
that CUDA_VISIBLE_DEVICES shows (simulated here), one unpinned slot without a GPU."""

from __future__ import annotations

import pytest

from mgenv_jupyter import InvalidValueError
from mgenv_jupyter.sweeps import given_setup, run_sweep
from mgenv_jupyter.sweeps._result import last_sweep
from mgenv_jupyter.sweeps._run import checked_budget, checked_repeat, checked_seconds, gpu_slots


@pytest.mark.parametrize("options, words", [
    ({"repeat": 0}, "repeat"), ({"repeat": 1.5}, "repeat"), ({"repeat": True}, "repeat"),
    ({"timeout": -1}, "timeout"), ({"timeout": float("nan")}, "timeout"), ({"budget": "lots"}, "budget"),
    ({"budget": 0}, "budget"), ({"parallel": 0}, "parallel"), ({"setup_timeout": "1"}, "setup_timeout"),
])
def test_bad_options_are_refused_before_anything_starts(fresh_session, options, words):
    before = last_sweep()
    with pytest.raises(InvalidValueError, match=words):
        run_sweep("pass", {"X": ["1", "2"]}, given_setup(""), session=fresh_session, **options)
    assert last_sweep() is before  # no sweep ran


@pytest.mark.parametrize("code", ["", "   \n", "# only a comment\n  # and another"])
def test_a_cell_with_nothing_to_run_is_refused(fresh_session, code):
    with pytest.raises(InvalidValueError, match="empty"):
        run_sweep(code, {"X": ["1", "2"]}, given_setup(""), session=fresh_session)


def test_checked_values():
    assert checked_repeat(3) == 3 and checked_seconds(None, "timeout") is None and checked_seconds(2, "t") == 2.0
    assert checked_budget("10GB") == 10 * 1024**3 and checked_budget(None) is None


def test_one_slot_per_visible_gpu(monkeypatch):
    monkeypatch.setenv("MGENV_SIMULATE_GPU", "mirror-4x1gb")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert gpu_slots(None) == ([0, 1, 2, 3], [1024**3] * 4, True)
    assert gpu_slots(2)[0] == [0, 1]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,1")
    assert gpu_slots(None)[0] == [1, 3]


def test_without_a_gpu_one_unpinned_slot(monkeypatch):
    monkeypatch.setenv("MGENV_SIMULATE_GPU", "no-driver")
    assert gpu_slots(None) == ([None], [], False)
