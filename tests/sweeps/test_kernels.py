"""Which kernel each point starts: this kernel's own kernelspec (the one whose Python is this process's), or one named;
its command under the guard."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel

from mgenv_jupyter import InvalidValueError
from mgenv_jupyter.sweeps import _kernels, given_setup, run_sweep
from mgenv_jupyter.sweeps._kernels import GUARD, kernel_for_points, own_spec, point_kernel_manager, sweep_directory


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


def write_spec(data: Path, name: str, argv: list[str], env: dict[str, str]) -> None:
    folder = data / "kernels" / name
    folder.mkdir(parents=True)
    (folder / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": name, "language": "python",
                                                     "env": env}))


@pytest.fixture
def kernelspecs(tmp_path, monkeypatch):
    """Kernelspecs written into a JUPYTER_PATH data directory of this test's own."""
    data = tmp_path / "data"
    monkeypatch.setenv("JUPYTER_PATH", os.pathsep.join([str(data), *filter(None, [os.environ.get("JUPYTER_PATH")])]))
    return data


SWEEP_CELL = """%%envsweep -o FLAGS_allocator_strategy=auto_growth,thread_local --setup none
import os
print("SEEN", os.environ["FLAGS_allocator_strategy"], os.environ.get("CUDA_VISIBLE_DEVICES"))
"""
FACTS = """import json as _json, mgenv_jupyter as _m
_r = _m.last_sweep()
print("FACTS", _json.dumps({"kernel": _r.kernel, "held": [p.values_held for p in _r.points],
      "printed": [p.printed for p in _r.points], "outcomes": [p.outcome.value for p in _r.points],
      "best": None if _r.best is None else _r.best.index}))
"""


def test_points_start_the_notebooks_own_kernelspec_and_the_swept_values_win_over_its_env(kernelspecs):
    """Two kernelspecs on this Python: the notebook runs the second by name, whose env sets the swept variable; the
    first, alphabetically, pins another GPU. Every point is the notebook's spec and has exactly its swept value."""
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    write_spec(kernelspecs, "a-other", argv, {"CUDA_VISIBLE_DEVICES": "7"})
    write_spec(kernelspecs, "b-notebook", argv, {"FLAGS_allocator_strategy": "auto_growth"})
    manager, client = start_new_kernel(kernel_name="b-notebook")
    printed: list[str] = []

    def output(message: dict) -> None:
        if message["msg_type"] == "stream":
            printed.append(message["content"]["text"])

    try:
        for cell in ("%load_ext mgenv_jupyter", SWEEP_CELL, FACTS):
            client.execute_interactive(cell, timeout=240, output_hook=output)
    finally:
        manager.shutdown_kernel(now=True)
        client.stop_channels()
    text = "".join(printed)
    assert "FACTS" in text, text[-2000:]
    facts = json.loads(text.split("FACTS", 1)[1].strip().splitlines()[0])
    assert facts["outcomes"] == ["ok", "ok"] and facts["kernel"] == "b-notebook"
    assert [p.split()[:2] for p in facts["printed"]] == [["SEEN", "auto_growth"], ["SEEN", "thread_local"]]
    assert all(p.split()[2] == str(os.environ.get("CUDA_VISIBLE_DEVICES")) for p in facts["printed"])
    assert facts["held"] == [True, True] and facts["best"] is not None


def test_a_point_whose_kernel_had_other_values_is_shown_so_and_never_recommended(kernelspecs, fresh_session):
    """A named kernelspec whose launcher sets the swept variable itself: the point that swept another value ran
    with the launcher's, says so, and is not recommended however fast it was."""
    write_spec(kernelspecs, "launcher", ["/usr/bin/env", "SWEEP_HELD_X=slow", sys.executable, "-m",
                                         "ipykernel_launcher", "-f", "{connection_file}"], {})
    # the first point (the value its kernel really had) is the slower one
    cell = "import os, time\ntime.sleep(0.5 if os.environ['MGENV_SWEEP_REPORT'].endswith('/p0/report.json') else 0)"
    result = run_sweep(cell, {"SWEEP_HELD_X": ["slow", "fast"]}, given_setup(""), session=fresh_session,
                       kernel="launcher", timeout=120)
    assert [p.outcome.value for p in result.points] == ["ok", "ok"]
    assert [p.values_held for p in result.points] == [True, False]
    assert result.points[1].seconds < result.points[0].seconds
    assert result.best is not None and result.best.index == 0
    assert result.frame()["values_held"].tolist() == [True, False]
    assert "the kernel had SWEEP_HELD_X=slow" in repr(result)


def test_the_own_spec_is_the_one_whose_env_this_process_started_with():
    from types import SimpleNamespace

    argv = ["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    specs = [("a", SimpleNamespace(argv=argv, env={"CUDA_VISIBLE_DEVICES": "7"})),
             ("b", SimpleNamespace(argv=argv, env={"FLAGS_x": "${HOME}/x"})), ("c", SimpleNamespace(argv=argv, env={}))]
    running = ["/venv/bin/python", "-m", "ipykernel_launcher", "-f", "/run/kernel-1.json"]
    assert own_spec(specs, running, {"HOME": "/h", "FLAGS_x": "/h/x"})[0] == "b"
    assert own_spec(specs, running, {"HOME": "/h"})[0] == "c"
    assert own_spec(specs[:2], running, {"HOME": "/h"}) is None


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
