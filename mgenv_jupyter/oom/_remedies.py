"""Remedies: for each likely cause, the catalog variables and values that address it, best first, each applied
through the kernel's session (so every rule the kernel enforces applies to it) and saying what the session will say
of it once set ("applied live", "takes effect at first use", "already read, restart needed"...): the session's own
decision, asked ahead (`status_after`), never a second opinion.

Which remedy fixes which cause (the issue's table): fragmentation — PyTorch `expandable_segments:True` in its
allocator config, MXNet `MXNET_GPU_MEM_POOL_TYPE=Round`, Paddle `FLAGS_allocator_strategy=auto_growth`, TensorFlow
`TF_GPU_ALLOCATOR=cuda_malloc_async`; a cap — JAX's memory fraction, then no preallocation; Paddle's
`FLAGS_fraction_of_gpu_memory_to_use`; TensorFlow's allow growth; DTR off (or too big, in MegEngine) — DTR on, its
eviction threshold from the device total minus what other processes hold; another process — move to the GPU with room
(`CUDA_VISIBLE_DEVICES`, PCI bus order so NVML's numbers are CUDA's).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._errors import InvalidValueError
from .._text import Text
from ..catalog._allocator_config import KeyValueConfig
from ..catalog._applicability import effective_text
from ..catalog._megengine_dtr import DTR_PEAK_CAVEAT
from ..runtime._status import Status, furthest
from ._causes import Cause, Figures, Finding, figures, jax_fraction_variable, size
from ._recognise import OutOfMemory
from ._state import MemoryState

if TYPE_CHECKING:
    from ..runtime import EnvSession, SetReport

log = logging.getLogger(__name__)

_DTR_SHARE = 0.8  # of the memory other processes leave: room above the trigger for what DTR cannot evict at once
_GRAIN = 256 * 1024**2



@dataclass(frozen=True)
class Remedy:
    """Catalog variables to set (`assignments`, values as the catalog normalises them), the cause it addresses, why,
    whether the kernel must restart for it to take effect, a caveat where there is one, and what the session will say
    of each variable once it is set (`statuses`: the status `%envdiff`, `%envget` and the sidebar show, from the
    session's one decision; `remedies()` derives `restart` from them, so the two never disagree)."""

    cause: Cause
    assignments: tuple[tuple[str, str], ...]
    why: Text
    restart: bool
    caveat: Text | None = None
    statuses: tuple[tuple[str, Status], ...] = ()

    @property
    def status(self) -> Status:
        """The remedy's status: of its variables', the one furthest from taking effect now (a remedy made without
        statuses says only what its `restart` says)."""
        found = furthest(status for _, status in self.statuses)
        if found is None:
            return Status.ALREADY_READ if self.restart else Status.APPLIED_LIVE
        return found

    @property
    def when(self) -> Text:
        """What the session calls that status ("takes effect at first use", "already read, restart needed", ...)."""
        return self.status.label

    @property
    def envset(self) -> str:
        """The magic to type (or copy) for it."""
        return "%envset " + " ".join(f"{name}={value}" for name, value in self.assignments)

    def apply(self, session: EnvSession | None = None, source: str = "api") -> SetReport:
        """Set it through the session: validated, all or nothing, applied live where the framework allows, warned
        about where a restart is needed (then the Framework Env sidebar's Restart and apply brings it in)."""
        if session is None:
            from ..runtime import session as kernel_session

            session = kernel_session()
        return session.set(list(self.assignments), source=source)

    def to_json(self) -> dict[str, object]:
        return {"cause": self.cause.value, "assignments": [list(pair) for pair in self.assignments],
                "restart": self.restart, "status": self.status.value,
                "statuses": {name: status.value for name, status in self.statuses}, "when": self.when.en,
                "envset": self.envset, "why": self.why.en}


def status_after(session: EnvSession, assignments: tuple[tuple[str, str], ...]) -> dict[str, Status]:
    """What the session will say of each variable once `assignments` are set through it, asked before anything is
    set (`EnvSession.status_after`: the same checks, live calls and status decision as `set`). So the report says what
    `%envset`, then `%envdiff`, `%envget` and the sidebar say: never a restart where they say "takes effect at first
    use", nor the reverse."""
    return session.status_after(assignments, source="oom_report")


def _default(session: EnvSession, name: str) -> str:
    """The catalog's default of `name` (what the framework reads when it is unset)."""
    entry = session.catalog.get(name)
    return entry.default if entry is not None and entry.default is not None else ""


def _allocator_conf(session: EnvSession) -> tuple[str, str] | None:
    """PyTorch's allocator config with expandable_segments:True added to what is set (None: it already is)."""
    name = "PYTORCH_ALLOC_CONF" if session.get("PYTORCH_ALLOC_CONF") else "PYTORCH_CUDA_ALLOC_CONF"
    current = session.get(name) or ""
    config = session.catalog.get(name)
    try:  # the catalog's own reading of the config (PyTorch's tokenizer's rules)
        pairs = dict(config.type.split(current)) if config is not None and isinstance(
            config.type, KeyValueConfig) else {}
    except InvalidValueError:  # set outside the session to what PyTorch cannot read: start afresh
        pairs = {}
    if pairs.get("expandable_segments", "").lower() == "true":
        return None
    pairs["expandable_segments"] = "True"
    return name, ",".join(f"{key}:{value}" for key, value in pairs.items())


def _plans(event: OutOfMemory, finding: Finding, f: Figures, state: MemoryState,
           session: EnvSession) -> list[tuple[list[tuple[str, str]], Text, Text | None]]:
    """(assignments, why, caveat) for one cause, best first."""
    get = session.get
    fw = event.framework
    cause = finding.cause
    plans: list[tuple[list[tuple[str, str]], Text, Text | None]] = []
    if cause is Cause.FRAGMENTATION:
        if fw == "torch" and (conf := _allocator_conf(session)) is not None:
            plans.append(([conf], Text("PyTorch maps memory in growable segments instead of fixed blocks, so freed "
                                       "space can be reused for larger tensors",
                                       "PyTorch 改用可增长的显存段而非固定大小的块,释放的空间可以复用于更大的 tensor"),
                          None))
        if fw == "mxnet" and get("MXNET_GPU_MEM_POOL_TYPE") != "Round":
            plans.append(([("MXNET_GPU_MEM_POOL_TYPE", "Round")], Text(
                "MXNet's pool rounds sizes, so freed blocks fit later requests", "MXNet 的显存池按取整后的大小复用,"
                "释放的块可以满足之后的申请"), None))
        if fw == "paddle" and effective_text(session.catalog, "FLAGS_allocator_strategy", get) != "auto_growth":
            plans.append(([("FLAGS_allocator_strategy", "auto_growth")], Text(
                "Paddle's auto_growth allocator grows and splits its chunks as needed",
                "Paddle 的 auto_growth 分配器按需增长并切分显存块"), None))
        if fw == "tensorflow" and get("TF_GPU_ALLOCATOR") != "cuda_malloc_async":
            plans.append(([("TF_GPU_ALLOCATOR", "cuda_malloc_async")], Text(
                "CUDA's own asynchronous allocator in place of TensorFlow's BFC pool",
                "用 CUDA 自带的异步分配器代替 TensorFlow 的 BFC 显存池"), None))
    elif cause is Cause.CAP:
        if fw == "jax":
            name = jax_fraction_variable(get)
            room = 0.95 if not f.total else min(0.95, (f.total - (f.others or 0)) / f.total * 0.95)
            plans.append(([(name, f"{max(room, 0.05):.2f}")], Text(
                "JAX's allocator may then take this share of the GPU", "JAX 的分配器可以使用 GPU 的这一比例"), None))
            # JAX's own reading: only "false", "False" and "0" turn it off (the catalog's caveat)
            if (get("XLA_PYTHON_CLIENT_PREALLOCATE") or _default(session, "XLA_PYTHON_CLIENT_PREALLOCATE")
                    ).lower() != "false":
                plans.append(([("XLA_PYTHON_CLIENT_PREALLOCATE", "false")], Text(
                    "JAX allocates as it goes instead of taking its whole share at the start",
                    "JAX 按需分配,而不是一开始就占满其份额"), None))
        if fw == "paddle":
            plans.append(([("FLAGS_fraction_of_gpu_memory_to_use", "0.95")], Text(
                "naive_best_fit's pool may then take 95% of the GPU",
                "naive_best_fit 的显存池可使用 GPU 的 95%"), None))
        if fw == "tensorflow":
            plans.append(([("TF_FORCE_GPU_ALLOW_GROWTH", "true")], Text(
                "TensorFlow takes GPU memory as it needs it", "TensorFlow 按需占用显存"), None))
    elif cause in (Cause.DTR_OFF, Cause.TOO_BIG) and fw == "megengine":
        from ._causes import dtr_enabled

        if not dtr_enabled(session):
            spare = (f.total - (f.others or 0)) if f.total else None
            pairs = [("MEGENGINE_ENABLE_DROP", "1"), ("MEGENGINE_DTR_AUTO_DROP", "1"),
                     ("MEGENGINE_RECORD_COMPUTING_PATH", "1")]
            why_en, why_zh = "DTR evicts tensors and recomputes them when needed", "DTR 释放 tensor,需要时重新计算"
            if spare:
                threshold = max(_GRAIN, int(spare * _DTR_SHARE) // _GRAIN * _GRAIN)
                pairs.append(("MEGENGINE_DTR_EVICTION_THRESHOLD", str(threshold)))
                why_en += (f"; eviction starts at {size(threshold)}, {_DTR_SHARE:.0%} of the {size(spare)} "
                           "other processes leave on the GPU")
                why_zh += (f";活跃 tensor 超过 {size(threshold)} 时开始驱逐,"
                           f"即其他进程留下的 {size(spare)} 的 {_DTR_SHARE:.0%}")
            plans.append((pairs, Text(why_en, why_zh), DTR_PEAK_CAVEAT))
    elif cause is Cause.OTHER_PROCESS:
        target = _roomier_gpu(event, f, state)
        if target is not None:
            index, free = target
            plans.append(([("CUDA_DEVICE_ORDER", "PCI_BUS_ID"), ("CUDA_VISIBLE_DEVICES", str(index))], Text(
                f"gpu{index} has {size(free)} free; PCI bus order makes CUDA number the GPUs as NVML does",
                f"gpu{index} 有 {size(free)} 空闲;按 PCI 总线顺序编号,CUDA 与 NVML 的 GPU 编号一致"), None))
    return plans


def _roomier_gpu(event: OutOfMemory, f: Figures, state: MemoryState) -> tuple[int, int] | None:
    """The GPU with the most free memory, if it could hold what this kernel held plus the request."""
    failing = f.device.gpu if f.device is not None else event.gpu
    need = (f.kernel or 0) + (f.requested or 0)
    best = max(((d.gpu, d.free) for d in state.devices if d.gpu is not None and d.gpu != failing
                and d.free is not None), key=lambda item: item[1], default=None)
    if best is None or best[1] < need:
        return None
    return best[0], best[1]  # type: ignore[return-value]


def remedies(event: OutOfMemory, findings: list[Finding], state: MemoryState, session: EnvSession) -> list[Remedy]:
    """The remedies for `findings` (likeliest cause first), each checked against the catalog: a value the catalog
    refuses is left out (and logged), never offered."""
    f = figures(event, state)
    chosen: list[Remedy] = []
    seen: set[tuple[tuple[str, str], ...]] = set()
    for finding in findings:
        for pairs, why, caveat in _plans(event, finding, f, state, session):
            try:
                normalised = tuple((name, _normalised(session, name, value)) for name, value in pairs)
                statuses = status_after(session, normalised)  # the whole batch as `set` checks it
            except InvalidValueError as exc:
                log.warning("remedy %s left out: %s", pairs, exc)
                continue
            if normalised in seen:
                continue
            seen.add(normalised)
            restart = any(status.needs_restart for status in statuses.values())
            chosen.append(Remedy(finding.cause, normalised, why, restart, caveat, tuple(statuses.items())))
    return chosen


def _normalised(session: EnvSession, name: str, value: str) -> str:
    entry = session.catalog.get(name)
    if entry is None:
        raise InvalidValueError(f"{name} is not in the catalog")
    return entry.type.parse(value).text
