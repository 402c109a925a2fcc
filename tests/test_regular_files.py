"""Files named by users (_regular_files.py): only regular files are read or written, a pipe or a device is refused at
once instead of waited on, a file larger than the limit or not UTF-8 is refused, and the message names the file and
the problem, never its content. Shown through %envload and %envexport, as a user meets it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from IPython.core.error import UsageError

from mgenv_jupyter import _envfile as envfile
from mgenv_jupyter import _regular_files as regular_files


def refused(ip, path: Path | str) -> str:
    """The message `%envload path` is refused with, checking it came fast, is short and changed nothing."""
    before = dict(os.environ)
    started = time.monotonic()
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("envload", str(path))
    assert time.monotonic() - started < 2
    assert dict(os.environ) == before
    message = str(caught.value)
    assert len(message) < 200, message
    return message


def test_export_to_a_pipe_is_refused_at_once(ip, tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    started = time.monotonic()
    with pytest.raises(UsageError, match="not a regular file"):
        ip.run_line_magic("envexport", str(pipe))
    assert time.monotonic() - started < 2


def test_envload_refuses_devices_pipes_directories_and_large_files(ip, tmp_path):
    assert "a pipe or a device" in refused(ip, "/dev/zero")
    assert "a pipe or a device" in refused(ip, "/dev/urandom")
    (tmp_path / "zero-link").symlink_to("/dev/zero")
    assert "a pipe or a device" in refused(ip, tmp_path / "zero-link")
    os.mkfifo(tmp_path / "pipe")
    assert "a pipe or a device" in refused(ip, tmp_path / "pipe")
    assert "a directory" in refused(ip, tmp_path)
    big = tmp_path / "big.env"
    big.write_bytes(b"# padding\n" * (2 * 1024 * 1024 // 10))
    assert "larger than 1 MiB" in refused(ip, big)
    assert "No such file" in refused(ip, tmp_path / "missing.env")
    long_path = tmp_path / ("x" * 200)
    assert "cannot read" in refused(ip, long_path)


def test_envload_reads_a_file_of_exactly_the_limit(tmp_path):
    path = tmp_path / "limit.env"
    body = b"A_NAME=1\n"
    path.write_bytes(body + b"#" * (regular_files.MAX_FILE_BYTES - len(body)))
    assert envfile.read_dotenv(path) == [("A_NAME", "1")]


def test_envload_refuses_text_that_is_not_utf8(ip, tmp_path):
    path = tmp_path / "latin1.env"
    path.write_bytes("MGE_DEFAULT_DEVICE=gpu0\nNAME=caf\xe9\n".encode("latin-1"))
    assert "not UTF-8" in refused(ip, path)
