"""What holds memory now, by name: the user namespace's variables that hold framework tensors or arrays, with their
size per device, largest first, so a user knows which `del` gives what back.

Found: PyTorch tensors and modules (their parameters and buffers), JAX arrays, Paddle tensors and layers, MegEngine
tensors and modules, MXNet NDArrays and Gluon blocks, and NumPy arrays (host memory), in the namespace's variables
and inside what they hold, down to `MAX_DEPTH` levels. What each framework's objects are and hold is its runtime
adapter's (runtime/frameworks/_tensors.py); no framework is imported, only those already loaded are asked.

Looking runs none of the user's code (a lazy proxy's factory, a mapping that imports modules when touched, a
`__class__` property, `__getattribute__`): an object is classified by `type(x)` and the classes the interpreter
stores for it (mgenv_jupyter/base/_static.py), never by `isinstance`, which asks `x.__class__`. Looked into:
- a tensor or array of an exact type a framework declares, sized through the framework's own attributes;
- a framework's module, a user's subclass included, through the registries read from the instance's own dict;
- a dict, list, tuple, set, frozenset, OrderedDict or defaultdict of exactly that type, through its own C methods;
- an exception, through its arguments, cause, context and traceback; a traceback, through the locals of its frames
  (not a cell's own level, which is the namespace itself, nor IPython's, which hold the whole shell); a suspended
  generator or coroutine, through its frame's locals; a function, through its closure and defaults; a bound method,
  through its object;
- any other object, through its attributes and slots as the interpreter stores them.
Named as "not looked into": a subclass of a built-in container or of a framework's tensor type, and an object whose
class hides its attributes, whose contents only their own code could read. Classes, modules and built-in functions
are libraries' objects, not memory a `del` gives back; so is the kernel's own machinery (IPython's shell, ipykernel,
comms: a widget reaches it), and the namespace's own dicts are walls: a variable that reaches them (through the shell)
does not hold the other variables, which are walked by their own names. No garbage collection runs while the walk
allocates (it would run the finalizers of the user's garbage).

Memory is counted once per storage: two tensors that share one (a view, a slice, `detach()`, a NumPy view and its
base) count once, for the variable that owns the storage (not a view) or else the first one found; the other
variable's row says it shares it. Sizes are the storage's bytes as the framework reports them, without the caching
allocator's rounding.

Bounded whatever the objects are: the walk looks at most at `MAX_VISITS` objects and stops after `MAX_SECONDS` (the
clock is read every few objects); a container's items after its first `MAX_ITEMS` are not looked at, nor is what lies
more than `MAX_DEPTH` levels below a variable (a module's own tree is followed to its end). The variables that are a
tensor or a module are looked at first, then the others. IPython's own variables (`In`, `_i1`, `exit`...) are skipped
and the output cache (`Out`, `_`, `__`, `_N`) is listed as such. `Holders.skipped` says what the bounds left out and
what was not looked into, so the answer is never silently partial; nothing an object does makes the walk raise.
"""

from __future__ import annotations

import gc
import heapq
import logging
import sys
import time
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from types import (
    AsyncGeneratorType,
    BuiltinFunctionType,
    CellType,
    CodeType,
    CoroutineType,
    FrameType,
    FunctionType,
    GeneratorType,
    MethodType,
    ModuleType,
    TracebackType,
)
from typing import Any, ClassVar

from ..base._display import Shown
from ..base._static import (
    classes,
    dict_accessor,
    hides_dict,
    instance_dict,
    module_name,
    slot_accessors,
    slot_values,
    type_name,
)
from ..base._text import Text
from ..runtime.frameworks import tensor_kinds
from ..runtime.frameworks._tensors import BUFFER, HOST, PARAMETER, ModuleKind, Storage, TensorKind

log = logging.getLogger(__name__)

__all__ = ["HOST", "MAX_DEPTH", "MAX_ITEMS", "MAX_ROWS", "MAX_SECONDS", "MAX_VISITS", "Holder", "Holders",
           "HoldersWalk", "memory_holders"]

MAX_DEPTH = 4  # levels below a variable: model.layers[3].weight is 3
MAX_ITEMS = 10_000  # of one container's items
MAX_VISITS = 200_000  # objects looked at in one walk
MAX_SECONDS = 1.0  # of one walk
MAX_ROWS = 1_000  # variables listed, largest first; those past them are summed
_CHECK_CLOCK = 16  # objects between looks at the clock: a look costs about 50 ns, an object about a microsecond
# Counting a variable's bytes once the walk ends costs about what looking at one object does: the walk keeps that
# much of its time bound for it, at the pace it measures on this machine now.
_ASSEMBLY_PER_VISIT = 1.5

