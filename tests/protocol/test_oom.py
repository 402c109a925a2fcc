"""The out-of-memory report on the wire (protocol/_oom.py): what the display bundle carries under OOM_MIME and the
"oom" notice a sidebar gets have exactly the schema's shape, for every scenario's report, with and without remedies."""

from __future__ import annotations

import json

import pytest

from mgenv_jupyter.comms._requests import RequestHandler
from mgenv_jupyter.oom._recognise import recognise
from mgenv_jupyter.oom._report import build_report
from mgenv_jupyter.presentation.oom import OomView
from mgenv_jupyter.protocol._oom import OOM_MIME, OOM_VERSION, OomNotice, OomReportData

from wire_check import check

TORCH = ("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 40.00 GiB of which 1.10 GiB "
         "is free. Including non-PyTorch memory, this process has 38.00 GiB memory in use. Of the allocated memory "
         "21.00 GiB is allocated by PyTorch, and 16.30 GiB is reserved by PyTorch but unallocated.")


def torch_error() -> Exception:
    error_class = type("OutOfMemoryError", (RuntimeError,), {"__module__": "torch"})
    return error_class(TORCH)


@pytest.mark.parametrize("error", [torch_error, MemoryError], ids=["torch-fragmentation", "host"])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_report_data_and_the_notice_conform(fresh_session, error, language):
    report = build_report(recognise(error()), None, fresh_session)
    data = OomView(report, language)._repr_mimebundle_()[OOM_MIME]
    data = json.loads(json.dumps(data, allow_nan=False))  # what Jupyter's display and comm layers will do
    check(data, OomReportData)
    assert data["v"] == OOM_VERSION and data["language"] == language
    assert (data["no_remedy"] is None) == bool(data["remedies"])
    if error is torch_error:
        assert data["remedies"][0]["assignments"] == [["PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"]]
    handler = RequestHandler(fresh_session)
    handler.language = language
    notice = json.loads(json.dumps(handler.oom(report)))
    check(notice, OomNotice)
    assert notice["type"] == "oom" and notice["report"] == data
