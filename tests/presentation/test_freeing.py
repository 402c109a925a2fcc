"""How a free and what holds memory are shown (presentation/_freeing.py): the figures before and after with what
changed, the sections in English and Chinese, the HTML escaping what it shows, the wire data in the schema's shape;
and the out-of-memory report's offer, decided from what the failed call's frames hold and the allocator's cache."""

from __future__ import annotations

import sys

import numpy as np

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.memory._holders import Holder, Holders
from mgenv_jupyter.oom._free import FreeOffer, FreeResult, Reading
from mgenv_jupyter.presentation._freeing import FreeView, HoldersView, offer_info, offer_line
from mgenv_jupyter.protocol._freeing import FreeResultData, HoldersData
from mgenv_jupyter.protocol._oom import OomFreeOffer

from wire_check import check

GiB, MiB = 1024**3, 1024**2


def result(**changes) -> FreeResult:
    before = Reading(1.0, 800 * MiB, {"gpu0 (simulated)": 38 * GiB}, {"torch gpu0": (21 * GiB, 37 * GiB)})
    after = Reading(2.0, 300 * MiB, {"gpu0 (simulated)": 2 * GiB}, {"torch gpu0": (1 * GiB, 1 * GiB)})
    fields = {"before": before, "after": after, "cleared": (Text("the frames <b>", "帧 <b>"),),
              "released": ("torch.cuda.empty_cache()",), "not_asked": (), "collected": 3, "outputs": None,
              "simulated": True, **changes}
    return FreeResult(**fields)


def test_the_figures_before_and_after_with_what_changed():
    rows = [(f["label"], f["before"], f["after"], f["change"]) for f in FreeView(result(), "en").figures()]
    assert rows == [
        ("gpu0 (simulated): this kernel (NVML)", 38 * GiB, 2 * GiB, "gave back 36 GiB"),
        ("torch gpu0: allocated", 21 * GiB, 1 * GiB, "gave back 20 GiB"),
        ("torch gpu0: reserved", 37 * GiB, 1 * GiB, "gave back 36 GiB"),
        ("host RSS (this kernel)", 800 * MiB, 300 * MiB, "gave back 500 MiB"),
    ]
    text = repr(FreeView(result(), "en"))
    assert text.startswith("Freed what the failed cell held: gpu0 (simulated): this kernel (NVML) 38 GiB → 2 GiB")
    assert "Allocators asked to give their cache back: torch.cuda.empty_cache()" in text
    assert "%memfree --outputs clears it too" in text  # not asked for: the output cache was kept


def test_chinese_html_escaping_and_the_wire():
    zh = repr(FreeView(result(outputs=4), "zh"))
    assert "gpu0(模拟):本内核(NVML)" in zh and "归还 36 GiB" in zh and "输出缓存" not in zh.split("已清除")[0]
    html = FreeView(result(), "en")._repr_html_()
    assert "<b>" not in html.split("</b>", 1)[1] and "&lt;b&gt;" in html
    check(FreeView(result(), "en").data(), FreeResultData)


def test_a_figure_that_grew_or_is_unknown_says_so():
    grew = result(after=Reading(2.0, 900 * MiB))
    rows = {f["label"]: f["change"] for f in FreeView(grew, "en").figures()}
    assert rows["host RSS (this kernel)"] == "grew by 100 MiB"
    assert rows["gpu0 (simulated): this kernel (NVML)"] == ""  # not read after: nothing claimed


def test_holders_rows_notes_and_their_wire_shape():
    holders = Holders((Holder("model", "Linear (torch)", (("gpu0", GiB),), parameters=2, buffers=1),
                       Holder("view", "torch.Tensor", (), shared=MiB, shares_with=("b",)),
                       Holder("Out[3]", "numpy.ndarray", (("host", MiB),), output_cache=True)),
                      visited=12, took=0.001, skipped=(Text("x: skipped", "x:跳过"),), frameworks=("torch",))
    view = HoldersView(holders, "en")
    lines = repr(view).splitlines()
    assert lines[1] == "  model  1 GiB  Linear (torch): 2 parameters, 1 buffer  [gpu0 1 GiB]"
    assert "  view  0  torch.Tensor  (shares 1 MiB with b)" in lines and "output cache" in lines[3]
    assert "  x: skipped" in lines and lines[-1] == "  12 objects looked at in 1 ms"
    check(view.data(), HoldersData)
    assert "跳过" in repr(HoldersView(holders, "zh"))
    assert "Linear (torch):2 个参数,1 个缓冲区" in repr(HoldersView(holders, "zh"))
    assert "objects looked at" not in repr(HoldersView(holders, "en", timing=False))


def test_the_reports_offer_in_words_and_on_the_wire():
    found = FreeOffer((("big (in step)", 2 * GiB),), (("gpu0", 16 * GiB),))
    line = offer_line(found, "en")
    assert line.startswith("First, without a restart: %memfree — Free what the failed cell holds: the failed call's "
                           "frames still hold "
                           "big (in step) 2 GiB; gpu0's allocator holds 16 GiB reserved but unallocated")
    info = offer_info(found, "zh")
    check(info, OomFreeOffer)
    assert info["button"] == "释放内存" and "失败调用的帧仍持有" in info["why"]


def test_the_offer_names_what_the_failed_calls_frames_hold_and_nothing_once_freed():
    from mgenv_jupyter.oom._free import drop_failed_cell, offer

    def step() -> None:
        big = np.ones(3 * MiB, dtype=np.uint8)  # noqa: F841  (held by the frame)
        raise MemoryError("stand-in")

    try:
        step()
    except MemoryError as exc:
        sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, exc.__traceback__
    found = offer()
    assert found is not None and found.held == (("big (in step)", 3 * MiB),)
    drop_failed_cell(None)
    assert offer({"gpu0": GiB}) is None  # freed: the report's figures of the moment no longer apply
