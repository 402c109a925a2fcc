"""Dotenv files in and out (`%envexport`, `%envload`): what is exported is sourced by real bash and dash without
running anything and reads back exactly there, in python-dotenv and in `%envload`; what is loaded is bounded, and a
bad file is refused at once with a short message that never quotes it."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

import dotenv
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from IPython.core.error import UsageError

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.catalog._secrets import MASK, is_secret
from mgenv_jupyter.runtime import EnvSession
from mgenv_jupyter.runtime import _envfile as envfile

SHELLS = ("bash", "dash")
CANARY = "CANARY"  # created in the shell's working directory if anything in an export ever runs
FRAGMENTS = [
    "'", '"', "$", "`", "\\", "$(", "${", "${HOME}", "${A:-x}", "$HOME", "\n", "\r", "\r\n", "\t", " ", "#", " #", "=",
    "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\ufeff", "a", "Z", "0", "_", "-", "é", "雪",
    "~", "!", ";", "|", "&", "*", "{", "}", "(", ")", "<", ">", "\\'", "\\\\", "\\n", '\\"', "\\$",
    f"$(touch {CANARY})", f"`touch {CANARY}`", f"'$(touch {CANARY})'", f'"`touch {CANARY}`"', f"';touch {CANARY};'",
]
values = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.characters(codec="utf-8", exclude_characters="\x00")), max_size=10,
).map("".join)
batches = st.lists(st.one_of(values, st.none()), min_size=1, max_size=10)
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def session_with(batch: list[str | None]) -> tuple[EnvSession, dict[str, str | None]]:
    """A session whose changes through it are `batch` (None: unset since start), under names V0, V1, ..."""
    wanted = {f"V{i}": value for i, value in enumerate(batch)}
    session = EnvSession(environ={name: "before" for name, value in wanted.items() if value is None})
    session_set = {name: value for name, value in wanted.items() if value is not None}
    session_unset = [name for name, value in wanted.items() if value is None]
    if session_set:
        session.set(session_set, force=True, live=False)
    if session_unset:
        session.unset(session_unset, force=True, live=False)
    return session, wanted


def must_be_left_out_of_dotenv(value: str) -> bool:
    """The values no dotenv text carries exactly for bash, dash and python-dotenv alike: a CR (python-dotenv reads
    files with universal newlines), `${` (python-dotenv interpolates it in every kind of value), or `$` or a backtick
    (which shells expand inside double quotes) together with a `'`, a `\\\\` or a final `\\` (which end or change a
    single-quoted value for python-dotenv); and values with more blanks in a row than `%envload` reads."""
    if "\r" in value or "${" in value or re.search(rf"[^\S\n]{{{envfile.MAX_BLANK_RUN + 1}}}", value):
        return True
    expands = "$" in value or "`" in value
    return expands and ("'" in value or "\\\\" in value or value.endswith("\\"))


def source(shell: str, path: Path, workdir: Path, environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment after `set -a; . FILE` in a real `shell`, run in `workdir`."""
    result = subprocess.run(
        [shell, "-c", 'set -a; . "$1"; exec env -0', "sh", str(path)],
        env={"PATH": os.environ["PATH"], **(environ or {})}, cwd=workdir, capture_output=True, timeout=30,
    )
    assert result.returncode == 0 and result.stderr == b"", (shell, result.stderr)
    pairs = (item.partition(b"=") for item in result.stdout.split(b"\0") if item)
    return {os.fsdecode(k): os.fsdecode(v) for k, _, v in pairs}


def expected_exports(wanted: dict[str, str | None], fmt: str) -> tuple[dict[str, str], set[str]]:
    """(what the export must carry exactly, the names it must leave out with a comment)."""
    carried, left_out = {}, set()
    for name, value in wanted.items():
        if value is None:
            continue
        if is_secret(name, value) or (fmt == "dotenv" and must_be_left_out_of_dotenv(value)):
            left_out.add(name)
        else:
            carried[name] = value
    return carried, left_out


