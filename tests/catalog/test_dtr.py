"""MegEngine's DTR variables (catalog/dtr.py): one category, and the caveats every DTR user needs."""

from __future__ import annotations

import re

from mgenv_jupyter.catalog import dtr

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_dtr_entries_share_one_category() -> None:
    assert {e.category for e in dtr.ENTRIES} == {dtr.DTR}
    assert dtr.DTR.zh == "DTR 相关"
    assert CJK.search(dtr.DTR_PEAK_CAVEAT.zh) and dtr.DTR_PEAK_CAVEAT.en
