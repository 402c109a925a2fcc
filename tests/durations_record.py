"""Every test's duration, written to a machine-readable file at the end of each run (test-artifacts/durations.json by
default, `--durations-json PATH` elsewhere), so that where the suite's time goes can be read after any run, the
README's `./dev test` included: `python -m bench.suite_durations` summarises it by tier and by file.

One record per test: its node id, its tier (the directory under tests/ it lives in; "unit" for tests/test_*.py), its
outcome and the seconds of its set-up, call and teardown. Set-up holds what a fixture shared by a module or the session
costs the first test that asks for it (a JupyterLab started, the wheel built), as pytest's own `--durations` shows."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
DEFAULT = TESTS.parent / "test-artifacts" / "durations.json"


def tier_of(nodeid: str) -> str:
    """The directory under tests/ a test lives in; "unit" for the files at the top of tests/."""
    parts = nodeid.split("::", 1)[0].split("/")
    if len(parts) >= 3 and parts[0] == "tests":
        return parts[1]
    return "unit"


class DurationsRecord:
    """A pytest plugin: collects each phase's duration and writes them all once the session finishes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.started = time.time()
        self.tests: dict[str, dict[str, Any]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        entry = self.tests.setdefault(report.nodeid, {
            "nodeid": report.nodeid, "tier": tier_of(report.nodeid), "outcome": "passed",
            "setup": 0.0, "call": 0.0, "teardown": 0.0})
        entry[report.when] = round(report.duration, 3)
        if report.outcome != "passed" and entry["outcome"] == "passed":  # the first phase that did not pass says
            entry["outcome"] = "error" if report.failed and report.when != "call" else report.outcome

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if not self.tests:  # a run that collected nothing (--collect-only, a typo) leaves the last record alone
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        record = {
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
            "wall_s": round(time.time() - self.started, 1),
            "exit_status": int(exitstatus),
            "args": list(session.config.invocation_params.args),
            "machine": f"{platform.machine()}, {len(os.sched_getaffinity(0))} cores",
            "workers": getattr(session.config.option, "numprocesses", None) or 1,  # pytest-xdist's -n
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            "tests": sorted(self.tests.values(), key=lambda t: t["nodeid"]),
        }
        staging = self.path.with_suffix(f".{os.getpid()}.tmp")
        staging.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        staging.replace(self.path)  # a reader never sees half a file


def add_option(parser: pytest.Parser) -> None:
    parser.addoption("--durations-json", default=str(DEFAULT), metavar="PATH",
                     help="where each test's durations are written at the end of the run (default: %(default)s)")


def register(config: pytest.Config) -> None:
    # Under pytest-xdist the controller hears every worker's reports and writes the one file; a worker writes none.
    if hasattr(config, "workerinput"):
        return
    config.pluginmanager.register(DurationsRecord(Path(config.getoption("--durations-json"))), "durations-record")
