"""Which kernel each point starts: this kernel's own kernelspec (the one whose Python is this process's), or one named;
its command under the guard."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from mgenv_jupyter import InvalidValueError
from mgenv_jupyter.tuner._kernels import GUARD, kernel_for_points, point_kernel_manager


def test_the_kernelspec_whose_python_is_this_one_is_chosen(tmp_path):
    """ipykernel's own spec says "python": jupyter_client starts that with the Python that starts it, whatever PATH
    would find (here a pyenv shim), and so does a point."""
    choice = kernel_for_points()
    assert choice.name == "python3" and choice.how == "same_python"
    started = point_kernel_manager(choice, ipc=tmp_path / "p0").format_kernel_cmd()[6:]
    assert os.path.realpath(shutil.which(started[0]) or started[0]) == os.path.realpath(sys.executable)


def test_a_named_kernelspec_must_exist_and_the_message_lists_them():
    assert kernel_for_points("python3").how == "named"
    with pytest.raises(InvalidValueError, match="python3"):
        kernel_for_points("no-such-kernel")


def test_the_point_starts_under_the_guard_watching_this_process(tmp_path):
    manager = point_kernel_manager(kernel_for_points(), ipc=tmp_path / "p0")
    command = manager.format_kernel_cmd()
    assert command[:4] == [sys.executable, "-I", "-S", str(GUARD)]
    assert command[4:6] == [str(os.getpid()), "--"] and "ipykernel_launcher" in " ".join(command[6:])
    assert manager.transport == "ipc"
