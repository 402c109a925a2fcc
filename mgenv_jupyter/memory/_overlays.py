"""Horizontal lines drawn over the memory chart: each device's total, and the lines a framework's settings draw, as
its adapter says (`chart_lines`: MegEngine's DTR eviction threshold, Paddle's first-chunk cap). Their values come
from the framework itself when it is loaded (what it really uses), else from the kernel's session (what it will read
at import).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import cast

from .._text import Text, current_language
from ..catalog._values import format_size
from ..protocol import OverlayInfo, OverlayKind
from ..runtime import EnvSession
from ..runtime.frameworks import declared

log = logging.getLogger(__name__)

# The lines' words, in the kernel's language (the chart shows them as the kernel sends them).
TOTAL = Text("{device} total ({size})", "{device} 总量({size})")
TOTAL_SHORT = Text("total", "总量")
TOTAL_SHORT_OF = Text("{device} total", "{device} 总量")
TOTAL_NOTE = Text("the device's memory", "设备的显存")
SIMULATED = Text("(simulated)", "(模拟)")


@dataclass(frozen=True)
class Overlay:
    """One line: `kind` is "total" or a framework's line (protocol/_memory.py OverlayKind); `device` is the device
    label it belongs to (None: not tied to one device); `label` names it with its size ("DTR eviction threshold
    (8 GiB)"); `short` is the name a chart writes beside the line, where room is scarce ("DTR"; the chart adds the
    size); `note` says what the line means and where its value came from."""

    kind: OverlayKind
    device: str | None
    bytes: int
    label: str
    short: str
    note: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.device or '*'}"

    def to_json(self) -> OverlayInfo:
        # The wire's OverlayInfo is the key, then these fields: tests/memory/test_overlays.py checks that both declare
        # the same names with the same types, so a field added to one side only fails there, not in a front end.
        return cast(OverlayInfo, {"key": self.key, **asdict(self)})


def overlays(session: EnvSession | None, totals: Mapping[str, int], gpu_totals: Mapping[str, int]) -> list[Overlay]:
    """The lines for the current state. `totals`: every device's total; `gpu_totals`: those of NVML's GPUs (the
    Paddle cap is a share of them); `session`: what the kernel set (None: device totals only). Never raises: a
    framework that fails to answer just gives no line."""
    language = current_language()
    lines = [Overlay("total", device, total, TOTAL.get(language).format(device=_shown(device, language),
                                                                      size=format_size(total)),
                     TOTAL_SHORT.get(language) if len(totals) == 1
                     else TOTAL_SHORT_OF.get(language).format(device=_bare(device)), TOTAL_NOTE.get(language))
             for device, total in totals.items()]
    if session is None:
        return lines
    for draw in declared("chart_lines").values():
        try:
            drawn = draw(session, gpu_totals, language)
        except Exception:  # an overlay is decoration; it must never stop the sampler
            log.debug("overlay failed", exc_info=True)
            continue
        lines.extend(Overlay(cast(OverlayKind, line.kind), line.device, line.bytes, line.label,
                             _short(line.short, line.device, gpu_totals), line.note) for line in drawn)
    return lines


def _short(short: str, device: str | None, gpu_totals: Mapping[str, int]) -> str:
    """A framework's line's short name, with its device where there are several GPUs ("Paddle gpu1")."""
    return short if device is None or len(gpu_totals) == 1 else f"{short} {_bare(device)}"


def _shown(device: str, language: str) -> str:
    """A device's label in the chart's words: "gpu0 (simulated)" is "gpu0 (模拟)" in Chinese."""
    return device.replace(SIMULATED.en, SIMULATED.get(language)) if language != "en" else device


def _bare(device: str) -> str:
    """A device's label without the "(simulated)" mark: in a short label the status line has already said so."""
    return device.removesuffix(" (simulated)")


