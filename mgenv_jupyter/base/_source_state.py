"""What a memory source is doing, as a code and its arguments: `State("not_imported", framework="paddle")`.

Code acts on the code (`state.code == NO_GPU`, `state.has(FOREIGN_PIDS)`), never on words: the words are chosen at the
edge, from the code, in the session's language (memory/_state_words.py for the kernel's text, the chart's status line
in the front end). Arguments are the parts that vary, as text: a framework's name, a device, an exception's message.
A source with several problems at once (one per GPU) says `PROBLEMS`, its parts each a state of its own, named by
the device or source it concerns in the part's argument `where`; parts are never compound themselves.

On the wire (protocol/_memory.py `StateInfo`) a state is `{"code", "args", "parts"}`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ..protocol._memory import StateInfo

OK = "ok"
PROBLEMS = "problems"
# NVML's pids match no process of this kernel: a container's own pid namespace (the kernel then reports itself).
FOREIGN_PIDS = "foreign_pids"
NO_LIBRARY = "no_library"  # no NVIDIA driver: libnvidia-ml.so.1 not found
NOT_LOADED = "driver_not_loaded"  # no NVIDIA driver: the driver is not loaded
NO_GPU = "no_gpu"  # NVML answers and lists no GPU
NOT_IMPORTED = "not_imported"
HOST_IDLE = "host_idle"  # host memory is the fallback and a GPU is visible
HOLDS_NOTHING = "holds_nothing"  # ok, and the framework holds no GPU memory yet
LOST = "lost"  # a cluster node's stream failed

# States about a missing driver: the server's view says "no driver" for each.
NO_DRIVER = frozenset({NO_LIBRARY, NOT_LOADED})


@dataclass(frozen=True)
class State:
    """A code, its arguments (name → text) and, for `PROBLEMS`, its parts. Hashable: words are cached per state."""

    code: str
    args: tuple[tuple[str, str], ...] = ()
    parts: tuple[State, ...] = ()

    def __init__(self, code: str, parts: Iterable[State] = (), /, **args: object) -> None:
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "args", tuple((name, str(value)) for name, value in args.items()))
        object.__setattr__(self, "parts", tuple(parts))

    def arg(self, name: str, default: str = "") -> str:
        return next((value for key, value in self.args if key == name), default)

    @property
    def arguments(self) -> dict[str, str]:
        return dict(self.args)

    def has(self, code: str) -> bool:
        """Whether this state, or one of its parts, is `code`."""
        return self.code == code or any(part.code == code for part in self.parts)

    def at(self, where: str) -> State:
        """This state as a part about `where` (a device, a source)."""
        return State(self.code, **{**self.arguments, "where": where})

    def wire(self) -> StateInfo:
        """JSON-ready: {"code", "args", "parts"}."""
        return {"code": self.code, "args": self.arguments,
                "parts": [{"code": p.code, "args": p.arguments} for p in self.parts]}


STATE_OK = State(OK)


def problems(parts: Iterable[State]) -> State:
    """One part as it is, several as `PROBLEMS` (duplicates once), none as ok."""
    unique = list(dict.fromkeys(parts))
    if not unique:
        return STATE_OK
    return unique[0] if len(unique) == 1 else State(PROBLEMS, unique)


def from_wire(raw: Mapping[str, object], clean: Callable[[str], str], most_args: int = 8, most_parts: int = 16) -> \
        State | None:
    """A state sent by another process (a cluster node), checked: a short code, at most `most_args` text arguments
    (each through `clean`, which bounds it), parts that are not compound; None when it is not one."""
    code, args = raw.get("code"), raw.get("args", {})
    if not isinstance(code, str) or not 0 < len(code) <= 40 or not code.isidentifier() or not isinstance(args, dict):
        return None
    if len(args) > most_args or not all(isinstance(k, str) and k.isidentifier() and len(k) <= 40 and
                                        isinstance(v, str) for k, v in args.items()):
        return None
    parts: list[State] = []
    raw_parts = raw.get("parts", [])
    if not isinstance(raw_parts, list) or len(raw_parts) > most_parts:
        return None
    for raw_part in raw_parts:
        part = from_wire(raw_part, clean, most_args, 0) if isinstance(raw_part, dict) else None
        if part is None or part.parts:
            return None
        parts.append(part)
    return State(code, parts, **{k: clean(v) for k, v in args.items()})
