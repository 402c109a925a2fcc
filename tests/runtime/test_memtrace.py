"""The frameworks that record allocation stacks have a recorder in their runtime adapter, and only they: the catalog's
facts (catalog/_memtrace.py) and the adapters (runtime/frameworks) name the same frameworks, each recorder
has the shape memtrace asks of it, and none imports its framework to answer whether it is available."""

from __future__ import annotations

import sys

from mgenv_jupyter.catalog._homes import MEMTRACE_FACTS as FACTS
from mgenv_jupyter.catalog._memtrace import Recording
from mgenv_jupyter.runtime._memtrace import MemtraceRecorder
from mgenv_jupyter.runtime.frameworks import memtrace_recorders


def test_every_framework_that_records_has_a_recorder_and_no_other_does():
    recorders = memtrace_recorders()
    assert set(recorders) == {key for key, facts in FACTS.items() if facts.recording is not Recording.NEVER}
    for key, recorder in recorders.items():
        assert recorder.framework == key
        for method in ("available", "keep_on", "start", "stop", "now"):
            assert callable(getattr(recorder, method)), (key, method)
    annotated: MemtraceRecorder = recorders["jax"]  # the protocol mypy checks the adapters against
    assert annotated is recorders["jax"]


def test_asking_imports_no_framework():
    loaded = set(sys.modules)
    for recorder in memtrace_recorders().values():
        if recorder.framework not in loaded:
            assert recorder.available() is False
            assert recorder.now() is None
    assert not {"jax", "torch"} & (set(sys.modules) - loaded)
