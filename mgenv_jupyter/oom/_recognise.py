"""Which exceptions are out-of-memory failures, in which framework, on which device, and what their message says.

Matching is on the exception's classes (module-qualified names along its MRO, so no framework is imported to ask) and
on the message each framework writes, as each framework's adapter describes them (`OOM_PATTERNS`: the text of the
framework's own source, or an error captured from the real framework: tests/data/cuda_facts_h100.json on an H100;
tests/data/oom/tensorflow_messages.json; the CPU ones in each framework's venv, tests/frameworks/test_oom_real.py).
The chain (`__cause__`, `__context__`) is followed, because MegEngine raises an `AsyncError` whose cause holds the
allocator's message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from ..catalog._secrets import redact
from ..runtime.frameworks import offered
from ..runtime.frameworks._out_of_memory import MESSAGE_CHARS, OomPattern, parse_size

__all__ = ["OutOfMemory", "parse_size", "recognise"]

_MAX_DEPTH = 8  # links of the exception chain followed
# Of a message, the part searched for credentials before the first MESSAGE_CHARS are kept: masking the whole of a
# huge message could take seconds after the user's cell, and a credential cut at this bound could only reach the kept
# part if masking had shortened the 64 Ki characters before it to less than 2000.
_REDACTED_CHARS = 64 * 1024
# Of a message, the part the patterns are searched in: every framework states the failure at the start of its text,
# and a crafted message of megabytes must cost no more than this (every pattern is also linear in the text).
_SEARCHED_CHARS = 64 * 1024


@dataclass(frozen=True)
class OutOfMemory:
    """One recognised out-of-memory failure.

    `framework`: "torch", "jax", "tensorflow", "paddle", "megengine", "mxnet", "cupy", or "python" (a plain
    `MemoryError`). `device`: "gpu" or "host". `gpu`: the GPU's index where the message names it. `requested`:
    bytes the failed allocation asked for, where the message says. `facts`: other sizes the message states (PyTorch's
    `total`, `free`, `in_use`, `allocated`, `cached_free` = reserved but unallocated, `allowed`). `exception`: the
    qualified class of the exception that carried the message; `message`: that message (at most 2000 characters), with
    every credential-shaped part masked (a URL with a password, a token: `catalog.secrets.redact`).
    """

    framework: str
    device: str
    exception: str
    message: str
    gpu: int | None = None
    requested: int | None = None
    facts: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {"framework": self.framework, "device": self.device, "gpu": self.gpu, "requested": self.requested,
                "facts": dict(self.facts), "exception": self.exception, "message": self.message}


# A plain MemoryError, whatever raised it: after every adapter's patterns.
_ANY_MEMORY_ERROR = OomPattern("python", "host", ("builtins.MemoryError",), None)


@lru_cache(maxsize=1)
def patterns() -> tuple[OomPattern, ...]:
    """Every adapter's patterns (`oom_patterns`), in the registry's order, then a plain MemoryError: the first that
    matches a link of the exception's chain wins."""
    found = offered(lambda adapter: adapter.oom_patterns).values()
    return (*(pattern for patterns in found for pattern in patterns), _ANY_MEMORY_ERROR)


def _class_names(exc: BaseException) -> set[str]:
    return {f"{cls.__module__}.{cls.__qualname__}" for cls in type(exc).__mro__}


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception, then its causes and contexts, each once, at most _MAX_DEPTH of them."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(seen) < _MAX_DEPTH and all(current is not s for s in seen):
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # a broken __str__ must not break the user's cell twice
        return ""


def recognise(exc: BaseException) -> OutOfMemory | None:
    """The out-of-memory failure `exc` is (or was caused by), or None when it is none."""
    for link in _chain(exc):
        names = _class_names(link)
        text = _message(link)
        searched = text[:_SEARCHED_CHARS]
        for pattern in patterns():
            if not names.intersection(pattern.classes):
                continue
            match = pattern.search(searched)
            if pattern.message is not None and match is None:
                continue
            facts = pattern.facts(match)
            gpu = facts.pop("gpu", None)
            requested = facts.pop("requested", None)
            device = pattern.device
            if pattern.where is not None:
                device, gpu = pattern.where(match, searched)
            cls = type(link)
            return OutOfMemory(pattern.framework, device, f"{cls.__module__}.{cls.__qualname__}",
                               redact(text[:_REDACTED_CHARS])[:MESSAGE_CHARS], gpu, requested, facts)
    return None
