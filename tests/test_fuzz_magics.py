"""Property-based: random names, values and cells thrown at the magics. Only UsageError escapes, a rejected input
changes nothing, and no batch is ever half applied."""

from __future__ import annotations

import os
import shlex
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from IPython.core.error import UsageError

from mgenv_jupyter.catalog import catalog

NAMES = catalog().names()
near_misses = st.sampled_from(NAMES).map(lambda n: n[:-1] if len(n) > 3 else n.lower())
names = st.one_of(
    st.sampled_from(NAMES),
    near_misses,
    st.from_regex(r"[A-Z_][A-Z0-9_]{0,12}", fullmatch=True),
    st.text(min_size=0, max_size=12),
)
values = st.one_of(
    st.sampled_from(["0", "1", "5GB", "1.5 gb", "b:1024", "gpu0", "naive_best_fit", "-1", "", "0.5", "true", "x y"]),
    st.integers(-10**12, 10**12).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.text(max_size=20),
)
pairs = st.lists(st.tuples(names, values), min_size=0, max_size=5)
FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def snapshot(session):
    return dict(os.environ), dict(session.options), len(session.history)


def check(ip, run):
    from mgenv_jupyter import session

    before = snapshot(session())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = run()
    except UsageError:
        assert snapshot(session()) == before, "a rejected input changed something"
        return None
    finally:
        pass
    return report


def restore(environ):
    os.environ.clear()
    os.environ.update(environ)


def assert_fully_applied(report):
    from mgenv_jupyter import session

    for change in report:
        entry = catalog().get(change.name)
        if change.new is None or "********" == change.new:
            continue
        if entry is not None and not entry.is_env:
            assert change.name in session().options
        else:
            assert os.environ[change.name] == change.new, f"{change.name} half applied"


@FUZZ
@given(items=pairs, quote=st.booleans())
def test_line_magic_fuzz(ip, items, quote):
    environ = dict(os.environ)
    try:
        words = [f"{n}={v}" for n, v in items]
        line = " ".join(shlex.quote(w) for w in words) if quote else " ".join(words)
        report = check(ip, lambda: ip.run_line_magic("envset", line))
        if report is not None:
            assert_fully_applied(report)
            assert len(report) == len(items)
    finally:
        restore(environ)


@FUZZ
@given(items=pairs, junk=st.lists(st.text(max_size=30), max_size=3))
def test_cell_magic_fuzz(ip, items, junk):
    environ = dict(os.environ)
    try:
        cell = "\n".join([f"{n}={v}" for n, v in items] + [f"# {j}" for j in junk] + junk)
        report = check(ip, lambda: ip.run_cell_magic("envset", "", cell))
        if report is not None:
            assert_fully_applied(report)
    finally:
        restore(environ)


@FUZZ
@given(line=st.text(max_size=40), magic=st.sampled_from(["envget", "envunset", "envlist", "envexport", "envload",
                                                           "envdiff", "envlang"]))
def test_other_magics_only_raise_usage_errors(ip, line, magic, tmp_path):
    environ = dict(os.environ)
    cwd = os.getcwd()
    os.chdir(tmp_path)  # %envexport FILE may write; keep it in the test's own folder
    try:
        check(ip, lambda: ip.run_line_magic(magic, line))
    finally:
        os.chdir(cwd)
        restore(environ)
        from mgenv_jupyter.text import set_language

        set_language("en")


@pytest.mark.parametrize("line", ["A=1 'unterminated", "--bogus A=1", "=1", "1A=2", "A\x00=1"])
def test_known_bad_lines(ip, line):
    before = dict(os.environ)
    with pytest.raises(UsageError):
        ip.run_line_magic("envset", line)
    assert dict(os.environ) == before