# IPython's own names in the user namespace (history, help): never a user's memory.
_IPYTHON_NAMES = frozenset({"In", "_ih", "_dh", "_ii", "_iii", "exit", "quit", "get_ipython", "_sh"})
_OUTPUT_NAMES = frozenset({"Out", "_oh", "_", "__", "___"})

SKIPPED_ITEMS = Text("{name}: only the first {shown:,} of its {total:,} items were looked at",
                     "{name}:只查看了其 {total:,} 项中的前 {shown:,} 项")
SKIPPED_SOME_ITEMS = Text("{name}: only the first {shown:,} of its items were looked at",
                          "{name}:只查看了其前 {shown:,} 项")
SKIPPED_VISITS = Text("the walk stopped after {visits:,} objects (its bound), in {name}; the containers after it were "
                      "not looked into",
                      "遍历在查看 {visits:,} 个对象后停止(上限),停在 {name};之后的容器未查看")
SKIPPED_TIME = Text("the walk stopped after {seconds:g} s (its bound), in {name}; the containers after it were not "
                    "looked into",
                    "遍历在 {seconds:g} 秒后停止(上限),停在 {name};之后的容器未查看")
SKIPPED_FAILED = Text("{name}: could not be measured ({error})", "{name}:无法测量({error})")
WALK_FAILED = Text("the walk ended early ({error})", "遍历提前结束({error})")


@dataclass(frozen=True)
class Holder:
    """One variable of the namespace and the memory it holds.

    `name`: the variable (`Out[3]` for an output-cache entry); `what`: what it is ("torch.Tensor", "Linear (torch)",
    "3 × torch.Tensor"), and for a module its `parameters` and `buffers` (None: not a module); `devices`: bytes per
    device ("host", "gpu0") counted for this variable; `shared`: bytes it also holds that are counted for another
    variable, and `shares_with` those variables' names; `output_cache`: the entry is IPython's output cache
    (`%memfree --outputs` clears it); `partial`: the walk's bound stopped it inside this variable, which holds at
    least this much."""

    name: str
    what: str
    devices: tuple[tuple[str, int], ...]
    shared: int = 0
    shares_with: tuple[str, ...] = ()
    output_cache: bool = False
    parameters: int | None = None
    buffers: int | None = None
    partial: bool = False

    @property
    def bytes(self) -> int:
        return sum(size for _, size in self.devices)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "what": self.what, "bytes": self.bytes, "devices": dict(self.devices),
                "shared": self.shared, "shares_with": list(self.shares_with), "output_cache": self.output_cache,
                "parameters": self.parameters, "buffers": self.buffers, "partial": self.partial}


@dataclass(frozen=True, repr=False)
class Holders(Shown):
    """The variables holding framework memory, largest first (the first `MAX_ROWS`; `unlisted` more hold `rest`),
    the totals per device, what the walk looked at and what it left out (`skipped`, bilingual sentences; `left_out`,
    the variables a bound kept it from; `closed`, what it did not look into, as (variable, type, whether the variable
    is itself of that type rather than holding one): the view words them), how long it took (seconds), and whether
    it finished within its bounds (`complete`: every variable was looked at, without the
    visit or time bound stopping it). Shown as presentation's `HoldersView`."""

    display_kind: ClassVar[str] = "holders"

    holders: tuple[Holder, ...]
    visited: int
    took: float
    skipped: tuple[Text, ...] = ()
    frameworks: tuple[str, ...] = ()  # the frameworks loaded, whose types were looked for
    complete: bool = True
    rest: tuple[tuple[str, int], ...] = ()  # bytes per device of the variables past the first MAX_ROWS
    unlisted: int = 0  # how many those are
    too_deep: int = 0  # objects more than `max_depth` levels below a variable, not looked into (as a count: the
    max_depth: int = 0  # walk always meets some, and how much it says of them is the view's to choose)
    left_out: tuple[str, ...] = ()
    closed: tuple[tuple[str, str, bool], ...] = ()

    @property
    def totals(self) -> dict[str, int]:
        found: dict[str, int] = dict(self.rest)
        for holder in self.holders:
            for device, size in holder.devices:
                found[device] = found.get(device, 0) + size
        return dict(sorted(found.items(), key=lambda item: -item[1]))

    def __getitem__(self, name: str) -> Holder:
        for holder in self.holders:
            if holder.name == name:
                return holder
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return {"holders": [h.to_json() for h in self.holders], "totals": self.totals, "visited": self.visited,
                "took": self.took, "skipped": [s.en for s in self.skipped], "frameworks": list(self.frameworks),
                "complete": self.complete, "unlisted": self.unlisted, "rest": dict(self.rest),
                "too_deep": self.too_deep, "max_depth": self.max_depth, "left_out": list(self.left_out),
                "closed": [list(item) for item in self.closed]}


