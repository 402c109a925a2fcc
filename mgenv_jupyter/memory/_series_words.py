"""A series' or device's name in the user's language: reports and chart labels name series with `series_name()` (the
chart's front end words them the same way, labextension/src/chart/text.ts `seriesName`). Apart from the sources'
states (`_state_words`), whose sentences are patterns: naming a series needs none, and an out-of-memory report,
which names its series, compiles none."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..protocol import SeriesInfo

# The words of a series' name that are ours: the quantity (its last word), the host and the simulation mark.
_NAME_WORDS = {"host": "主机", "(simulated)": "(模拟)", "used": "已用", "total": "总量", "process": "进程",
               "allocated": "已分配", "reserved": "已保留", "peak": "峰值"}


def series_name(key: str, language: str) -> str:
    """A series or device as people read it: "gpu0 (simulated) process" is "gpu0 (模拟) 进程" in Chinese; device and
    framework names stay."""
    if language != "zh":
        return key
    return " ".join(_NAME_WORDS.get(word, word) for word in key.split(" "))


def series_words(info: SeriesInfo, language: str, device: bool = True) -> str:
    """A series' name from its fields (never its key), as the chart's legend writes it: "torch gpu0 allocated", "gpu0
    (模拟) 进程"; `device=False` leaves the device out where it is named once for all (a picture's caption)."""
    words = [info["node"], info["framework"], device_words(info, language) if device else None,
             _word(info["quantity"], language)]
    return " ".join(word for word in words if word)


def device_words(info: SeriesInfo, language: str) -> str:
    """A series' device in `language`: "gpu0 (simulated)", "主机"."""
    return _word(info["device"], language) + (" " + _word("(simulated)", language) if info["simulated"] else "")


def _word(word: str, language: str) -> str:
    return _NAME_WORDS.get(word, word) if language == "zh" else word
