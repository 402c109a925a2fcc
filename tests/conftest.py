"""Shared fixtures: a restored environment, a fresh kernel session, a real IPython shell with the extension, and the
browser tiers' JupyterLab servers and Chromium (tests/lab_server.py says how they are shared)."""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import durations_record
import pytest

# A hook: a test that needs the venvs waits for their set-up before its clock starts.
from setup_beside import pytest_runtest_protocol  # noqa: F401

from mgenv_jupyter.base._kernel_state import kernel_state
from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.runtime import SESSION, EnvSession, ImportWatcher

from lab_pool import LabPool
from lab_server import shared_chromium

ROOT = Path(__file__).resolve().parent.parent

# The suite's expected texts are in English, the product's language where the locale does not say Chinese: a machine
# whose locale is Chinese must not change them. The kernels, servers and scenarios the tests start inherit it; tests of
# the language choice set these variables themselves, and a front end's language still counts before the locale.
os.environ["LC_ALL"] = "C.UTF-8"


def pytest_addoption(parser: pytest.Parser) -> None:
    durations_record.add_option(parser)


def pytest_configure(config: pytest.Config) -> None:
    durations_record.register(config)  # every run writes each test's durations (test-artifacts/durations.json)
    config.addinivalue_line("markers", "setup_venvs: needs a venv ./dev test makes beside the tests; waits for it "
                            "before its time limit starts (tests/setup_beside.py)")


# Tier directories whose tests are marked with the tier's marker and `slow` (the tier conftests say what each holds):
# `pytest -m "not slow"` leaves them out, `pytest -m browser` runs one alone.
MARKED_TIERS = {"browser": "browser", "kernel": "kernel", "frameworks": "frameworks", "gpu": "gpu",
                "ray_cluster": "ray"}


INSTALL_SECONDS = 2400
# Tiers whose tests need what `./dev test` makes beside them (tests/setup_beside.py): they wait for it, if it is still
# running, before their time limit starts. A test of another tier that needs a venv is marked `setup_venvs` by hand.
SETUP_TIERS = {"frameworks", "packaging", "ray_cluster"}

# The README's `./dev test` runs the suite on two pytest-xdist workers: most of a browser test's time is spent waiting
# on a page, a kernel or a sampler (about 0.6 of a core each, measured), so two share the two cores. A worker runs a
# group whole, in order (`pytest_xdist_make_scheduler`): its module fixtures, its Chromium and its scenarios started
# ahead stay one, and a test may build on what the one before it left (a notebook saved, then reopened). A group is a
# file, or a whole tier whose files share a session fixture: packaging builds one wheel for all its files, and
# ray_cluster's files share one local Ray cluster.
ONE_GROUP_TIERS = {"packaging", "ray_cluster"}
# Groups are handed out in collection order as workers free up, so the longest come first and the many short files
# fill in behind them (longest first keeps the two workers' last minutes even): by tier, from the durations recorded
# in test-artifacts/durations.json (bench/RESULTS.md). The browser tier leads: `./dev test` is still making the venvs
# the tiers after it need (tests/setup_beside.py).
TIER_ORDER = ["browser", "packaging", "frameworks", "ray_cluster", "kernel"]


def run_whole(nodeid: str) -> str:
    """The group a test is run in: its file's path, or its tier for a tier in ONE_GROUP_TIERS."""
    tier = durations_record.tier_of(nodeid)
    return tier if tier in ONE_GROUP_TIERS else nodeid.split("::", 1)[0]