def memory_holders(namespace: Mapping[str, Any] | None = None, *, max_depth: int = MAX_DEPTH,
                   max_items: int = MAX_ITEMS, max_visits: int = MAX_VISITS,
                   max_seconds: float = MAX_SECONDS) -> Holders:
    """The variables of `namespace` (the IPython user namespace, or `__main__`'s, by default) that hold framework
    tensors or arrays, largest first, each storage counted once. Bounded, and never raises: see the module's help."""
    walk = HoldersWalk(max_depth=max_depth, max_items=max_items, max_visits=max_visits, max_seconds=max_seconds)
    walk.namespace(namespace)
    return walk.result()


def _say(text: Text, **fields: Any) -> Text:
    """`text` with its fields filled in, in both languages."""
    return Text(text.en.format(**fields), text.zh.format(**fields))


def _error(exc: BaseException) -> str:
    """An exception in a few words: its class, and its message where that is a plain string (its `__str__` may be
    the user's code)."""
    args = _EXCEPTION_PARTS[0](exc)  # BaseException's own `args`, whatever the class overrides
    message = args[0] if type(args) is tuple and args and type(args[0]) is str else ""
    return f"{type_name(type(exc))}: {message}"[:200] if message else type_name(type(exc))


# ---- what an object is ------------------------------------------------------------------------------------------

# What the walk does with an object of a class, decided once per class.
(_PLAIN, _TENSOR, _MODULE, _MAPPING, _SEQUENCE, _EXCEPTION, _TRACEBACK, _FRAME, _GENERATOR, _FUNCTION, _METHOD, _OBJECT,
 _CLOSED) = range(13)

_PLAIN_TYPES = (str, bytes, bytearray, int, float, complex, bool, type(None), range, slice, type(Ellipsis),
                type(NotImplemented), memoryview)
_MAPPINGS = (dict, OrderedDict, defaultdict)
_SEQUENCES = (list, tuple, set, frozenset)
_CONTAINER_BASES = (dict, list, tuple, set, frozenset)
# Libraries' objects: what they hold is code and the library's state, not memory a user gives back by name. (A Python
# function or bound method is looked into: a closure, a default or the method's object may hold a model.)
_LIBRARY_BASES = (type, ModuleType, BuiltinFunctionType, CodeType, staticmethod, classmethod, property,
                  type(str.join), type(str.__add__), type((1).__add__))
# By id, never by hashing a class (a metaclass may define __hash__ and __eq__): builtin types live as long as we do.
_PLAIN_IDS = frozenset(id(kind) for kind in _PLAIN_TYPES)
_GENERATOR_FRAMES = {id(GeneratorType): GeneratorType.__dict__["gi_frame"].__get__,
                     id(CoroutineType): CoroutineType.__dict__["cr_frame"].__get__,
                     id(AsyncGeneratorType): AsyncGeneratorType.__dict__["ag_frame"].__get__}
# An exception's links, read through BaseException's own accessors (a subclass may override the attributes).
_EXCEPTION_PARTS = tuple(BaseException.__dict__[name].__get__
                         for name in ("args", "__traceback__", "__cause__", "__context__"))
# What a function holds besides code: its closure's cells, its defaults; a bound method: its object.
_FUNCTION_PARTS = tuple(FunctionType.__dict__[name].__get__
                        for name in ("__closure__", "__defaults__", "__kwdefaults__"))
_CELL_CONTENTS = CellType.__dict__["cell_contents"].__get__
_METHOD_SELF = MethodType.__dict__["__self__"].__get__
_FRAME_LOCALS_TYPES = (dict, type(sys._getframe().f_locals))  # Python 3.13 gives a proxy of the frame's variables
_IPYTHON_MODULES = ("IPython.", "ipykernel.")
# The kernel's own machinery (the shell, the kernel, its comms): a widget or a session link reaches it, and through it
# the whole namespace and the last error; what it holds is the kernel's, not memory a `del` of the widget gives back.
_KERNEL_PACKAGES = ("IPython", "ipykernel", "comm")


def _kernel_machinery(cls: type) -> bool:
    package = module_name(cls).partition(".")[0]
    return any(package == name for name in _KERNEL_PACKAGES)


@dataclass(frozen=True)
class _Class:
    """What the walk does with objects of one class (`how`), with what it needs for that."""

    cls: type  # kept: the cache is keyed by id, which must not be reused while the walk runs
    how: int
    tensor: TensorKind | None = None
    module: ModuleKind | None = None
    accessor: Any = None  # the instance dict's accessor
    slots: tuple[Any, ...] = ()
    closed_why: str = ""


