"""The front end's TypeScript type-checks against the oldest JupyterLab 4 that it declares (issue 20).

The lock file resolves the newest 4.x, so `npm run build` alone would accept an API that JupyterLab 4.0 lacks, and the
extension would break there at run time. This check installs the oldest declared set with npm and runs the project's
`tsc --noEmit` on `labextension/src` against it:

- each `@jupyterlab/*` and `@lumino/*` dependency of labextension/package.json at the newest published patch of the
  lowest minor its range admits (`^4.0.0` gives 4.0.x, `^7.0.0` 7.0.x; a minor with no release moves to the next);
- every `@jupyterlab/*` and `@lumino/*` package those pull in at the newest patch of the highest lower bound they ask
  for (a 4.0.x package asks for 4.0.x ones), not the newest 4.x npm would float to;
- one copy of each, forced by npm `overrides`, as JupyterLab shares one instance of each at run time.

The install is cached under build/frontend-oldest/<key>/, keyed by the declared ranges: the first run asks the registry
and installs (about 2 minutes here), later runs reuse it offline (the three tests then take about a minute). A fixture
that uses an API added in JupyterLab 4.4 shows the check refuses what 4.0 lacks and accepts it against the lock's
packages."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement

from build_and_install import ROOT

pytestmark = pytest.mark.slow

LABEXTENSION = ROOT / "labextension"
CACHE = ROOT / "build" / "frontend-oldest"
FIXTURE = Path(__file__).parent / "frontend_oldest" / "newerApi.ts"
PINNED = re.compile(r"@(jupyterlab|lumino)/")
BOUND = re.compile(r"[\^~]?(\d+)\.(\d+)\.(\d+)")
RECIPE = 1  # bump when the way the set is chosen changes, so old caches are not reused

Version = tuple[int, int, int]


def lower_bound(spec: str) -> Version:
    """The lower bound of an npm range of the forms JupyterLab's packages use (`^4.0.13`, `~2.1.1`, `4.0.0`); of
    `^1.11.0 || ^2.2.2` the newest major's (JupyterLab 4 runs Lumino 2)."""
    found = BOUND.fullmatch(spec.split("||")[-1].strip())
    if found is None:
        raise ValueError(f"an npm range this check cannot read: {spec!r}")
    major, minor, patch = (int(part) for part in found.groups())
    return major, minor, patch


def published(name: str, major: int) -> dict[Version, dict[str, str]]:
    """Every release of `name` in `major`, with its dependencies (`name@*` would answer with the latest only)."""
    done = subprocess.run(["npm", "view", f"{name}@^{major}.0.0", "version", "dependencies", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"npm view {name}: {done.stderr[-2000:]}"
    answer = json.loads(done.stdout)
    # One release comes back as an object, several as a list; one without dependencies as its bare version string.
    releases = [item if isinstance(item, dict) else {"version": item}
                for item in (answer if isinstance(answer, list) else [answer])]
    return {lower_bound(item["version"]): item.get("dependencies", {})
            for item in releases if BOUND.fullmatch(item["version"])}


def newest_patch_of_lowest_minor(releases: dict[Version, dict[str, str]], floor: Version) -> Version:
    admitted = [version for version in releases if version[0] == floor[0] and version[:2] >= floor[:2]]
    assert admitted, f"no release at or above {floor}"
    lowest_minor = min(admitted)[:2]
    return max(version for version in admitted if version[:2] == lowest_minor)


def oldest_set(declared: dict[str, str]) -> dict[str, str]:
    """The oldest declared set (the module's docstring says how it is chosen), as {package: exact version}."""
    direct = {name: lower_bound(spec) for name, spec in declared.items() if PINNED.match(name)}
    floors = dict(direct)
    known: dict[str, dict[Version, dict[str, str]]] = {}
    pins: dict[str, Version] = {}
    while True:  # until the floors the chosen releases ask for choose the same releases again
        missing = [name for name in floors if name not in known]
        with ThreadPoolExecutor(8) as pool:
            known.update(zip(missing, pool.map(lambda name: published(name, floors[name][0]), missing), strict=True))
        chosen = {name: newest_patch_of_lowest_minor(known[name], floor) for name, floor in floors.items()}
        if chosen == pins:
            return {name: ".".join(map(str, version)) for name, version in sorted(pins.items())}
        pins = chosen
        for name, version in pins.items():
            for dependency, spec in known[name][version].items():
                if PINNED.match(dependency) and dependency not in direct:
                    floors[dependency] = max(floors.get(dependency, (0, 0, 0)), lower_bound(spec))


def installed_versions(node_modules: Path) -> dict[str, list[str]]:
    """{package: [versions]} of every @jupyterlab/* and @lumino/* copy under node_modules, nested ones included."""
    copies: dict[str, list[str]] = {}
    manifests = [*node_modules.glob("@*/*/package.json"), *node_modules.glob("**/node_modules/@*/*/package.json")]
    for manifest in manifests:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        if PINNED.match(data.get("name", "")):
            copies.setdefault(data["name"], []).append(data["version"])
    return copies


@pytest.fixture(scope="module")
def oldest_modules() -> Path:
    """node_modules holding the oldest declared set and the project's TypeScript; installed on the first run."""
    if shutil.which("npm") is None:
        pytest.fail("npm is missing: the front end needs Node.js 18+ (README)")
    package = json.loads((LABEXTENSION / "package.json").read_text(encoding="utf-8"))
    declared = dict(package["dependencies"], typescript=package["devDependencies"]["typescript"])
    key = hashlib.sha256(json.dumps([RECIPE, declared], sort_keys=True).encode()).hexdigest()[:16]
    home = CACHE / key
    if not (home / "pins.json").exists():
        pins = oldest_set(declared)
        staging = CACHE / f"{key}.{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        (staging / "package.json").write_text(json.dumps({
            "name": "mgenv-jupyter-oldest-types", "private": True,
            "dependencies": {name: pins.get(name, spec) for name, spec in declared.items()},
            "overrides": pins}, indent=1), encoding="utf-8")
        done = subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=staging,
                              capture_output=True, text=True, timeout=1200)
        if done.returncode != 0:
            shutil.rmtree(staging)
            pytest.fail("npm install of the oldest set failed:\n" + done.stdout[-3000:] + done.stderr[-3000:])
        (staging / "pins.json").write_text(json.dumps(pins, indent=1), encoding="utf-8")
        if (home / "pins.json").exists():  # another run finished first: keep its copy
            shutil.rmtree(staging)
        else:
            shutil.rmtree(home, ignore_errors=True)
            staging.rename(home)
    return home / "node_modules"


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
