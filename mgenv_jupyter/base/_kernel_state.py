"""`KernelState`: everything the extension keeps for its kernel, in one object that every module reaches one way,
through a typed `Slot` that the module owning that kind of state declares. Nothing else keeps kernel state at module
level or as an attribute on the IPython shell.

Why a holder in the base layer, not an object of the front ends that hands each part down: the parts are made and
used by every layer (runtime makes the session, memory the sampler and memtrace, oom the recorder and its reports,
the tuner its sweeps, the front ends the cells' comm), and most of them are asked for from where no front end is on
the stack (the sampler's thread, a report's button, a `verify()` in user code). So each layer keeps making its own
part as before, and keeps it here.

Why slots, not attributes: this module imports nothing above the base layer, not even for the type checker
(tests/quality/test_layers.py counts `TYPE_CHECKING` imports), so it cannot name the parts' classes. A `Slot[T]` is a
key (like a `ContextVar`) declared where `T` is known: `memory/_shared.py` holds `_SAMPLER: Slot[Sampler] =
Slot("the sampler and its history")`, and `_SAMPLER.get()` is a `Sampler | None` to mypy, so a misspelt attribute of
a part is a type error. The state keeps the values by the slot object itself, never by a name; each slot's words are
for people (`KernelState.describe()` lists what the kernel holds, by the slots declared so far).

Why one per process rather than one per shell: IPython's shell is a singleton in its process
(`InteractiveShell.instance()`, which ipykernel and `get_ipython()` return), so a kernel has one shell, and the
callers without a shell in hand (a script calling `mgenv_jupyter.session()`, the sampler's thread) find the same
state. The slots tied to a shell (the cell follower, the hook, the cells' records, memtrace) follow `get_ipython()`'s.

Tests put back what each test made (tests/conftest.py's autouse fixtures: the session, the sampler, the sweep cells);
a test puts a value in for its own length with `monkeypatch.setitem(kernel_state().values, SLOT, value)`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ._last_result import LastResult

T = TypeVar("T")


class KernelState:
    """What the extension keeps for this kernel: one value per declared slot, None until its owner makes it."""

    def __init__(self) -> None:
        # Held while a slot is made (the session, the sampler): made once, whichever thread asks first.
        self.lock = threading.RLock()
        # By slot object. Modules read and write through their slots (typed); tests may monkeypatch an item.
        self.values: dict[Slot[Any], Any] = {}
        # Every slot declared so far, in import order: for `describe()` only, never looked up.
        self.declared: list[Slot[Any]] = []

    def describe(self) -> list[str]:
        """What the kernel holds, a line a slot: its words, and the type of its value (or "empty")."""
        return [f"{slot.what}: {type(self.values[slot]).__name__ if self.values.get(slot) is not None else 'empty'}"
                for slot in self.declared]


_state = KernelState()


def kernel_state() -> KernelState:
    """This kernel's state."""
    return _state


class Slot(Generic[T]):
    """One part of the kernel's state, of type `T`: declared once, at module level, by the module that owns the part
    (`what` says what it holds, for people)."""

    def __init__(self, what: str) -> None:
        self.what = what
        _state.declared.append(self)

    def __repr__(self) -> str:
        return f"Slot({self.what!r})"

    def get(self) -> T | None:
        value: T | None = _state.values.get(self)
        return value

    def set(self, value: T | None) -> None:
        """Keep `value` (None: empty the slot)."""
        if value is None:
            _state.values.pop(self, None)
        else:
            _state.values[self] = value

    def take(self) -> T | None:
        """Empty the slot and return what it held, in one step under the state's lock."""
        with _state.lock:
            value: T | None = _state.values.pop(self, None)
        return value

    def get_or_make(self, make: Callable[[], T]) -> T:
        """The value, made with `make` by the first caller (under the state's lock: made once, whichever thread)."""
        value = self.get()
        if value is not None:  # asked often: no lock once it exists
            return value
        with _state.lock:
            value = self.get()
            if value is None:
                value = make()
                _state.values[self] = value
            return value


class LastResultSlot(Slot[LastResult[T]]):
    """A slot holding a `LastResult[T]` (the last report, free, verify, sweep, offer), made at its first reach."""

    def last(self) -> LastResult[T]:
        return self.get_or_make(lambda: LastResult(self.what))
