"""Out-of-memory forensics: when a cell runs out of memory, say why and offer the catalog setting that fixes it.

`recognise` tells an out-of-memory error of any supported framework (and where it failed, and what it asked for);
the `Recorder` keeps the kernel's one sampler going at a low rate so the memory before the failure is known;
`build_report` weighs the likely causes and picks the remedies; the IPython hook (`hook.install`) does all of it after
a failing cell, under the normal traceback. `%oom` shows the last report again, `mgenv_jupyter.last_oom()` returns it.
"""

from __future__ import annotations

from .causes import Cause, Finding
from .recognise import OutOfMemory, recognise
from .recorder import Recorder
from .remedies import Remedy
from .report import OomReport, build_report, last_report

__all__ = ["Cause", "Finding", "OomReport", "OutOfMemory", "Recorder", "Remedy", "build_report", "last_report",
           "recognise"]
