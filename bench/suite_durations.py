"""Where the test suite's time goes: a run's per-test durations (test-artifacts/durations.json, written by every pytest
run: tests/durations_record.py) summed by tier and by file, as the Markdown tables of bench/RESULTS.md.

    python -m bench.suite_durations [DURATIONS.json | PYTEST-LOG] [--files N] [--tests N]

A pytest log made with `--durations=0` (its "slowest durations" lines) is read too, so a run recorded before the file
existed can be summarised the same way. A test's time is its set-up, call and teardown together: a fixture shared by a
module or the session is counted once, in the test that first asked for it."""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "test-artifacts" / "durations.json"
# pytest's --durations lines: "12.34s call     tests/<tier>/test_<name>.py::test_z[param]"
LOG_LINE = re.compile(r"(\d+\.\d+)s (setup|call|teardown) +(tests/\S+::.+)")


@dataclass
class Run:
    seconds: dict[str, float]  # node id -> set-up + call + teardown
    wall_s: float | None
    note: str


def tier_of(nodeid: str) -> str:
    parts = nodeid.split("::", 1)[0].split("/")
    return parts[1] if len(parts) >= 3 and parts[0] == "tests" else "unit"


def read(path: Path) -> Run:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        record = json.loads(text)
        seconds = {t["nodeid"]: t["setup"] + t["call"] + t["teardown"] for t in record["tests"]}
        load = record.get("load_average_at_end")
        workers = record.get("workers", 1)
        note = (f"{record['started']}, {record['machine']}, {workers} pytest worker{'s' if workers != 1 else ''}, "
                f"load average at the end {load}")
        return Run(seconds, record.get("wall_s"), note)
    logged: dict[str, float] = defaultdict(float)
    for line in text.splitlines():
        found = LOG_LINE.fullmatch(line.strip())
        if found:
            logged[found.group(3)] += float(found.group(1))
    wall = re.search(r" in (\d+\.\d+)s", text)
    # pytest leaves out phases under 5 ms: the tests that only had those are not counted.
    return Run(dict(logged), float(wall.group(1)) if wall else None,
               f"pytest log {path.name}; tests that took under 5 ms in every phase are not in it")


def report(run: Run, files: int = 15, tests: int = 10) -> str:
    by_tier: dict[str, list[float]] = defaultdict(list)
    by_file: dict[str, list[float]] = defaultdict(list)
    for nodeid, seconds in run.seconds.items():
        by_tier[tier_of(nodeid)].append(seconds)
        by_file[nodeid.split("::", 1)[0]].append(seconds)
    total = sum(run.seconds.values())
    slowest_file = {tier: max((f for f in by_file if tier_of(f + "::") == tier), key=lambda f: sum(by_file[f]))
                    for tier in by_tier}
    lines = [f"{len(run.seconds)} tests, {total:,.0f} s summed over tests"
             + (f", {run.wall_s:,.0f} s of pytest's wall time" if run.wall_s else "") + f" ({run.note}).", "",
             "| tier | tests | seconds | share | slowest file (seconds) |", "|---|---|---|---|---|"]
    for tier, values in sorted(by_tier.items(), key=lambda item: -sum(item[1])):
        worst = slowest_file[tier]
        lines.append(f"| {tier} | {len(values)} | {sum(values):,.0f} | {sum(values) / total:.0%} | "
                     f"`{worst}` ({sum(by_file[worst]):,.0f}) |")
    lines += ["", "| file | tests | seconds | per test |", "|---|---|---|---|"]
    for name, values in sorted(by_file.items(), key=lambda item: -sum(item[1]))[:files]:
        lines.append(f"| `{name}` | {len(values)} | {sum(values):,.1f} | {sum(values) / len(values):.1f} |")
    lines += ["", "| slowest tests | seconds |", "|---|---|"]
    for nodeid, seconds in sorted(run.seconds.items(), key=lambda item: -item[1])[:tests]:
        lines.append(f"| `{nodeid}` | {seconds:.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--files", type=int, default=15, help="how many of the slowest files to list")
    parser.add_argument("--tests", type=int, default=10, help="how many of the slowest tests to list")
    arguments = parser.parse_args()
    print(report(read(arguments.source), arguments.files, arguments.tests))


if __name__ == "__main__":
    main()
