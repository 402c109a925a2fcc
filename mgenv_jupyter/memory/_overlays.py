"""Horizontal lines drawn over the memory chart: each device's total, MegEngine's DTR eviction threshold, and Paddle's
first-chunk cap. Values come from the framework itself when it is loaded (what it really uses), else from the kernel's
session (what it will read at import).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, cast

from .._errors import InvalidValueError
from .._imported import imported
from .._text import Text, current_language
from ..catalog._applicability import ALWAYS, Applicability, applicability
from ..catalog._values import format_size
from ..protocol import OverlayInfo, OverlayKind
from ..runtime import EnvSession
from ..runtime.frameworks import live_api
from ._sample import DeviceId, series_key

log = logging.getLogger(__name__)
MiB = 1024**2

DTR_THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"
DTR_AUTO_DROP = "MEGENGINE_DTR_AUTO_DROP"
PADDLE_FLAGS = ("FLAGS_allocator_strategy", "FLAGS_fraction_of_gpu_memory_to_use", "FLAGS_initial_gpu_memory_in_mb")

# The lines' words, in the kernel's language (the chart shows them as the kernel sends them).
TOTAL = Text("{device} total ({size})", "{device} 总量({size})")
TOTAL_SHORT = Text("total", "总量")
TOTAL_SHORT_OF = Text("{device} total", "{device} 总量")
TOTAL_NOTE = Text("the device's memory", "设备的显存")
DTR_LABEL = Text("DTR eviction threshold ({size})", "DTR 释放阈值({size})")
DTR_FROM_LIVE = Text("megengine's live option dtr_eviction_threshold", "megengine 的实时选项 dtr_eviction_threshold")
DTR_FROM_ENV = Text("{name} in the environment; megengine reads it at import", "环境变量 {name};megengine 在导入时读取")
DTR_NOTE = Text("from {origin}; compares with MegEngine's live tensor memory (megengine allocated)",
                "来自{origin};与 MegEngine 实时的 tensor 显存(megengine 已分配)比较")
DTR_OFF = Text("; DTR auto drop is off, so nothing is evicted at this line yet",
               ";DTR 自动释放已关闭,到达此线时尚不会释放")
PADDLE_LABEL = Text("Paddle first chunk ({size})", "Paddle 首块显存({size})")
PADDLE_SHARE = Text("FLAGS_fraction_of_gpu_memory_to_use={fraction} × total; Paddle takes that share of the memory "
                    "*available* at its first allocation, so the real chunk is at most this",
                    "FLAGS_fraction_of_gpu_memory_to_use={fraction} × 总量;Paddle 在首次分配时取*可用*显存的这一比例,"
                    "所以实际的块最多这么大")
PADDLE_NOTE = Text("{reason}: {how}; when the chunk is used up Paddle requests another",
                   "{reason}:{how};这块用完后 Paddle 会再申请一块")
DRAWN = Text("drawn", "已绘出")
SIMULATED = Text("(simulated)", "(模拟)")


@dataclass(frozen=True)
class Overlay:
    """One line: `kind` is "total", "dtr_threshold" or "paddle_cap"; `device` is the device label it belongs to
    (None: not tied to one device); `label` names it with its size ("DTR eviction threshold (8 GiB)"); `short` is the
    name a chart writes beside the line, where room is scarce ("DTR"; the chart adds the size); `note` says what the
    line means and where its value came from; `series`, the series it stands for (a total's), and `node`, its
    device's cluster node, let a chart place it without reading its words."""

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
    language = current_language()
    lines = [Overlay("total", device.label, total, TOTAL.get(language).format(device=_shown(device, language),
                                                                            size=format_size(total)),
                     TOTAL_SHORT.get(language) if len(totals) == 1
                     else TOTAL_SHORT_OF.get(language).format(device=_bare(device, with_node=True)),
                     TOTAL_NOTE.get(language),
                     series=series_key(device.label, "total"), node=device.node)
             for device, total in totals.items()]
    if session is None:
        return lines
    for build in (lambda: _dtr_threshold(session, language), lambda: _paddle_caps(session, gpu_totals, language)):
        try:
            lines.extend(build())
        except Exception:  # an overlay is decoration; it must never stop the sampler
            log.debug("overlay failed", exc_info=True)
    return lines


def _dtr_threshold(session: EnvSession, language: str) -> list[Overlay]:
    entry = session.catalog.get(DTR_THRESHOLD)
    if entry is None:
        return []
    api = live_api(entry)
    live = api.read(entry) if api is not None else None
    if api is not None and live is not None:  # megengine is loaded: its C++ option is the truth
        value = int(live)
        origin = DTR_FROM_LIVE.get(language)
        auto = session.catalog.get(DTR_AUTO_DROP)
        auto_api = live_api(auto) if auto is not None else None
        enabled = auto is None or auto_api is None or auto_api.read(auto) not in ("0", "False")
    else:
        text = session.get(DTR_THRESHOLD)
        if text is None:
            return []
        try:
            value = int(entry.type.parse(text).value)
        except InvalidValueError:
            return []
        origin = DTR_FROM_ENV.get(language).format(name=DTR_THRESHOLD)
        enabled = session.get(DTR_AUTO_DROP) not in (None, "0")
    if value <= 0:  # 0: no threshold, DTR evicts only when an allocation fails
        return []
    off = "" if enabled else DTR_OFF.get(language)
    return [Overlay("dtr_threshold", None, value, DTR_LABEL.get(language).format(size=format_size(value)), "DTR",
                    DTR_NOTE.get(language).format(origin=origin) + off)]


def _paddle_caps(session: EnvSession, gpu_totals: Mapping[DeviceId, int], language: str) -> list[Overlay]:
    flags = _paddle_flags(session)
    if flags is None:
        return []
    fraction = float(flags["FLAGS_fraction_of_gpu_memory_to_use"])
    initial_mb = int(float(flags["FLAGS_initial_gpu_memory_in_mb"]))
    sizing = "FLAGS_initial_gpu_memory_in_mb" if initial_mb > 0 else "FLAGS_fraction_of_gpu_memory_to_use"
    applies = paddle_cap_applies(session, flags, sizing, language)
    if not applies.applies:
        return []  # the catalog's rule: outside naive_best_fit (auto_growth, the default) there is no cap to draw
    lines = []
    for device, total in gpu_totals.items():
        if initial_mb > 0:
            value = initial_mb * MiB
            how = f"FLAGS_initial_gpu_memory_in_mb={initial_mb}"
        else:
            value = int(fraction * total)
            how = PADDLE_SHARE.get(language).format(fraction=f"{fraction:.3g}")
        short = "Paddle" if len(gpu_totals) == 1 else f"Paddle {_bare(device)}"
        lines.append(Overlay("paddle_cap", device.label, value,
                             PADDLE_LABEL.get(language).format(size=format_size(value)), short,
                             PADDLE_NOTE.get(language).format(reason=applies.reason or DRAWN.get(language), how=how),
                             node=device.node))
    return lines


def paddle_cap_applies(session: EnvSession, flags: Mapping[str, Any], name: str, language: str = "en"
                       ) -> Applicability:
    """Whether the pool size `name` (which sizes the cap) matters with Paddle's `flags`, by the catalog's own rule for
    it (its `applies_when`, evaluated as every front end evaluates it), not by a copy of that rule here."""
    entry = session.catalog.get(name)
    if entry is None:
        return ALWAYS

    def lookup(variable: str) -> str | None:
        value = flags[variable] if variable in flags else session.get(variable)
        return None if value is None else str(value)

    return applicability(session.catalog, entry, lookup, language)


def _shown(device: DeviceId, language: str) -> str:
    """A device in the chart's words, without its node (a chart lists the line under its node): "gpu0 (simulated)"
    is "gpu0 (模拟)" in Chinese."""
    return _bare(device) + (" " + SIMULATED.get(language) if device.simulated else "")


def _bare(device: DeviceId, with_node: bool = False) -> str:
    """A device without the "(simulated)" mark: in a short label the status line has already said so. A short label
    beside the plot names the node too (`with_node`): there it stands under no node's heading."""
    return " ".join(part for part in (device.node if with_node else None, device.framework, device.device) if part)


def _paddle_flags(session: EnvSession) -> dict[str, Any] | None:
    paddle = imported("paddle")
    if paddle is not None and hasattr(paddle, "get_flags"):
        return dict(paddle.get_flags(list(PADDLE_FLAGS)))
    if all(session.get(name) is None for name in PADDLE_FLAGS):
        return None
    flags = {}
    for name in PADDLE_FLAGS:
        entry = session.catalog.get(name)
        text = session.get(name)
        flags[name] = text if text is not None else (entry.default if entry is not None else None)
    if flags["FLAGS_fraction_of_gpu_memory_to_use"] is None or flags["FLAGS_initial_gpu_memory_in_mb"] is None:
        return None
    return flags