class _Kinds:
    """The frameworks' declarations, indexed for the walk, and each class met, classified once."""

    def __init__(self) -> None:
        declared = tensor_kinds()
        self.frameworks = tuple(d.framework for d in declared)
        self.tensors = {id(kind.type): kind for d in declared for kind in d.tensors}
        self.modules = {id(d.module.type): d.module for d in declared if d.module is not None}
        self.classes: dict[int, _Class] = {}  # by the id of the class, which its _Class keeps alive

    def of(self, cls: type) -> _Class:
        found = self.classes.get(id(cls))
        if found is None:
            found = self.classes[id(cls)] = self._classify(cls)
        return found

    def _classify(self, cls: type) -> _Class:
        if id(cls) in _PLAIN_IDS:
            return _Class(cls, _PLAIN)
        tensor = self.tensors.get(id(cls))
        if tensor is not None and tensor.type is cls:
            return _Class(cls, _TENSOR, tensor=tensor)
        if any(cls is kind for kind in _MAPPINGS):
            return _Class(cls, _MAPPING)
        if any(cls is kind for kind in _SEQUENCES):
            return _Class(cls, _SEQUENCE)
        if cls is TracebackType:
            return _Class(cls, _TRACEBACK)
        if cls is FrameType:
            return _Class(cls, _FRAME)
        if id(cls) in _GENERATOR_FRAMES:
            return _Class(cls, _GENERATOR)
        if cls is FunctionType:
            return _Class(cls, _FUNCTION)
        if cls is MethodType:
            return _Class(cls, _METHOD)
        if _kernel_machinery(cls):
            return _Class(cls, _PLAIN)
        bases = classes(cls)
        for klass in bases:
            module = self.modules.get(id(klass))
            if module is not None and module.type is klass:
                return _Class(cls, _MODULE, module=module, accessor=dict_accessor(cls))
        for klass in bases:
            tensor = self.tensors.get(id(klass))
            if tensor is not None and tensor.type is klass:
                return _Class(cls, _CLOSED, closed_why=type_name(cls))
            if any(klass is base for base in _LIBRARY_BASES):
                return _Class(cls, _PLAIN)
            if any(klass is base for base in _CONTAINER_BASES):
                return _Class(cls, _CLOSED, closed_why=type_name(cls))
        if hides_dict(cls):
            return _Class(cls, _CLOSED, closed_why=type_name(cls))
        accessor, slots = dict_accessor(cls), slot_accessors(cls)
        if any(klass is BaseException for klass in bases):
            return _Class(cls, _EXCEPTION, accessor=accessor, slots=slots)
        if accessor is None and not slots:
            return _Class(cls, _PLAIN)
        return _Class(cls, _OBJECT, accessor=accessor, slots=slots)


# ---- the walk -----------------------------------------------------------------------------------------------------

class _Found:
    """What the walk found in one variable (a plain class with slots: there is one for each variable)."""

    __slots__ = ("name", "output_cache", "storages", "kinds", "module", "parameters", "buffers", "partial")

    def __init__(self, name: str, output_cache: bool) -> None:
        self.name, self.output_cache = name, output_cache
        self.storages: list[Storage] = []
        self.kinds: dict[str, int] = {}  # what was found in it: type name → count
        self.module: str | None = None  # the variable itself is a module/layer/block: what it is
        self.parameters = self.buffers = 0
        self.partial = False  # the walk stopped inside it


class _Stop(Exception):  # noqa: N818 (a signal inside the walk, never seen outside it)
    """A bound was reached: the walk ends where it is."""


