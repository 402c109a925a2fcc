"""The oldest JupyterLab 4 packages the front end declares, installed with npm for its type check
(tests/packaging/test_frontend_oldest_types.py says why):

- each `@jupyterlab/*` and `@lumino/*` dependency of labextension/package.json at the newest published patch of the
  lowest minor its range admits (`^4.0.0` gives 4.0.x, `^7.0.0` 7.0.x; a minor with no release moves to the next);
- every `@jupyterlab/*` and `@lumino/*` package those pull in at the newest patch of the highest lower bound they ask
  for (a 4.0.x package asks for 4.0.x ones), not the newest 4.x npm would float to;
- one copy of each, forced by npm `overrides`, as JupyterLab shares one instance of each at run time.

The install is cached under build/frontend-oldest/<key>/, keyed by the declared ranges: the first run asks the registry
and installs (about 2 minutes here), later runs reuse it offline. `./dev test` makes it while pip installs the
framework venvs (`python tests/frontend_oldest.py`), so the tests find it made; they make it themselves otherwise.
Standard library only: `./dev` runs it before any venv of the project exists."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LABEXTENSION = ROOT / "labextension"
CACHE = ROOT / "build" / "frontend-oldest"
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


def install() -> Path:
    """node_modules holding the oldest declared set and the project's TypeScript; installed on the first call, reused
    after. Raises RuntimeError, saying why, when npm is missing or fails."""
    if shutil.which("npm") is None:
        raise RuntimeError("npm is missing: the front end needs Node.js 18+ (README)")
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
            raise RuntimeError("npm install of the oldest set failed:\n" + done.stdout[-3000:] + done.stderr[-3000:])
        (staging / "pins.json").write_text(json.dumps(pins, indent=1), encoding="utf-8")
        if (home / "pins.json").exists():  # another run finished first: keep its copy
            shutil.rmtree(staging)
        else:
            shutil.rmtree(home, ignore_errors=True)
            staging.rename(home)
    return home / "node_modules"


if __name__ == "__main__":
    try:
        print(install())
    except RuntimeError as error:
        sys.exit(str(error))
