"""The already-read warning is the user's (issue 29, point 2): it points at the line of the user's own code that made
the change, or at no line at all when none made it (a message from the sidebar, handled on a thread of the kernel's),
never at a file of ours; and it stays an ordinary warning that catchers record and filters silence. The real-torch
and real-JupyterLab cases are in tests/frameworks and tests/browser."""

from __future__ import annotations

import contextlib
import importlib
import io
import subprocess
import sys
import threading
import warnings

import pytest

from mgenv_jupyter import AlreadyReadWarning

NAME = "TF_CPP_MIN_LOG_LEVEL"


@contextlib.contextmanager
def shown_on_stderr():
    """What a warning shown as Python shows it by default writes (pytest records warnings instead of showing them)."""
    shown = io.StringIO()

    def show(message, category, filename, lineno, file=None, line=None):
        shown.write(warnings.formatwarning(message, category, filename, lineno, line))

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield shown


@pytest.fixture
def tensorflow_read(probe_module, monkeypatch, fresh_session):
    """A module named tensorflow that reads TF_CPP_MIN_LOG_LEVEL at import, as TensorFlow does; gone after the test."""
    monkeypatch.delenv(NAME, raising=False)
    probe_module("tensorflow", [NAME])
    monkeypatch.setitem(sys.modules, "tensorflow", None)  # remembers that it was absent...
    del sys.modules["tensorflow"]  # ...so that the import below is undone at teardown
    importlib.import_module("tensorflow")
    return fresh_session


def test_from_the_users_code_it_points_at_that_line(tensorflow_read):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tensorflow_read.set({NAME: "2"}); line = sys._getframe().f_lineno  # noqa: E702 - the line that set it
    [warning] = [w for w in caught if issubclass(w.category, AlreadyReadWarning)]
    assert (warning.filename, warning.lineno) == (__file__, line)


def test_from_no_line_of_the_users_it_has_no_place_and_reads_as_guidance(tensorflow_read):
    with shown_on_stderr() as shown:
        warnings.simplefilter("always")
        worker = threading.Thread(target=tensorflow_read.set, args=({NAME: "2"},), kwargs={"source": "sidebar"})
        worker.start()
        worker.join()
    text = shown.getvalue()
    assert text.startswith(f"AlreadyReadWarning: tensorflow already read {NAME}")
    assert "\nWay out: " in text and "mgenv_jupyter" not in text.split("Way out")[0].replace("mgenv_jupyter`", "")
    assert ".py:" not in text  # no file, ours or anyone's
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        worker = threading.Thread(target=tensorflow_read.set, args=({NAME: "3"},), kwargs={"source": "sidebar"})
        worker.start()
        worker.join()
    assert [w.filename for w in caught if issubclass(w.category, AlreadyReadWarning)] == ["<sidebar>"]


def test_a_filter_silences_it_and_leaves_the_other_warnings_formatted_as_usual(tensorflow_read):
    with shown_on_stderr() as shown:
        warnings.filterwarnings("ignore", category=AlreadyReadWarning)
        tensorflow_read.set({NAME: "2"})
        warnings.warn_explicit("someone else's", UserWarning, "other.py", 7)
    assert shown.getvalue() == "other.py:7: UserWarning: someone else's\n"


def test_a_script_run_with_python_c_gets_the_warning_not_an_import_error():
    """`python -c`'s __main__ is loaded by BuiltinImporter, whose get_source raises ImportError; the C warn_explicit
    let it out of %envset (the MXNet venv's install check found it)."""
    code = ("from mgenv_jupyter.base._user_warning import warn_at_user\n"
            "warn_at_user('read at import already', UserWarning, 'api')\nprint('went on')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "went on\n"
    assert "UserWarning — <string>:2\nread at import already" in done.stderr
