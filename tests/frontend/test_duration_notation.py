"""One notation of durations: the sidebar's and the culling notices' (labextension/src/shared/kernelUse.ts
formatDuration, run by jest) and the Python side's, which the hub's page, the culler's log and the out-of-memory
report's owner line all write (catalog/_values.py format_duration; before, the hub wrote "1 h 5 min" and the culler
"1.1 h" where the sidebar wrote "1 h")."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from mgenv_jupyter.catalog._values import format_duration

LABEXTENSION = Path(__file__).resolve().parents[2] / "labextension"
SECONDS = [0, 0.4, 1, 59.9, 60, 61, 119, 3599, 3600, 3661, 5400, 86399, 86400, 3 * 86400 + 7]


@pytest.mark.slow
def test_the_front_end_and_the_python_side_write_every_duration_alike(tmp_path: Path) -> None:
    fixture, out = tmp_path / "seconds.json", tmp_path / "written.json"
    fixture.write_text(json.dumps(SECONDS))
    done = subprocess.run(["npx", "jest", "--silent", "tests/durationAgreement.test.ts"], cwd=LABEXTENSION,
                          env={**os.environ, "MGENV_DURATIONS": str(fixture), "MGENV_DURATIONS_OUT": str(out)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert json.loads(out.read_text()) == [format_duration(s) for s in SECONDS]


def test_a_duration_is_its_largest_whole_unit_in_either_language() -> None:
    assert [format_duration(s) for s in (59.9, 61, 3661, 90000)] == ["59 s", "1 min", "1 h", "1 d"]
    assert [format_duration(s, zh=True) for s in (5, 120, 7200, 172800)] == ["5 秒", "2 分钟", "2 小时", "2 天"]
