"""Our warnings are about the user's change, so they point at the user's line: the cell or script line that made it
(`%envset X=1`, `session().set(...)`), never a line of ours. A change made with no line of the user's on the stack
(a widget's Apply, the sidebar, a profile, all run from the kernel's message loop) is shown without a place.

A warning stays an ordinary `warnings` warning: filters, `warnings.catch_warnings(record=True)` and `pytest.warns`
see it as usual, with the user's file and line number as its place (`<sidebar>`, `<widget>`… when there is none).
"""

from __future__ import annotations

import sys
import sysconfig
import threading
import warnings
from pathlib import Path
from types import FrameType

# Packages that run the user's code, or run ours on the user's behalf: never the user's line. Matched against a
# frame's module (its spec's name where it has one: `python -m ipykernel_launcher` runs as "__main__").
_NOT_THE_USERS = frozenset({
    "mgenv_jupyter", "IPython", "ipykernel", "ipykernel_launcher", "ipywidgets", "anywidget", "traitlets", "comm",
    "jupyter_client", "tornado", "zmq", "decorator", "pytest", "_pytest", "pluggy",
})
_STANDARD_LIBRARY = tuple({str(Path(sysconfig.get_paths()[key]).resolve()) for key in ("stdlib", "platstdlib")})
_formatting = threading.Lock()


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
    filename a catcher records then)."""
    frame = user_frame()
    if frame is not None:
        globals_ = frame.f_globals
        registry = globals_.setdefault("__warningregistry__", {})
        warnings.warn_explicit(message, category, frame.f_code.co_filename, frame.f_lineno,
                               module=globals_.get("__name__"), registry=registry, module_globals=globals_)
        return
    _warn_without_place(message, category, f"<{where}>")


def _warn_without_place(text: str, kind: type[Warning], place: str) -> None:
    """`warnings.formatwarning` writes "file:line: Category: message"; for this one warning, only "Category:
    message". The formatter is swapped for the length of the call, and passes every other warning through."""
    with _formatting:
        original = warnings.formatwarning

        def without_place(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                          line: str | None = None) -> str:
            if filename == place and str(message) == text:
                return f"{category.__name__}: {message}\n"
            return original(message, category, filename, lineno, line)

        warnings.formatwarning = without_place
        try:
            warnings.warn_explicit(text, kind, place, 0, module="mgenv_jupyter", registry=None)
        finally:
            warnings.formatwarning = original
