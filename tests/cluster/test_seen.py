"""One variable on one node (cluster/_seen.py): the verdict is decided here once, as a code, and every form of the
report (text, notebook HTML, the sidebar's notice) labels it."""

from __future__ import annotations

from mgenv_jupyter.cluster._seen import AFTER_START, ARRIVED_TEXT, AT_START, MISSING, Seen


def test_the_verdict_is_ok_differs_or_missing_and_a_variable_unset_on_both_sides_is_ok():
    assert Seen("n", "A", "1", "1", True, AT_START).verdict == "ok"
    assert Seen("n", "A", "1", "2", False, AFTER_START).verdict == "differs"
    assert Seen("n", "A", "1", None, False, MISSING).verdict == "missing"
    # The session has no value and neither has the worker: they agree (the notebook's table once said "missing" here
    # while the sidebar said "matches").
    assert Seen("n", "A", None, None, True, MISSING).verdict == "ok"


def test_only_a_value_in_the_workers_start_environment_takes_effect_there():
    assert [Seen("n", "A", "1", "1", True, arrived).takes_effect for arrived in (AT_START, AFTER_START, MISSING)] == [
        True, False, False]
    assert [Seen("n", "A", "1", "1", True, arrived).arrived_text for arrived in (AT_START, AFTER_START, MISSING)] == [
        "at worker start", "after worker start", "missing"]
    assert set(ARRIVED_TEXT) == {"at_start", "after_start", "missing"}  # the wire's VerifyArrival codes
