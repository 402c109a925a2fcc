"""The out-of-memory tests leave no report behind: `last_report()` is process-wide (what `%oom` shows and a Framework
Env panel is sent on its hello), so a report one of these tests made would reach the tests after it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mgenv_jupyter.oom._report import reports as last_reports


@pytest.fixture(autouse=True)
def no_leftover_report(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    reports = last_reports()
    monkeypatch.setattr(reports, "_value", reports.get())  # put back as it was when the test ends
    yield
