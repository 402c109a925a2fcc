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

from ..base._text import Text, page_language
from ..catalog._values import format_size
from ..protocol import OverlayInfo, OverlayKind
from ..runtime import EnvSession
from ..runtime.frameworks import offered
from ._sample import DeviceId, series_key

log = logging.getLogger(__name__)

# The lines' words, in the page's language (the chart shows them as the kernel sends them, among its own words).
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
    size); `note` says what the line means and where its value came from; `series`, the series it stands for (a
    total's), and `node`, its device's cluster node, let a chart place it without reading its words."""

    kind: OverlayKind
    device: str | None
    bytes: int
    label: str
    short: str
    note: str
    series: str | None = None  # the series the line stands for: a device's total series
    node: str | None = None  # the cluster node of its device

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.device or '*'}"

    def to_json(self) -> OverlayInfo:
        # The wire's OverlayInfo is the key, then these fields: tests/memory/test_overlays.py checks that both declare
        # the same names with the same types, so a field added to one side only fails there, not in a front end.
        return cast(OverlayInfo, {"key": self.key, **asdict(self)})


def overlays(session: EnvSession | None, totals: Mapping[DeviceId, int], gpu_totals: Mapping[DeviceId, int]
             ) -> list[Overlay]:
    """The lines for the current state. `totals`: every device's total; `gpu_totals`: those of NVML's GPUs (the
    Paddle cap is a share of them); `session`: what the kernel set (None: device totals only). Never raises: a
    framework that fails to answer just gives no line."""
    language = page_language()
    lines = [Overlay("total", device.label, total, TOTAL.get(language).format(device=_shown(device, language),
                                                                            size=format_size(total)),
                     TOTAL_SHORT.get(language) if len(totals) == 1
                     else TOTAL_SHORT_OF.get(language).format(device=_bare(device, with_node=True)),
                     TOTAL_NOTE.get(language),
                     series=series_key(device.label, "total"), node=device.node)
             for device, total in totals.items()]
    if session is None:
        return lines
    # The adapters name a GPU by its label (the runtime knows no DeviceId); the label leads back to the device's
    # fields, its node among them.
    gpus = {device.label: device for device in gpu_totals}
    labelled = {device.label: total for device, total in gpu_totals.items()}
    for draw in offered(lambda adapter: adapter.chart_lines).values():
        try:
            drawn = draw(session, labelled, language)
        except Exception:  # an overlay is decoration; it must never stop the sampler
            log.debug("overlay failed", exc_info=True)
            continue
        for line in drawn:
            device = gpus.get(line.device) if line.device is not None else None
            lines.append(Overlay(cast(OverlayKind, line.kind), line.device, line.bytes, line.label,
                                 _short(line.short, device, gpu_totals), line.note,
                                 node=device.node if device is not None else None))
    return lines


def _short(short: str, device: DeviceId | None, gpu_totals: Mapping[DeviceId, int]) -> str:
    """A framework's line's short name, with its device where there are several GPUs ("Paddle gpu1")."""
    return short if device is None or len(gpu_totals) == 1 else f"{short} {_bare(device)}"


def _shown(device: DeviceId, language: str) -> str:
    """A device in the chart's words, without its node (a chart lists the line under its node): "gpu0 (simulated)"
    is "gpu0 (模拟)" in Chinese."""
    return _bare(device) + (" " + SIMULATED.get(language) if device.simulated else "")


def _bare(device: DeviceId, with_node: bool = False) -> str:
    """A device without the "(simulated)" mark: in a short label the status line has already said so. A short label
    beside the plot names the node too (`with_node`): there it stands under no node's heading."""
    return " ".join(part for part in (device.node if with_node else None, device.framework, device.device) if part)


