"""MegEngine's DTR variables (catalog/_megengine_dtr.py): one category, the switch that does what
megengine.dtr.enable() does, sizes in bytes, and the caveats every DTR user needs."""

from __future__ import annotations

import re

from mgenv_jupyter.catalog import ReadWhen, catalog
from mgenv_jupyter.catalog import _megengine_dtr as dtr
from mgenv_jupyter.catalog._values import Switch

CJK = re.compile(r"[\u4e00-\u9fff]")
THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"


def test_dtr_entries_share_one_category() -> None:
    assert {e.category for e in dtr.ENTRIES} == {dtr.DTR}
    assert dtr.DTR.zh == "DTR 相关"
    assert CJK.search(dtr.DTR_PEAK_CAVEAT.zh) and dtr.DTR_PEAK_CAVEAT.en


def test_the_dtr_switch_is_the_three_options_dtr_enable_turns_on():
    switch = catalog().group_of("MEGENGINE_ENABLE_DROP")
    assert switch is dtr.DTR_SWITCH and switch.live_api == "megengine.dtr.enable"
    assert set(switch.members) == {"MEGENGINE_ENABLE_DROP", "MEGENGINE_DTR_AUTO_DROP",
                                   "MEGENGINE_RECORD_COMPUTING_PATH"}
    for name in switch.members:
        entry = catalog().get(name)
        assert entry is not None and isinstance(entry.type, Switch), name  # each member is a catalog switch
        assert entry.when is ReadWhen.IMPORT and entry.readers == ("megengine",), name
    assert catalog().group_of(THRESHOLD) is None  # the sizes are set one by one


def test_dtr_sizes_are_bytes_because_megengine_reads_them_with_a_plain_integer_parse():
    for name in (THRESHOLD, "MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE"):
        entry = catalog().get(name)
        assert entry is not None and entry.type.parse("5GB").text == str(5 * 1024**3), name
    threshold = catalog().get(THRESHOLD)
    assert threshold is not None and dtr.DTR_PEAK_CAVEAT in threshold.caveats  # a trigger, not a memory cap


def test_swapping_is_gone_and_the_entry_says_what_replaced_it():
    swap = catalog().get("MEGENGINE_ENABLE_SWAP")
    assert swap is not None and swap.when is ReadWhen.NOT_READ and swap.replaced_by == "megengine.dtr.enable()"
