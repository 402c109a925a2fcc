"""Horizontal lines drawn over the memory chart: each device's total, MegEngine's DTR eviction threshold, and Paddle's
first-chunk cap. Values come from the framework itself when it is loaded (what it really uses), else from the kernel's
session (what it will read at import).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..catalog.applicability import ALWAYS, Applicability, applicability
from ..catalog.values import format_size
from ..errors import InvalidValueError
from ..imported import imported
from ..protocol import OverlayInfo, OverlayKind
from ..runtime import EnvSession
from ..runtime.frameworks import live_api

log = logging.getLogger(__name__)
MiB = 1024**2

DTR_THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"
DTR_AUTO_DROP = "MEGENGINE_DTR_AUTO_DROP"
PADDLE_FLAGS = ("FLAGS_allocator_strategy", "FLAGS_fraction_of_gpu_memory_to_use", "FLAGS_initial_gpu_memory_in_mb")


@dataclass(frozen=True)
class Overlay:
    """One line: `kind` is "total", "dtr_threshold" or "paddle_cap"; `device` is the device label it belongs to
    (None: not tied to one device); `label` names it with its size ("DTR eviction threshold (8 GiB)"); `short` is the
    name a chart writes beside the line, where room is scarce ("DTR"; the chart adds the size); `note` says what the
    line means and where its value came from."""

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
        return {"key": self.key, "kind": self.kind, "device": self.device, "bytes": self.bytes, "label": self.label,
                "short": self.short, "note": self.note}


def overlays(session: EnvSession | None, totals: Mapping[str, int], gpu_totals: Mapping[str, int]) -> list[Overlay]:
    """The lines for the current state. `totals`: every device's total; `gpu_totals`: those of NVML's GPUs (the
    Paddle cap is a share of them); `session`: what the kernel set (None: device totals only). Never raises: a
    framework that fails to answer just gives no line."""
    lines = [Overlay("total", device, total, f"{device} total ({format_size(total)})",
                     "total" if len(totals) == 1 else f"{_bare(device)} total", "the device's memory")
             for device, total in totals.items()]
    if session is None:
        return lines
    for build in (lambda: _dtr_threshold(session), lambda: _paddle_caps(session, gpu_totals)):
        try:
            lines.extend(build())
        except Exception:  # an overlay is decoration; it must never stop the sampler
            log.debug("overlay failed", exc_info=True)
    return lines


def _dtr_threshold(session: EnvSession) -> list[Overlay]:
    entry = session.catalog.get(DTR_THRESHOLD)
    if entry is None:
        return []
    api = live_api(entry)
    live = api.read(entry) if api is not None else None
    if api is not None and live is not None:  # megengine is loaded: its C++ option is the truth
        value = int(live)
        origin = "megengine's live option dtr_eviction_threshold"
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
        origin = f"{DTR_THRESHOLD} in the environment; megengine reads it at import"
        enabled = session.get(DTR_AUTO_DROP) not in (None, "0")
    if value <= 0:  # 0: no threshold, DTR evicts only when an allocation fails
        return []
    off = "" if enabled else "; DTR auto drop is off, so nothing is evicted at this line yet"
    return [Overlay("dtr_threshold", None, value, f"DTR eviction threshold ({format_size(value)})", "DTR",
                    f"from {origin}; compares with MegEngine's live tensor memory (megengine allocated){off}")]


def _paddle_caps(session: EnvSession, gpu_totals: Mapping[str, int]) -> list[Overlay]:
    flags = _paddle_flags(session)
    if flags is None:
        return []
    fraction = float(flags["FLAGS_fraction_of_gpu_memory_to_use"])
    initial_mb = int(float(flags["FLAGS_initial_gpu_memory_in_mb"]))
    sizing = "FLAGS_initial_gpu_memory_in_mb" if initial_mb > 0 else "FLAGS_fraction_of_gpu_memory_to_use"
    applies = paddle_cap_applies(session, flags, sizing)
    if not applies.applies:
        return []  # the catalog's rule: outside naive_best_fit (auto_growth, the default) there is no cap to draw
    lines = []
    for device, total in gpu_totals.items():
        if initial_mb > 0:
            value = initial_mb * MiB
            how = f"FLAGS_initial_gpu_memory_in_mb={initial_mb}"
        else:
            value = int(fraction * total)
            how = (f"FLAGS_fraction_of_gpu_memory_to_use={fraction:.3g} × total; Paddle takes that share of the memory "
                   "*available* at its first allocation, so the real chunk is at most this")
        short = "Paddle" if len(gpu_totals) == 1 else f"Paddle {_bare(device)}"
        lines.append(Overlay("paddle_cap", device, value, f"Paddle first chunk ({format_size(value)})", short,
                             f"{applies.reason or 'drawn'}: {how}; when the chunk is used up Paddle requests another"))
    return lines


def paddle_cap_applies(session: EnvSession, flags: Mapping[str, Any], name: str) -> Applicability:
    """Whether the pool size `name` (which sizes the cap) matters with Paddle's `flags`, by the catalog's own rule for
    it (its `applies_when`, evaluated as every front end evaluates it), not by a copy of that rule here."""
    entry = session.catalog.get(name)
    if entry is None:
        return ALWAYS

    def lookup(variable: str) -> str | None:
        value = flags[variable] if variable in flags else session.get(variable)
        return None if value is None else str(value)

    return applicability(session.catalog, entry, lookup, "en")


def _bare(device: str) -> str:
    """A device's label without the "(simulated)" mark: in a short label the status line has already said so."""
    return device.removesuffix(" (simulated)")


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
