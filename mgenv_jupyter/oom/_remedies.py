"""Remedies: for each likely cause, the catalog variables and values that address it, best first, each applied
through the kernel's session (so every rule the kernel enforces applies to it) and saying what the session will say
of it once set ("applied live", "takes effect at first use", "already read, restart needed"...): the session's own
decision, asked ahead (`status_after`), never a second opinion.

Which remedy fixes which cause is each framework's catalog data (`OUT_OF_MEMORY`, catalog/_out_of_memory.py): for
fragmentation, PyTorch `expandable_segments:True` in its allocator config, MXNet `MXNET_GPU_MEM_POOL_TYPE=Round`,
Paddle `FLAGS_allocator_strategy=auto_growth`, TensorFlow `TF_GPU_ALLOCATOR=cuda_malloc_async`; for a cap, JAX's
memory fraction, then no preallocation, Paddle's `FLAGS_fraction_of_gpu_memory_to_use`, TensorFlow's allow growth;
for DTR off (or too big, in MegEngine), DTR on, its eviction threshold from the device total minus what other
processes hold. Another process holding the GPU is the CUDA driver's matter, whatever the framework: move to the GPU
with room (`CUDA_VISIBLE_DEVICES`, PCI bus order so NVML's numbers are CUDA's).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..base._errors import InvalidValueError
from ..base._text import Text
from ..catalog._out_of_memory import Remedy as CatalogRemedy
from ..catalog._out_of_memory import Room
from ..runtime._status import Status, furthest
from ._causes import Cause, Figures, Finding, figures, filled, own_evidence, size
from ._recognise import OutOfMemory
from ._state import MemoryState

if TYPE_CHECKING:
    from ..runtime import EnvSession, SetReport

log = logging.getLogger(__name__)



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


def _plans(event: OutOfMemory, finding: Finding, f: Figures, state: MemoryState,
           session: EnvSession) -> list[tuple[list[tuple[str, str]], Text, Text | None]]:
    """(assignments, why, caveat) for one cause, best first: the failing framework's remedies for it (its catalog
    home's `OUT_OF_MEMORY`), then moving to a roomier GPU when another process holds this one."""
    plans = []
    from ..catalog._homes import facts as framework_facts

    facts = framework_facts(event.framework).out_of_memory
    for remedy in facts.remedies if facts is not None else ():
        if finding.cause.value not in remedy.causes:
            continue
        if remedy.only_if is not None and own_evidence(event, remedy.only_if, f, session) is None:
            continue
        plan = _resolved(remedy, session, Room(f.total, f.others))
        if plan is not None:
            plans.append(plan)
    if finding.cause is Cause.OTHER_PROCESS:
        target = _roomier_gpu(event, f, state)
        if target is not None:
            index, free = target
            plans.append(([("CUDA_DEVICE_ORDER", "PCI_BUS_ID"), ("CUDA_VISIBLE_DEVICES", str(index))], Text(
                f"gpu{index} has {size(free)} free; PCI bus order makes CUDA number the GPUs as NVML does",
                f"gpu{index} 有 {size(free)} 空闲;按 PCI 总线顺序编号,CUDA 与 NVML 的 GPU 编号一致"), None))
    return plans


def _resolved(remedy: CatalogRemedy, session: EnvSession, room: Room
              ) -> tuple[list[tuple[str, str]], Text, Text | None] | None:
    """A remedy's settings worked out from what is set and the GPU's figures (None: the framework has it already),
    its why with the words of the settings that say more."""
    pairs = []
    why = remedy.why
    for setting in remedy.settings:
        resolved = setting.resolve(session.catalog, session.get, room)
        if resolved is None:
            if setting.optional:
                continue
            return None
        pairs.append((resolved.name, resolved.value))
        if setting.says is not None:
            says = filled(setting.says, resolved.figures)
            why = Text(why.en + says.en, why.zh + says.zh)
    return pairs, why, remedy.caveat


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
