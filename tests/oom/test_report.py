"""A report as data: made from a real sampler's history and cell markers, kept as the last one, and JSON-ready."""

from __future__ import annotations

import json
import time

from mgenv_jupyter.memory._host_source import HostSource
from mgenv_jupyter.memory._sampler import Sampler
from mgenv_jupyter.oom._recognise import recognise
from mgenv_jupyter.oom._report import build_report, last_report, remember


def test_a_host_oom_report_from_a_real_sampler(fresh_session):
    sampler = Sampler([HostSource()])
    try:
        for cell in (1, 2, 3):
            sampler.cells.start(cell)
            sampler.sample_once()
            time.sleep(0.01)
            sampler.sample_once()
            sampler.cells.finish(cell, ok=cell != 3)
        event = recognise(MemoryError())
        report = build_report(event, sampler, fresh_session)
    finally:
        sampler.close()
    assert report.verdict.cause.value == "host" and report.remedies == ()
    assert report.timeline.series == "host process" and len(report.timeline.values) >= 6
    assert report.timeline.cell == 3 and [c for c, _ in report.timeline.earlier_peaks] == [1, 2]
    # what the sampler recorded of the series travels with it (the view reads it instead of parsing the key)
    assert report.timeline.info == {"key": "host process", "device": "host", "framework": None, "quantity": "process",
                                    "source": "host", "simulated": False, "node": None}
    assert 0 < report.took < 1
    data = json.loads(json.dumps(report.to_json()))
    assert data["event"]["framework"] == "python" and data["findings"][0]["cause"] == "host"
    remember(report)
    assert last_report() is report


def test_without_a_sampler_the_report_still_says_what_it_can(fresh_session):
    report = build_report(recognise(MemoryError()), None, fresh_session)
    assert report.timeline.values == () and report.state.host_total
