"""The front end's TypeScript type-checks against the oldest JupyterLab 4 that it declares (issue 20).

The lock file resolves the newest 4.x, so `npm run build` alone would accept an API that JupyterLab 4.0 lacks, and the
extension would break there at run time. This check installs the oldest declared set with npm (tests/frontend_oldest.py
says how it is chosen, and where it is cached) and runs the project's `tsc --noEmit` on `labextension/src` against it.
A fixture that uses an API added in JupyterLab 4.4 shows the check refuses what 4.0 lacks and accepts it against the
lock's packages."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import frontend_oldest
import pytest
import tomllib
from frontend_oldest import LABEXTENSION, installed_versions, lower_bound
from packaging.requirements import Requirement
from setup_beside import wait_for_setup

from build_and_install import ROOT

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).parent / "frontend_oldest" / "newerApi.ts"


@pytest.fixture(scope="module")
def oldest_modules() -> Path:
    """node_modules holding the oldest declared set and the project's TypeScript (tests/frontend_oldest.py)."""
    wait_for_setup()  # ./dev test installs them beside the tests: the same cache, never two installs at once
    try:
        return frontend_oldest.install()
    except RuntimeError as error:
        pytest.fail(str(error))


def type_check(tree: Path, node_modules: Path, include: list[str],
               extra: Path | None = None) -> subprocess.CompletedProcess[str]:
    """tsc --noEmit with the project's tsconfig on `include`, in a copy of labextension/ (with `extra` added to its
    src/) whose node_modules is `node_modules`: a copy, so that every import, the sources' and the packages' own,
    resolves there."""
    shutil.copytree(LABEXTENSION, tree, ignore=lambda folder, names: [
        name for name in names if Path(folder) == LABEXTENSION and name in ("node_modules", "lib")])
    if extra is not None:
        shutil.copy(extra, tree / "src" / extra.name)
    (tree / "node_modules").symlink_to(node_modules, target_is_directory=True)
    # The sources need no test types (tsconfig.lib.json says the same); the tests' jest types are not installed here.
    (tree / "tsconfig.check.json").write_text(json.dumps({
        "extends": "./tsconfig.json", "compilerOptions": {"noEmit": True, "types": []}, "include": include}),
        encoding="utf-8")
    return subprocess.run([str(node_modules / ".bin" / "tsc"), "-p", "tsconfig.check.json", "--pretty", "false"],
                          cwd=tree, capture_output=True, text=True, timeout=600)


def test_the_oldest_set_is_the_lowest_jupyterlab_the_lab_extra_declares(oldest_modules):
    pins = json.loads((oldest_modules.parent / "pins.json").read_text(encoding="utf-8"))
    copies = installed_versions(oldest_modules)
    assert copies == {name: [version] for name, version in pins.items()}, "one copy of each, as pinned"
    lab = next(Requirement(need) for need in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
               ["project"]["optional-dependencies"]["lab"] if need.startswith("jupyterlab"))
    oldest_lab = next(spec.version for spec in lab.specifier if spec.operator == ">=")
    assert pins["@jupyterlab/application"].startswith(f"{oldest_lab}."), (
        f"package.json's @jupyterlab/application range starts at {pins['@jupyterlab/application']}, the [lab] extra "
        f"at JupyterLab {oldest_lab}: keep them in step")
    # Each declared package no newer than that JupyterLab's own application package asks for (services 7.0 for 4.0).
    declared = json.loads((LABEXTENSION / "package.json").read_text(encoding="utf-8"))["dependencies"]
    application = json.loads((oldest_modules / "@jupyterlab" / "application" / "package.json").read_text("utf-8"))
    for name, spec in application["dependencies"].items():
        if name in declared:
            assert lower_bound(pins[name])[:2] <= lower_bound(spec)[:2], (name, pins[name], spec)


def test_the_front_end_type_checks_against_the_oldest_declared_jupyterlab(oldest_modules, tmp_path):
    done = type_check(tmp_path / "labextension", oldest_modules, ["src/**/*.ts"])
    assert done.returncode == 0, ("labextension/src uses an API the oldest declared JupyterLab lacks: use the 4.0 API "
                                  "or feature-detect\n" + done.stdout[-6000:] + done.stderr[-2000:])


def test_an_api_that_jupyterlab_4_0_lacks_fails_the_check(oldest_modules, tmp_path):
    """The fixture uses `supportsSubshells` (JupyterLab 4.4): refused against the oldest set, accepted against the
    lock's packages, so the refusal is the missing API and nothing else."""
    lock_modules = LABEXTENSION / "node_modules"
    if not (lock_modules / ".bin" / "tsc").exists():
        pytest.fail("labextension/node_modules is missing: run ./dev setup (it installs the front end)")
    # Only the fixture (and what it imports) is checked: the sources are the previous test's.
    refused = type_check(tmp_path / "oldest", oldest_modules, [f"src/{FIXTURE.name}"], extra=FIXTURE)
    accepted = type_check(tmp_path / "newest", lock_modules, [f"src/{FIXTURE.name}"], extra=FIXTURE)
    assert refused.returncode != 0
    assert re.search(r"newerApi\.ts\(\d+,\d+\): error TS2339: Property 'supportsSubshells' does not exist",
                     refused.stdout), refused.stdout[-3000:]
    assert accepted.returncode == 0, accepted.stdout[-3000:] + accepted.stderr[-2000:]
