"""Out-of-memory forensics: when a cell runs out of memory, say why and offer the catalog setting that fixes it.

`recognise` tells an out-of-memory error of any supported framework (and where it failed, and what it asked for);
the `Recorder` (_recorder.py) keeps the kernel's one sampler going at a low rate so the memory before the failure is
known; `report.build_report` weighs the likely causes and picks the remedies; the IPython hook (`hook.install`) does all
of it after a failing cell, under the normal traceback. `%oom` shows the last report again, `mgenv_jupyter.last_oom()`
returns it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base._lazy_names import lazy_names

if TYPE_CHECKING:
    from ._causes import Cause, Finding
    from ._recognise import OutOfMemory, recognise
    from ._remedies import Remedy
    from ._report import OomReport, last_report

# Names are imported on first use: `%load_ext` installs the hook and its recorder, and the rest (the recogniser, the
# causes, the remedies) is imported when a cell first fails.
# What a user reads in a report (its types) and the two ways in; the recorder, the hook and how a report is built
# are imported from their modules.
_EXPORTS = {"OutOfMemory": "_recognise", "recognise": "_recognise", "Cause": "_causes", "Finding": "_causes",
            "Remedy": "_remedies", "OomReport": "_report", "last_report": "_report"}

__all__ = ["Cause", "Finding", "OomReport", "OutOfMemory", "Remedy", "last_report", "recognise"]


__getattr__, __dir__ = lazy_names(__name__, _EXPORTS, globals())