# ---- export: sourced by real shells ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["dotenv", "shell"])
@PROPERTY
@given(batch=batches)
def test_export_sourced_in_bash_and_dash_gives_every_value_exactly_and_runs_nothing(fmt, batch):
    session, wanted = session_with(batch)
    carried, left_out = expected_exports(wanted, fmt)
    with tempfile.TemporaryDirectory() as workdir:
        path = Path(workdir) / "exported"
        path.write_text(envfile.export(session, fmt), encoding="utf-8")
        unset_before = {name: "before" for name, value in wanted.items() if value is None}
        for shell in SHELLS:
            environ = source(shell, path, Path(workdir), unset_before)
            assert not (Path(workdir) / CANARY).exists(), f"sourcing the {fmt} export in {shell} ran a command"
            for name, value in carried.items():
                assert environ.get(name) == value, (shell, name)
            for name in left_out | set(unset_before):
                if fmt == "shell" or name in left_out:
                    assert name not in environ, (shell, name)


def test_nasty_values_known_by_name(tmp_path):
    nasty = [
        f"it's $(touch {CANARY})", f"`touch {CANARY}`", f"\"$(touch {CANARY})\"", "ends with a backslash\\", "\\",
        "quote ' and \" both", "two\nlines", "\u2028sep\u2029arators\x85", "tab\tand #hash", "C:\\Users\\x$",
        "a\\'b", "${HOME}", "$HOME", "~", "~/x", "x=y", "", " lead and trail ", "\\\\server\\share",
        "wide" + " " * envfile.MAX_BLANK_RUN + "gap", "wider" + " \t" * envfile.MAX_BLANK_RUN + "gap",
    ]
    session, wanted = session_with(nasty)
    for fmt in ("dotenv", "shell"):
        carried, left_out = expected_exports(wanted, fmt)
        path = tmp_path / f"exported.{fmt}"
        text = envfile.export(session, fmt)
        path.write_text(text, encoding="utf-8")
        for shell in SHELLS:
            environ = source(shell, path, tmp_path)
            assert {name: environ.get(name) for name in carried} == carried, (fmt, shell)
        assert not (tmp_path / CANARY).exists()
        assert all(f"# {name} is not exported" in text for name in left_out)
        if fmt == "dotenv":
            assert dict(envfile.read_dotenv(path)) == carried
            assert dotenv.dotenv_values(path, encoding="utf-8") == carried
    assert envfile.dotenv_value("C:\\Users\\x$") == "'C:\\Users\\x$'"  # a backslash alone stays in single quotes
    assert envfile.dotenv_value("plain-1.5:/x,y@z%") == "plain-1.5:/x,y@z%"
    assert envfile.dotenv_value("~") == "'~'"  # unquoted, a shell would expand it to $HOME


# ---- export dotenv: read back by python-dotenv and %envload ---------------------------------------------------------

@PROPERTY
@given(batch=batches)
def test_dotenv_export_reads_back_with_python_dotenv_and_envload(batch):
    session, wanted = session_with(batch)
    carried, left_out = expected_exports(wanted, "dotenv")
    text = envfile.export(session, "dotenv")
    with tempfile.TemporaryDirectory() as workdir:
        path = Path(workdir) / "exported.env"
        path.write_text(text, encoding="utf-8")
        by_python_dotenv = dotenv.dotenv_values(path, encoding="utf-8")  # interpolating, as by default
        loaded = dict(envfile.read_dotenv(path))
    assert {k: v for k, v in by_python_dotenv.items() if v is not None} == carried
    assert loaded == carried
    for name in left_out:
        value = wanted[name]
        assert value is not None
        expected = (f"# {name} is a secret and is not exported" if is_secret(name, value) else
                    f"# {name} is not exported: {envfile.why_not_dotenv(value)}; use %envexport --format shell or "
                    "--format json to export it")
        assert expected in text.split("\n")
    for name, value in wanted.items():
        if value is None:
            assert f"# {name} was unset" in text.split("\n")


@PROPERTY
@given(batch=batches)
def test_shell_export_leaves_out_only_secrets_and_json_carries_everything(batch):
    session, wanted = session_with(batch)
    shell_text = envfile.export(session, "shell")
    for name, value in wanted.items():
        if value is None:
            assert f"unset {name}" in shell_text.split("\n")
        elif is_secret(name, value):
            assert f"# {name} is a secret and is not exported" in shell_text.split("\n")
        else:
            assert f"export {name}=" in shell_text
    import json

    environment = json.loads(envfile.export(session, "json"))["environment"]
    assert environment == {name: (MASK if value is not None and is_secret(name, value) else value)
                           for name, value in wanted.items()}