class HoldersWalk:
    """One bounded walk over variables, in the order they are given (`namespace()`, then `variables()`), each
    storage counted once across all of them; `result()` says what holds what. `watch`: objects whose holders are
    wanted (`reached`: an object's id → the first variable found holding it), e.g. a failed call's exception."""

    def __init__(self, *, max_depth: int = MAX_DEPTH, max_items: int = MAX_ITEMS, max_visits: int = MAX_VISITS,
                 max_seconds: float = MAX_SECONDS, watch: Iterable[object] = ()) -> None:
        self.started = time.perf_counter()
        self.max_depth, self.max_items, self.max_visits = max_depth, max_items, max_visits
        self.max_seconds = max_seconds
        self.deadline = self.started + max_seconds
        self.watch = {id(value) for value in watch}
        self.reached: dict[int, str] = {}
        self.visits = 0
        self.too_deep = 0
        self.stopped: Text | None = None  # why the walk stopped early, once it has
        self.left_out: list[str] = []  # variables not looked at, once it has
        self.skipped: list[Text] = []
        # variable → the type of something in it that was not looked into, and whether that is the variable itself
        self.closed: dict[str, tuple[str, bool]] = {}
        self.found: list[_Found] = []
        self._seen: set[int] = set()  # ids of what the current variable's walk has met
        # The namespace's own dicts: what a variable reaches through them is other variables, each walked by its name.
        self._walls: frozenset[int] = frozenset()
        self.own: dict[str, int] = {}  # variable → the bytes counted for it alone (what `del` gives back), once done
        self._walk_started, self._visits_before = self.started, 0  # the walk's pace is measured from here
        self._failed: Text | None = None
        try:
            self.kinds: _Kinds | None = _Kinds()
        except Exception as exc:  # a framework's declaration that cannot be read: no framework's types looked for
            log.debug("the frameworks' tensor types", exc_info=True)
            self.kinds = None
            self._failed = _say(WALK_FAILED, error=_error(exc))

    @property
    def complete(self) -> bool:
        """Whether every variable was looked at within the visit and time bounds."""
        return self.stopped is None and self._failed is None

    def namespace(self, namespace: Mapping[str, Any] | None = None, hidden: Mapping[str, Any] | None = None) -> None:
        """Walk the user's variables (IPython's namespace, or `__main__`'s, by default; `hidden`: what IPython put
        there itself): those that are a tensor, then those that are a module, then the rest; then the output cache's
        entries as `Out[n]`."""
        try:
            if namespace is None:
                namespace, hidden = _user_namespace()
            hidden = hidden or {}
            output = dict.get(namespace, "Out") if type(namespace) is dict else None
            self._walls = self._walls | {id(namespace), id(hidden), *((id(output),) if type(output) is dict else ())}
            self.variables(_variables(namespace, hidden))
        except Exception as exc:  # the walk's own failure: what it found so far stands, and says so
            self._fail(exc)

    def variables(self, variables: Iterable[tuple[str, Any, bool]]) -> None:
        """Walk (name, value, is output cache) in order, those that are a tensor first, then those that are a module
        (a number, a string, a class holds nothing: not walked)."""
        kinds = self.kinds
        if kinds is None:
            return
        try:
            with _collector_paused():
                self._ordered(kinds, variables)
        except Exception as exc:
            self._fail(exc)

    def _ordered(self, kinds: _Kinds, variables: Iterable[tuple[str, Any, bool]]) -> None:
        """The variables that are a tensor, then those that are a module, then the rest, until a bound stops it
        (sorting 100,000 variables into those three is under the same clock)."""
        known, classify, clock = kinds.classes, kinds.of, time.perf_counter
        tensors: list[tuple[str, Any, bool]] = []
        modules: list[tuple[str, Any, bool]] = []
        others: list[tuple[str, Any, bool]] = []
        listed = iter(variables)
        for count, item in enumerate(listed):
            if not count % 1024 and self._past(clock()):
                self._stop_at(item[0], "time")
                self.left_out = [name for name, _, _ in (*tensors, *modules, *others, item, *listed)]
                return
            how = (known.get(id(type(item[1]))) or classify(type(item[1]))).how
            if how == _TENSOR:
                tensors.append(item)
            elif how == _MODULE:
                modules.append(item)
            elif how != _PLAIN:
                others.append(item)
        self._walk_started, self._visits_before = clock(), self.visits
        self._tensors(tensors)
        rest = modules + others
        for place, (name, value, output_cache) in enumerate(rest):
            if self.stopped is not None:
                self.left_out.extend(left[0] for left in rest[place:])
                break
            entry = _Found(name, output_cache)
            self.found.append(entry)
            self._variable(entry, value)

    def _tensors(self, tensors: list[tuple[str, Any, bool]]) -> None:
        """The variables that are a tensor: one look each, in a loop of their own (a notebook may hold 100,000)."""
        assert self.kinds is not None
        known, found, skipped = self.kinds.classes, self.found, self.skipped
        max_visits, clock = self.max_visits, time.perf_counter
        for place, (name, value, output_cache) in enumerate(tensors):
            self.visits = visits = self.visits + 1
            if visits >= max_visits or not visits % _CHECK_CLOCK and self._past(clock()):
                self._stop_at(name, "visits" if visits >= max_visits else "time")
                self.left_out.extend(left[0] for left in tensors[place:])
                break
            entry = _Found(name, output_cache)
            found.append(entry)
            tensor = known[id(type(value))].tensor
            assert tensor is not None
            try:
                storage = tensor.size(value)
            except Exception as exc:  # a framework object in a strange state: say so, go on with the rest
                skipped.append(_say(SKIPPED_FAILED, name=name, error=_error(exc)))
                continue
            entry.kinds[tensor.name] = 1
            if storage is not None:
                entry.storages.append(storage)

    def result(self) -> Holders:
        skipped = list(self.skipped)
        if self._failed is not None:
            skipped.append(self._failed)
        rows: list[Holder] = []
        rest: tuple[tuple[str, int], ...] = ()
        unlisted = 0
        try:
            with _collector_paused():
                rows, rest, unlisted, self.own = _assign(self.found)
        except Exception as exc:  # never: sizes are ints and keys tuples; if it were, the walk still answers
            skipped.append(_say(WALK_FAILED, error=_error(exc)))
        frameworks = self.kinds.frameworks if self.kinds is not None else ()
        return Holders(tuple(rows), self.visits, time.perf_counter() - self.started, tuple(skipped), frameworks,
                       self.complete, rest, unlisted, self.too_deep, self.max_depth, tuple(self.left_out),
                       tuple((name, what, itself) for name, (what, itself) in self.closed.items()))

    # ---- one variable ----

    def _fail(self, exc: Exception) -> None:
        log.debug("the holders walk", exc_info=True)
        if self._failed is None:
            self._failed = _say(WALK_FAILED, error=_error(exc))

    def _variable(self, entry: _Found, value: Any) -> None:
        try:
            self._walk(entry, value)
        except _Stop as stop:
            entry.partial = True
            self._stop_at(entry.name, str(stop))
        except Exception as exc:  # a framework object in a strange state: say so, go on with the rest
            self.skipped.append(_say(SKIPPED_FAILED, name=entry.name, error=_error(exc)))

    def _walk(self, entry: _Found, top: Any) -> None:
        """Everything `top` holds, depth first, each object once. A stack entry is (object, depth, role): role None
        for what a variable holds, or a module's registry's role for what the module registers (a module's tree is
        followed to its end, at its depth). This loop is the walk's cost: it keeps its state in locals."""
        assert self.kinds is not None
        known, classify, watch, reached = self.kinds.classes, self.kinds.of, self.watch, self.reached
        max_visits, past, clock = self.max_visits, self._past, time.perf_counter
        self._seen = seen = set(self._walls)
        stack: list[tuple[Any, int, str | None]] = [(top, 0, None)]
        while stack:
            self.visits = visits = self.visits + 1
            if visits >= max_visits:
                raise _Stop("visits")
            if not visits % _CHECK_CLOCK and past(clock()):
                raise _Stop("time")
            value, depth, role = stack.pop()
            if watch and id(value) in watch:
                reached.setdefault(id(value), entry.name)
            kind = known.get(id(type(value))) or classify(type(value))
            how = kind.how
            if how == _PLAIN or id(value) in seen:
                continue
            seen.add(id(value))
            if how == _TENSOR:
                self._tensor(entry, kind, value, role)
            elif how == _MODULE:
                self._module(stack, entry, kind, value, value is top, role, depth)
            elif how == _CLOSED:
                self.closed.setdefault(entry.name, (kind.closed_why, value is top))
            elif depth >= self.max_depth:
                self.too_deep += 1
            else:
                self._contents(stack, entry, kind, value, depth + 1)

    def _past(self, now: float) -> bool:
        """Whether the time bound is reached, keeping what counting the variables found so far will take (at the
        pace the walk itself goes, measured from its first object)."""
        if not self.found:
            return now > self.deadline
        pace = (now - self._walk_started) / max(self.visits - self._visits_before, 1)
        return now + len(self.found) * pace * _ASSEMBLY_PER_VISIT > self.deadline

    def _stop_at(self, name: str, bound: str) -> None:
        self.stopped = _say(SKIPPED_TIME, seconds=self.max_seconds, name=name) if bound == "time" else (
            _say(SKIPPED_VISITS, visits=self.visits, name=name))
        self.skipped.append(self.stopped)

    def _visit(self) -> None:
        """Count one object looked at outside the walk's loop (a module's tensors), within the same bounds."""
        self.visits += 1
        if self.visits >= self.max_visits:
            raise _Stop("visits")
        if not self.visits % _CHECK_CLOCK and self._past(time.perf_counter()):
            raise _Stop("time")

    def _tensor(self, entry: _Found, kind: _Class, value: Any, role: str | None) -> None:
        tensor = kind.tensor
        assert tensor is not None
        storage = tensor.size(value)
        if role is None:
            entry.kinds[tensor.name] = entry.kinds.get(tensor.name, 0) + 1
        elif role == PARAMETER:
            entry.parameters += 1
        elif role == BUFFER:
            entry.buffers += 1
        if storage is not None:
            entry.storages.append(storage)

    def _module(self, stack: list[tuple[Any, int, str | None]], entry: _Found, kind: _Class, value: Any, top: bool,
                role: str | None, depth: int) -> None:
        """A module: what it is, its tensors measured here (a model has as many as it has modules: going through
        the stack would double the walk's cost), its submodules and anything else on the stack."""
        module = kind.module
        assert module is not None and self.kinds is not None
        if top or role is None:
            what = f"{type_name(kind.cls)} ({module.framework})"
            if top:
                entry.module = what
            else:  # a module among what a variable holds (not another module's submodule)
                entry.kinds[what] = entry.kinds.get(what, 0) + 1
        attributes = instance_dict(value, kind.accessor)
        if not attributes:
            return
        contents = module.contents(attributes)
        if type(contents) is not list:
            contents = list(islice(contents, self.max_items + 1))
        if len(contents) > self.max_items:
            contents = contents[:self.max_items]
            self.skipped.append(_say(SKIPPED_SOME_ITEMS, name=entry.name, shown=self.max_items))
        known, classify, seen = self.kinds.classes, self.kinds.of, self._seen
        later = []
        for item_role, item in contents:
            item_kind = known.get(id(type(item))) or classify(type(item))
            if item_kind.how != _TENSOR:
                later.append((item, depth, item_role))
            elif id(item) not in seen:
                self._visit()
                seen.add(id(item))
                self._tensor(entry, item_kind, item, item_role)
        stack.extend(reversed(later))

    def _contents(self, stack: list[tuple[Any, int, str | None]], entry: _Found, kind: _Class, value: Any,
                  depth: int) -> None:
        """Put what a container, a traceback, a generator or an object holds on the stack, at `depth`."""
        how, name = kind.how, entry.name
        if how == _MAPPING:
            self._push(stack, dict.values(value), len(value), depth, name)
        elif how == _SEQUENCE:
            self._push(stack, iter(value), len(value), depth, name)
        elif how == _TRACEBACK:
            self._push(stack, _traceback_parts(value, self.max_items, self.watch, self.reached, name), -1, depth,
                       name)
        elif how == _GENERATOR:
            frame = _GENERATOR_FRAMES[id(kind.cls)](value)
            if frame is not None:  # suspended (None: it finished)
                if id(frame) in self.watch:
                    self.reached.setdefault(id(frame), name)
                self._push(stack, _locals(frame), -1, depth, name)
        elif how == _FUNCTION:
            self._push(stack, _function_parts(value), -1, depth, name)
        elif how == _METHOD:
            stack.append((_METHOD_SELF(value), depth, None))
        elif how == _EXCEPTION or how == _OBJECT:
            if how == _EXCEPTION:
                self._push(stack, (part(value) for part in _EXCEPTION_PARTS), -1, depth, name)
            attributes = instance_dict(value, kind.accessor)
            if attributes:
                self._push(stack, dict.values(attributes), len(attributes), depth, name)
            if kind.slots:
                self._push(stack, slot_values(value, kind.slots), -1, depth, name)
        # a frame met outside a traceback may be a running one: only watched (above), never read

    def _push(self, stack: list[tuple[Any, int, str | None]], items: Iterable[Any], total: int, depth: int,
              name: str) -> None:
        """Put a container's items (at most `max_items`; `total`: how many it has, -1 when it cannot say cheaply) on
        the stack, its first item on top, and say what was left out."""
        taken = list(islice(items, self.max_items + 1))
        if len(taken) > self.max_items:
            taken.pop()
            self.skipped.append(_say(SKIPPED_ITEMS, name=name, shown=self.max_items, total=total) if total >= 0
                                else _say(SKIPPED_SOME_ITEMS, name=name, shown=self.max_items))
        stack.extend((value, depth, None) for value in reversed(taken))


