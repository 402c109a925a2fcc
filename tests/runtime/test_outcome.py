"""What a `set` did, as data (runtime/_outcome.py): the history record, plain data with the outcome as its code. How
the report reads is presentation's (tests/presentation/test_changes.py)."""

from __future__ import annotations


def test_a_history_record_is_plain_data_with_the_outcome_as_its_code(fresh_session):
    [change] = fresh_session.set({"FLAGS_allocator_strategy": "naive_best_fit"}, source="widget")
    row = change.as_row("zh")
    assert {k: row[k] for k in ("seq", "name", "old", "new", "source", "outcome", "effective", "secret")} == {
        "seq": 1, "name": "FLAGS_allocator_strategy", "old": None, "new": "naive_best_fit", "source": "widget",
        "outcome": "pending_import", "effective": None, "secret": False}
    assert "尚未导入" in row["message"] and isinstance(row["time"], float)
