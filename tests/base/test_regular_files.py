"""Files named by users (base/_regular_files.py): only regular files are read or written, a pipe or a device is refused
at once instead of waited on, a file larger than the limit or not UTF-8 is refused, and the message names the file and
the problem, never its content. Shown through %envload and %envexport, as a user meets it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from IPython.core.error import UsageError

from mgenv_jupyter.base import _regular_files as regular_files
from mgenv_jupyter.runtime import _envfile as envfile


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


def private_refusal(path: Path) -> str:
    started = time.monotonic()
    with pytest.raises(regular_files.InvalidValueError) as caught:
        regular_files.read_private_file(path, limit=1024)
    assert time.monotonic() - started < 2
    return str(caught.value)


def test_a_private_file_is_read_only_as_its_own_user_wrote_it(tmp_path):
    """The runtime files a Jupyter server and its kernels leave for each other (issue 28): a FIFO is refused, never
    waited on; so are a link, a file others can write or another user owns, and one over the limit."""
    good = tmp_path / "jpserver-1.json"
    good.write_bytes(b'{"url": "http://127.0.0.1:8888/"}')
    good.chmod(0o600)
    assert regular_files.read_private_file(good, limit=1024) == b'{"url": "http://127.0.0.1:8888/"}'
    good.chmod(0o644)  # others may read it (their business), not write it
    assert regular_files.read_private_file(good, limit=1024).startswith(b"{")
    os.mkfifo(tmp_path / "fifo", 0o600)
    assert "a pipe or a device" in private_refusal(tmp_path / "fifo")
    (tmp_path / "link").symlink_to(good)
    assert "a symbolic link" in private_refusal(tmp_path / "link")
    assert "a pipe or a device" in private_refusal(Path("/dev/zero"))
    for mode in (0o666, 0o620, 0o602):
        good.chmod(mode)
        assert f"can be written by other users (mode {mode:o})" in private_refusal(good)
    good.chmod(0o600)
    if os.geteuid() == 0:  # only root can give a file away
        os.chown(good, 65534, 65534)
        assert "belongs to another user (uid 65534)" in private_refusal(good)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 1025)
    big.chmod(0o600)
    assert "larger than 1,024 bytes" in private_refusal(big)
    assert "No such file" in private_refusal(tmp_path / "missing.json")