def _traceback_parts(tb: TracebackType, limit: int, watch: set[int], reached: dict[int, str], name: str
                     ) -> Iterator[Any]:
    """The locals of a traceback's frames, from its first link to its last (at most `limit` links), noting the
    watched links and frames met; a cell's own level (its locals are the namespace) and IPython's frames (they hold
    the shell) are not read."""
    link: TracebackType | None = tb
    for _ in range(limit):
        if link is None:
            return
        frame = link.tb_frame
        for part in (link, frame):
            if id(part) in watch:
                reached.setdefault(id(part), name)
        module = dict.get(frame.f_globals, "__name__")
        if frame.f_code.co_name != "<module>" and not (type(module) is str and module.startswith(_IPYTHON_MODULES)):
            yield from _locals(frame)
        link = link.tb_next


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No garbage collection while the walk allocates: one it set off would run the finalizers (`__del__`) of the
    user's garbage, and on a large namespace it would cost a third of the walk's time. As it was, after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _function_parts(function: FunctionType) -> Iterator[Any]:
    closure, defaults, keyword_defaults = (part(function) for part in _FUNCTION_PARTS)
    for cell in closure or ():
        try:
            yield _CELL_CONTENTS(cell)
        except ValueError:  # an empty cell
            continue
    yield from defaults or ()
    if type(keyword_defaults) is dict:
        yield from dict.values(keyword_defaults)