# ---- export: secrets and what cannot be written -----------------------------------------------------------------

SECRETS = {
    "DATABASE_URL": "postgres://user:hunter2@db.example.com/app",  # a secret by its value
    "GITHUB_PAT": "ghp_" + "A1b2C3d4" * 5,
    "MY_SETTING": "sk-proj-" + "x9" * 12,  # an innocent name, a key's shape
    "SERVICE_TOKEN": "abc123",  # a secret by its name
}


@pytest.mark.parametrize("through_session", [True, False], ids=["set through the session", "set outside it"])
def test_secrets_are_never_exported_in_clear(tmp_path, through_session):
    session, _ = session_with([])
    if through_session:
        session.set({**SECRETS, "PLAIN": "visible"}, force=True, live=False)
    else:  # what only --all exports
        session.environ.update({**SECRETS, "PLAIN": "visible"})
    for fmt in envfile.FORMATS:
        text = envfile.export(session, fmt, everything=not through_session)
        assert "visible" in text
        for name, value in SECRETS.items():
            assert value not in text and "hunter2" not in text, (fmt, name)
            assert name in text
    import json

    environment = json.loads(envfile.export(session, "json", everything=not through_session))["environment"]
    assert all(environment[name] == MASK for name in SECRETS)


def test_by_default_only_changes_through_the_session_are_exported_and_all_adds_the_rest():
    """ipykernel sets MPLBACKEND, TERM, PAGER... after the kernel starts, behind the session's back: a batch job that
    gets MPLBACKEND=module://matplotlib_inline... cannot plot. By default they stay out; --all shows them too."""
    session = EnvSession(environ={"TERM": "xterm", "OLD": "1"})
    session.environ.update({"MPLBACKEND": "module://matplotlib_inline.backend_inline", "TERM": "xterm-color"})
    session.set({"MGE_DEFAULT_DEVICE": "gpu1", "MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB"}, live=False)
    session.unset(["OLD"], force=True, live=False)
    assert envfile.export(session, "shell").splitlines() == [
        "export MEGENGINE_DTR_EVICTION_THRESHOLD=5368709120", "export MGE_DEFAULT_DEVICE=gpu1", "unset OLD"]
    wider = envfile.export(session, "shell", everything=True).splitlines()
    assert "export MPLBACKEND=module://matplotlib_inline.backend_inline" in wider and "export TERM=xterm-color" in wider
    session.set({"MGE_DEFAULT_DEVICE": None}, live=False)  # changed through the session, then back to unset
    assert "MGE_DEFAULT_DEVICE" not in envfile.export(session, "dotenv")
    exported = session.diff().set_index("name")["exported"].to_dict()
    assert exported == {"MEGENGINE_DTR_EVICTION_THRESHOLD": "yes", "OLD": "yes", "MPLBACKEND": "only with --all",
                        "TERM": "only with --all"}


def test_names_and_values_no_format_can_carry_are_left_out_with_a_comment():
    session, _ = session_with([])
    session.environ["BASH_FUNC_f%%"] = "() { touch CANARY; }"  # not a shell name: bash would define a function
    session.environ["WITH\nNEWLINE"] = "x"
    session.environ["NOT_UTF8"] = "\udcff"  # how os.environ holds a byte that is not UTF-8
    for fmt in ("dotenv", "shell"):
        lines = envfile.export(session, fmt, everything=True).split("\n")
        assert "# NOT_UTF8 is not exported: its value is not valid Unicode text (bytes that are not UTF-8)" in lines
        assert sum(line.startswith("# a variable whose name is not a shell name") for line in lines) == 2
        assert all(line.startswith("#") for line in lines if line)
    import json

    document = json.loads(envfile.export(session, "json", everything=True))
    assert "NOT_UTF8" in document["left_out"] and "NOT_UTF8" not in document["environment"]


