"""Our warnings are about the user's change, so they point at the user's line: the cell or script line that made it
(`%envset X=1`, `session().set(...)`), never a line of ours. A change made with no line of the user's on the stack
(a widget's Apply, the sidebar, a profile, all run from the kernel's message loop) is shown without a place.

A warning stays an ordinary `warnings` warning: filters, `warnings.catch_warnings(record=True)` and `pytest.warns`
see it as usual, with the user's file and line number as its place (`<sidebar>`, `<widget>`… when there is none).
"""

from __future__ import annotations

import linecache
import sys
import sysconfig
import threading
import warnings
from pathlib import Path
from types import FrameType

from ._text import Text

# Packages that run the user's code, or run ours on the user's behalf: never the user's line. Matched against a
# frame's module (its spec's name where it has one: `python -m ipykernel_launcher` runs as "__main__").
_NOT_THE_USERS = frozenset({
    "mgenv_jupyter", "IPython", "ipykernel", "ipykernel_launcher", "ipywidgets", "anywidget", "traitlets", "comm",
    "jupyter_client", "tornado", "zmq", "decorator", "pytest", "_pytest", "pluggy",
})
_STANDARD_LIBRARY = tuple({str(Path(sysconfig.get_paths()[key]).resolve()) for key in ("stdlib", "platstdlib")})
_formatting = threading.Lock()
CELL_LINE = Text("cell [{number}], line {line}", "单元格 [{number}] 第 {line} 行")


def user_frame() -> FrameType | None:
    """The innermost frame of the user's own code that led here, or None when no user code is on the stack."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if not _ours_or_a_runners(frame):
            return frame
        frame = frame.f_back
    return None


def _ours_or_a_runners(frame: FrameType) -> bool:
    spec = frame.f_globals.get("__spec__")
    module = getattr(spec, "name", None) or frame.f_globals.get("__name__") or ""
    if module.partition(".")[0] in _NOT_THE_USERS:
        return True
    filename = frame.f_code.co_filename
    return filename.startswith(_STANDARD_LIBRARY) and "site-packages" not in filename


def warn_at_user(message: str, category: type[Warning], where: str) -> None:
    """Warn with the user's line as the place; without one, with no place at all (`where`, such as "sidebar", is the
    filename a catcher records then). Shown, it reads as guidance: the warning's name and the user's line as they
    typed it (a notebook cell's, not IPython's translation of a magic), then the message."""
    frame = user_frame()
    if frame is None:
        _warn(message, category, f"<{where}>", 0, None, heading=None)
        return
    filename, lineno = frame.f_code.co_filename, frame.f_lineno
    _warn(message, category, filename, lineno, frame.f_globals, heading=_place(filename, lineno, frame.f_globals))


def _place(filename: str, lineno: int, module_globals: dict) -> str:
    """Where the user's line is, and the line: "cell [2], line 1: %envset X=1" for a notebook cell, "train.py:12:
    session().set(...)" for a file."""
    cell = _cell_line(filename, lineno)
    if cell is not None:
        return cell
    line = linecache.getline(filename, lineno, module_globals).strip()
    return f"{filename}:{lineno}" + (f": {line}" if line else "")


def _cell_line(filename: str, lineno: int) -> str | None:
    """The cell's number and the line the user typed, from IPython's own records of the cells it ran; None outside
    IPython or for a file that is no cell."""
    if "IPython" not in sys.modules:
        return None
    try:
        from IPython import get_ipython

        shell = get_ipython()
        number = shell.compile._filename_map.get(filename) if shell is not None else None
        if number is None:
            return None
        lines = shell.history_manager.input_hist_raw[number].splitlines()
    except Exception:  # noqa: BLE001 - IPython's records are a nicety: without them, the file and line
        return None
    line = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
    return CELL_LINE.get().format(number=number, line=lineno) + (f": {line}" if line else "")


def _warn(text: str, kind: type[Warning], place: str, at: int, module_globals: dict | None,
          heading: str | None) -> None:
    """`warnings.warn_explicit` at file `place`, line `at`. `warnings.formatwarning` writes "file:line: Category:
    message" and IPython's translation of the line; for this one warning it writes the heading, then the message. The
    formatter is swapped for the length of the call, and passes every other warning through."""
    with _formatting:
        original = warnings.formatwarning

        def ours(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 line: str | None = None) -> str:
            if filename == place and lineno == at and str(message) == text:
                return (f"{category.__name__}: {message}\n" if heading is None
                        else f"{category.__name__} — {heading}\n{message}\n")
            return original(message, category, filename, lineno, line)

        warnings.formatwarning = ours
        try:
            if module_globals is None:
                warnings.warn_explicit(text, kind, place, at, module="mgenv_jupyter", registry=None)
            else:
                try:
                    warnings.warn_explicit(text, kind, place, at, module=module_globals.get("__name__"),
                                           registry=module_globals.setdefault("__warningregistry__", {}),
                                           module_globals=module_globals)
                except ImportError:
                    # `python -c`'s __main__ has BuiltinImporter for its loader, whose get_source raises, and the
                    # C warn_explicit lets that out: the same warning without the line's source, never our error.
                    warnings.warn_explicit(text, kind, place, at, module=module_globals.get("__name__"),
                                           registry=module_globals.setdefault("__warningregistry__", {}))
        finally:
            warnings.formatwarning = original