def _locals(frame: FrameType) -> Iterator[Any]:
    found = frame.f_locals
    if type(found) in _FRAME_LOCALS_TYPES:
        yield from found.values()


def _user_namespace() -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is not None:
        return shell.user_ns, shell.user_ns_hidden
    import __main__

    return vars(__main__), {}


def _variables(namespace: Mapping[str, Any], hidden: Mapping[str, Any]) -> Iterator[tuple[str, Any, bool]]:
    """(name, value, is output cache) for the user's variables, then the output cache's entries as `Out[n]` (as the
    walk takes them: listing 100,000 globals is under its clock too)."""
    items = list(dict.items(namespace)) if type(namespace) is dict else list(namespace.items())
    hidden_items = dict(dict.items(hidden)) if type(hidden) is dict else {}
    output = None
    for name, value in items:
        if type(name) is not str or not name:  # globals()[1] = x: not a variable anyone can name
            continue
        if name == "Out":
            output = value
            continue
        if name in _IPYTHON_NAMES or name in _OUTPUT_NAMES:
            continue
        if name[0] == "_" and (name[1:].isdigit() or name.startswith("_i") and name[2:].isdigit()):
            continue  # _3 is Out[3], _i3 is In[3]
        if name in hidden_items and hidden_items[name] is value:  # put there by IPython at start, not by the user
            continue
        yield name, value, False
    if type(output) is dict:
        for number, value in list(dict.items(output)):
            yield f"Out[{number}]", value, True