# ---- %envload: bounded, and refusing bad files cleanly ---------------------------------------------------------------

def refused(ip, path: Path | str) -> str:
    """The message `%envload path` is refused with, checking it came fast, is short and changed nothing."""
    before = dict(os.environ)
    started = time.process_time()  # CPU, not the wall clock of a busy machine
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("envload", str(path))
    assert time.process_time() - started < 2
    assert dict(os.environ) == before
    message = str(caught.value)
    assert len(message) < 200, message
    return message


def test_envload_bounds_the_work_of_reading_a_file(ip, tmp_path):
    many = tmp_path / "many.env"
    many.write_text("A_NAME=1\n" * (envfile.MAX_ENTRIES + 1), encoding="utf-8")
    assert f"over {envfile.MAX_ENTRIES:,} settings" in refused(ip, many)
    blanks = tmp_path / "blanks.env"  # python-dotenv's time is quadratic in blanks inside an unquoted value
    blanks.write_text("A_NAME=1\nB_NAME=x" + " " * 900_000 + "y\n", encoding="utf-8")
    assert "line 2 has over 128 blanks" in refused(ip, blanks)
    fine = tmp_path / "fine.env"
    fine.write_text(("A_NAME=x" + " " * envfile.MAX_BLANK_RUN + "y\n") * (envfile.MAX_ENTRIES // 2), encoding="utf-8")
    started = time.process_time()  # this process's CPU, not the wall clock of a busy machine
    assert len(envfile.read_dotenv(fine)) == envfile.MAX_ENTRIES // 2
    assert time.process_time() - started < 2


SECRET = "sk-proj-" + "Q7w" * 10


@pytest.mark.parametrize(("content", "words"), [
    (f"MGE_DEFAULT_DEVICE=gpu0\n\n# a comment\n{SECRET}\n", "line 4 has no '='"),
    (f"MGE_DEFAULT_DEVICE=gpu0\nOPENAI_KEY='{SECRET}\n", "line 2 is not NAME=VALUE"),
    (f"MGE_DEFAULT_DEVICE=gpu0\nA='{SECRET}' trailing\n", "line 2 is not NAME=VALUE"),
    (f"\n\n{SECRET}=1\n", "line 3: a name is letters, digits and underscores"),
    (f"MGE_DEFAULT_DEVICE=gpu0\n{SECRET} x\n" + "filler=1\n" * 100_000, "line 2"),
])
def test_a_malformed_line_is_named_by_number_never_quoted(ip, tmp_path, content, words):
    path = tmp_path / "bad.env"
    path.write_text(content, encoding="utf-8")
    message = refused(ip, path)
    assert words in message and SECRET not in message and "Q7w" not in message
    with pytest.raises(InvalidValueError, match=words):
        envfile.read_dotenv(path)


def test_envload_reads_as_python_dotenv_without_interpolation(tmp_path):
    path = tmp_path / "profile.env"
    path.write_text('export A="x\\ny"\r\nB=\'${HOME} $(no)\'\nC=plain # comment\n\n D = spaced \nE=\n',
                    encoding="utf-8")
    assert envfile.read_dotenv(path) == [("A", "x\ny"), ("B", "${HOME} $(no)"), ("C", "plain"), ("D", "spaced"),
                                         ("E", "")]


def test_exported_dotenv_loads_back_through_the_magics(ip, tmp_path):
    ip.run_cell_magic("envset", "--force", "MY_QUOTED_THING=it's \"quoted\" \\ and $dollar\nMY_PLAIN=1")
    target = tmp_path / "round.env"
    ip.run_line_magic("envexport", str(target))
    assert "MY_QUOTED_THING is not exported" in target.read_text()  # ' and $ together: dotenv cannot carry it
    shell_target = tmp_path / "round.sh"
    ip.run_line_magic("envexport", f"--format shell {shell_target}")
    environ = source("dash", shell_target, tmp_path)
    assert environ["MY_QUOTED_THING"] == "it's \"quoted\" \\ and $dollar"
    os.environ.pop("MY_PLAIN")
    ip.run_line_magic("envload", str(target))
    assert os.environ["MY_PLAIN"] == "1"