@pytest.hookimpl(tryfirst=True)  # before xdist's own scheduler
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Whichever way `-n` is asked to distribute (load, loadscope, loadfile), a worker takes groups whole (`run_whole`),
    in collection order (already longest first, so xdist's reordering by test count is off). xdist's own
    `--dist loadgroup` cannot serve: it marks a test's group in `item._nodeid`, which pytest 9 no longer reads."""
    from xdist.scheduler import EachScheduling, LoadScopeScheduling

    if config.getvalue("dist") == "each":
        return EachScheduling(config, log)
    config.option.loadscopereorder = False

    class WholeGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return run_whole(nodeid)

    return WholeGroups(config, log)


@pytest.hookimpl(tryfirst=True)  # before -m deselects anything
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = durations_record.tier_of(item.nodeid)
        if tier in MARKED_TIERS:
            item.add_marker(getattr(pytest.mark, MARKED_TIERS[tier]))
            item.add_marker(pytest.mark.slow)
        if tier in SETUP_TIERS:
            item.add_marker(pytest.mark.setup_venvs)
        if tier == "packaging":  # a wheel built through npm, a framework downloaded: longer than the suite's limit
            item.add_marker(pytest.mark.timeout(INSTALL_SECONDS))
    rank = {tier: index for index, tier in enumerate(TIER_ORDER)}
    # A stable sort: within a tier, files and tests keep their order.
    items.sort(key=lambda item: rank.get(durations_record.tier_of(item.nodeid), len(TIER_ORDER)))


@pytest.fixture(autouse=True)
def restored_environ() -> Iterator[None]:
    """Every test leaves os.environ as it found it."""
    before = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(before)


@pytest.fixture(autouse=True)
def no_leftover_front_end_language() -> Iterator[None]:
    """A sidebar's or chart's hello in one test (language "zh") does not make the kernel speak Chinese in the next."""
    from mgenv_jupyter.base import _text as text

    yield
    text.learn_language(None)


@pytest.fixture(autouse=True)
def no_leftover_simulation(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts without a simulated GPU (whatever the shell exported, or an earlier test left running);
    tests that want one set MGENV_SIMULATE_GPU themselves."""
    from mgenv_jupyter.memory.simulated import _simulation as simulation

    monkeypatch.delenv(simulation.ENV, raising=False)
    simulation.stop_environment()
    yield
    simulation.stop_environment()


@pytest.fixture(autouse=True)
def no_leftover_session() -> Iterator[None]:
    """A test that makes the process-wide session (a widget or a chart built without `fresh_session`) does not hand
    it, nor its import watcher on sys.meta_path, to the tests after it: no test may depend on the order they run in."""
    from mgenv_jupyter.magics._sweep import sweep_cells

    before = SESSION.get()
    watchers = [finder for finder in sys.meta_path if isinstance(finder, ImportWatcher)]
    yield
    for finder in [f for f in sys.meta_path if isinstance(f, ImportWatcher) and f not in watchers]:
        finder.uninstall()
    SESSION.set(before)
    # The cells a sweep ran in are never replayed: a later test's shell may number its own cells the same.
    sweep_cells().clear()


@pytest.fixture(autouse=True)
def no_leftover_sampler() -> Iterator[None]:
    """Each test's charts, sidebar streams and out-of-memory recorder start from a new kernel sampler: its history
    (series of frameworks an earlier test faked) is not handed to the tests after it."""
    from mgenv_jupyter.memory._shared import close_kernel_sampler

    yield
    close_kernel_sampler()


@pytest.fixture
def fresh_session(monkeypatch: pytest.MonkeyPatch) -> Iterator[EnvSession]:
    """A new kernel session (and import watcher) in place of the process-wide one."""
    readers = {m for e in catalog() for m in e.readers}
    watcher = ImportWatcher(readers)
    watcher.install()
    session = EnvSession(watcher)
    monkeypatch.setitem(kernel_state().values, SESSION, session)
    yield session
    watcher.uninstall()


@pytest.fixture
def ip(fresh_session: EnvSession):
    """A real IPython shell with `%load_ext mgenv_jupyter` done."""
    from IPython.testing.globalipapp import get_ipython

    shell = get_ipython()
    shell.run_line_magic("load_ext", "mgenv_jupyter")
    yield shell
    # What loading started (the out-of-memory recorder keeps the kernel's sampler going) ends with the test.
    if "mgenv_jupyter" in shell.extension_manager.loaded:
        shell.run_line_magic("unload_ext", "mgenv_jupyter")


@pytest.fixture
def probe_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write a real module that reads variables at import, for import-order tests without a framework."""

    def make(name: str, reads: list[str]) -> str:
        body = "import os\nSEEN = {" + ", ".join(f"{v!r}: os.environ.get({v!r})" for v in reads) + "}\n"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
        monkeypatch.syspath_prepend(str(tmp_path))
        sys.modules.pop(name, None)
        return name

    yield make


@pytest.fixture
def closing():
    """Widgets made in a test are closed at its end, so they stop observing the session."""
    made: list = []
    yield made.append
    for widget in made:
        widget.close()


@pytest.fixture(scope="session")
def lab_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabPool]:
    """The session's JupyterLab servers, one per kind (tests/lab_server.py's docstring)."""
    pool = LabPool(tmp_path_factory.mktemp("labs"))
    yield pool
    pool.close()


@pytest.fixture
def shared_lab(lab_pool: LabPool):
    """`with shared_lab(env=..., app=..., server_config=..., settings=...) as lab:` a JupyterLab from the session's
    pool, reset for this test (tests/lab_server.py's docstring says what that covers)."""
    return lab_pool.lab


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    """One Chromium for the module: chromium_page() opens a new context in it for each page."""
    with shared_chromium() as browser:
        yield browser
