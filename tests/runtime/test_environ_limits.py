"""What the environment can hold: every value is checked before anything is written (runtime/_environ_limits.py)."""

from __future__ import annotations

import os
import subprocess

import pytest

from mgenv_jupyter.base._errors import EnvironmentSizeWarning, InvalidValueError
from mgenv_jupyter.runtime import _environ_limits as environ_limits


@pytest.mark.parametrize("value,problem", [
    ("a\x00b", "NUL"),
    ("\ud800", "lone surrogate"),
    ("x" * (40 * 1024), "at most 32 KiB"),
    ("y" * (300 * 1024), "at most 32 KiB"),
])
def test_values_the_environment_cannot_hold_are_refused_before_any_write(fresh_session, value, problem):
    before = dict(os.environ)
    with pytest.raises(InvalidValueError) as err:
        fresh_session.set({"FIRST_OK": "1", "SECOND_BAD": value})
    assert problem in str(err.value) and "SECOND_BAD" in str(err.value)
    assert value not in str(err.value) and len(str(err.value)) < 400  # the message names the problem, not the value
    assert dict(os.environ) == before and fresh_session.history == []


def test_the_cap_keeps_subprocesses_working():
    """A value at the cap still lets programs start; Linux's own limit (128 KiB) is what breaks them."""
    env = {**os.environ, "AT_THE_CAP": "v" * (environ_limits.MAX_VARIABLE_BYTES - 20)}
    assert subprocess.run(["true"], env=env).returncode == 0
    with pytest.raises(OSError, match="Argument list too long"):
        subprocess.run(["true"], env={**os.environ, "OVER_LINUX": "v" * 140 * 1024})


def test_surrogateescape_bytes_are_valid_values(fresh_session):
    """\\udc80-\\udcff stand for undecodable bytes (as os.environ reads them), so they can be written back."""
    fresh_session.set({"RAW_BYTES": "a\udc80b"})
    assert os.environb[b"RAW_BYTES"] == b"a\x80b"


def test_a_failing_write_rolls_the_whole_batch_back(fresh_session, monkeypatch):
    """The operating system has the last word: if a write fails half way, what was written is put back."""
    class Refusing(dict):
        def __setitem__(self, key, value):
            if key == "THIRD":
                raise OSError(7, "Argument list too long")
            super().__setitem__(key, value)

    environ = Refusing(os.environ)
    monkeypatch.setattr(fresh_session, "environ", environ)
    with pytest.raises(InvalidValueError, match="operating system refused"):
        fresh_session.set({"FIRST": "1", "SECOND": "2", "THIRD": "3"})
    assert not {"FIRST", "SECOND", "THIRD"} & set(environ) and fresh_session.history == []


def test_a_batch_that_would_leave_no_room_to_start_programs_is_refused(fresh_session, monkeypatch):
    # A machine whose ARG_MAX leaves 100 KB for more variables once programs keep their room for arguments.
    room = environ_limits.environment_bytes(os.environ) + environ_limits.ARGUMENT_ROOM_BYTES + 100_000
    monkeypatch.setattr(environ_limits, "arg_max", lambda: room)
    before = dict(os.environ)
    chunk = "z" * 30_000
    with pytest.raises(InvalidValueError, match="programs can no longer be started"):
        fresh_session.set({f"BIG_{i}": chunk for i in range(4)})
    assert dict(os.environ) == before
    with pytest.warns(EnvironmentSizeWarning, match="no program could be started"):
        fresh_session.set({"BIG_ONE": chunk, "BIG_TWO": chunk})


def test_the_environment_is_measured_as_programs_receive_it(monkeypatch):
    """os.environ's size is summed over the bytes it keeps; it must equal encoding every variable as a program's start
    receives it, non-ASCII and undecodable values included, and a plain mapping is measured the same way."""
    monkeypatch.setenv("MGENV_SIZE_ASCII", "plain")
    monkeypatch.setenv("MGENV_SIZE_TEXT", "显存 ≥ 5 GiB")
    monkeypatch.setenv("MGENV_SIZE_BYTES", os.fsdecode(b"raw\xff\xfe"))
    expected = sum(len(name) + len(value) + 2 + 8 for name, value in os.environb.items())
    assert environ_limits.environment_bytes(os.environ) == expected
    assert environ_limits.environment_bytes(dict(os.environ)) == expected
    assert environ_limits.check_variable("MGENV_SIZE_TEXT", os.environ["MGENV_SIZE_TEXT"]) == (
        environ_limits.variable_bytes("MGENV_SIZE_TEXT", os.environ["MGENV_SIZE_TEXT"]))


@pytest.mark.parametrize("name", ["", "1ABC", "A-B", "A B", "A=B", "A.B", "ÄBC", "名字", "A\u00b2", "A\x00", "A\n"])
def test_a_variable_name_is_ascii_letters_digits_and_underscores_only(name):
    assert not environ_limits.is_variable_name(name)


@pytest.mark.parametrize("name", ["_", "_A1", "a", "class", "Z9_", "MGE_DEFAULT_DEVICE"])
def test_every_ascii_identifier_is_a_variable_name(name):
    assert environ_limits.is_variable_name(name)