def _assign(found: list[_Found]) -> tuple[list[Holder], tuple[tuple[str, int], ...], int, dict[str, int]]:
    """Each storage counted once: for the variable that owns it (not a view), or else the first that holds it.
    (rows largest first, at most `MAX_ROWS`; the bytes per device of the variables past them and how many they are;
    each variable's own bytes.) One short pass per variable: a notebook may have 100,000 of them."""
    credited: dict[tuple[Any, ...], str] = {}
    for entry in found:
        for storage in entry.storages:
            if storage.owner and storage.key not in credited:
                credited[storage.key] = entry.name
    for entry in found:
        for storage in entry.storages:
            if storage.key not in credited:
                credited[storage.key] = entry.name
    split: list[tuple[int, int, str, int, tuple[tuple[str, int], ...], tuple[str, ...]]] = []
    own: dict[str, int] = {}
    for index, entry in enumerate(found):
        storages, name = entry.storages, entry.name
        if not storages:
            continue
        if len(storages) == 1:
            key, device, size, _ = storages[0]
            owner = credited[key]
            devices: tuple[tuple[str, int], ...] = ((device, size),) if owner == name else ()
            shared = 0 if owner == name else size
            others: tuple[str, ...] = () if owner == name else (owner,)
        else:
            devices, shared, others = _split(name, storages, credited)
        mine = sum(size for _, size in devices)
        own[name] = mine
        split.append((-mine, -shared, name, index, devices, others))
    listed = heapq.nsmallest(MAX_ROWS, split, key=lambda row: row[:3])
    rows = []
    for _, shared, name, index, devices, others in listed:
        entry = found[index]
        module = entry.module is not None
        what = entry.module if entry.module is not None else _what(entry.kinds)
        rows.append(Holder(name, what, devices, -shared, others, entry.output_cache,
                           entry.parameters if module else None, entry.buffers if module else None, entry.partial))
    rest: dict[str, int] = {}
    if len(split) > len(listed):
        shown = {row[3] for row in listed}
        for row in split:
            if row[3] not in shown:
                for device, size in row[4]:
                    rest[device] = rest.get(device, 0) + size
    return rows, tuple(sorted(rest.items(), key=lambda item: -item[1])), len(split) - len(listed), own


def _split(name: str, storages: list[Storage], credited: dict[tuple[Any, ...], str]
           ) -> tuple[tuple[tuple[str, int], ...], int, tuple[str, ...]]:
    """A variable's storages: its own bytes per device (largest first), the bytes it shares, and with whom."""
    devices: dict[str, int] = {}
    shared = 0
    others: list[str] = []
    counted: set[tuple[Any, ...]] = set()
    for storage in storages:
        if storage.key in counted:
            continue
        counted.add(storage.key)
        owner = credited[storage.key]
        if owner == name:
            devices[storage.device] = devices.get(storage.device, 0) + storage.bytes
        else:
            shared += storage.bytes
            if owner not in others:
                others.append(owner)
    return tuple(sorted(devices.items(), key=lambda item: -item[1])), shared, tuple(others)


def _what(kinds: dict[str, int]) -> str:
    if len(kinds) == 1:
        (kind, count), = kinds.items()
        return kind if count == 1 else f"{count} × {kind}"
    return ", ".join(f"{count} × {kind}" for kind, count in sorted(kinds.items(), key=lambda item: -item[1]))
