"""`LastResult` (base/_last_result.py): the last out-of-memory report or verify() result, kept and handed to
observers."""

from __future__ import annotations

import logging

import pytest

from mgenv_jupyter.base._last_result import LastResult


def test_the_last_value_is_kept_and_every_observer_is_told_until_it_leaves():
    last: LastResult[str] = LastResult("thing")
    assert last.get() is None
    seen: list[str] = []
    last.observe(seen.append)
    last.remember("first")
    last.remember("second")
    assert last.get() == "second" and seen == ["first", "second"]
    last.unobserve(seen.append)
    last.unobserve(seen.append)  # again: ignored
    last.remember("third")
    assert seen == ["first", "second"] and last.get() == "third"
    last.forget()
    assert last.get() is None


def test_a_failing_observer_is_logged_and_the_others_are_still_told(caplog: pytest.LogCaptureFixture):
    last: LastResult[int] = LastResult("report")
    seen: list[int] = []

    def broken(value: int) -> None:
        raise RuntimeError("a sidebar whose comm broke")

    last.observe(broken)
    last.observe(seen.append)
    with caplog.at_level(logging.ERROR, logger="mgenv_jupyter.base._last_result"):
        last.remember(7)
    assert seen == [7] and last.get() == 7
    assert "an observer of the last report failed" in caplog.text
