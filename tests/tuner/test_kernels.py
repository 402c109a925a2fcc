"""Which kernel each point starts: this kernel's own kernelspec (the one whose Python is this process's), or one named;
its command under the guard."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from mgenv_jupyter import InvalidValueError
from mgenv_jupyter.tuner import _kernels
from mgenv_jupyter.tuner._kernels import GUARD, kernel_for_points, point_kernel_manager, sweep_directory


def test_the_kernelspec_whose_python_is_this_one_is_chosen(tmp_path):
    """ipykernel's own spec says "python": jupyter_client starts that with the Python that starts it, whatever PATH
    would find (here a pyenv shim), and so does a point."""
    choice = kernel_for_points()
    assert choice.name == "python3" and choice.how == "same_python"
    started = point_kernel_manager(choice, tmp_path / "p0").format_kernel_cmd()[8:]
    assert os.path.realpath(shutil.which(started[0]) or started[0]) == os.path.realpath(sys.executable)


def test_a_named_kernelspec_must_exist_and_the_message_lists_them():
    assert kernel_for_points("python3").how == "named"
    with pytest.raises(InvalidValueError, match="python3"):
        kernel_for_points("no-such-kernel")


def test_the_point_starts_under_the_guard_watching_this_process(tmp_path):
    manager = point_kernel_manager(kernel_for_points(), tmp_path / "p0")
    command = manager.format_kernel_cmd()
    assert command[:4] == [sys.executable, "-I", "-S", str(GUARD)]
    assert command[4:8] == [str(os.getpid()), "--files", str(tmp_path / "p0"), "--"]
    assert "ipykernel_launcher" in " ".join(command[8:])
    assert manager.transport == "ipc" and manager.connection_file == str(tmp_path / "p0" / "connection.json")


def test_a_sweep_directory_too_long_for_a_socket_goes_to_a_short_one_or_says_why(tmp_path, monkeypatch):
    long_tmp = tmp_path / ("scratch-of-a-cluster-job-" + "x" * 80)
    long_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(long_tmp))
    monkeypatch.setattr("tempfile.tempdir", None)  # gettempdir() reads TMPDIR again
    made = sweep_directory(12)
    try:
        assert len(os.fsencode(made / "p11" / "k-99")) <= _kernels.SOCKET_PATH_MOST
        assert oct(made.stat().st_mode & 0o777) == "0o700"
    finally:
        made.rmdir()
    # nowhere short enough to write (the short system directories made unusable for this test): the reason is said
    monkeypatch.setattr(_kernels, "_SHORT_ROOTS", (str(long_tmp),))
    with pytest.raises(InvalidValueError, match=r"Unix sockets.*107 bytes.*TMPDIR"):
        sweep_directory(2)
