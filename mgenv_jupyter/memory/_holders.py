"""What holds memory now, by name: the user namespace's variables that hold framework tensors or arrays, with their
size per device, largest first, so a user knows which `del` gives what back.

Found: PyTorch tensors and modules (their parameters and buffers), JAX arrays, Paddle tensors and layers, MegEngine
tensors and modules, MXNet NDArrays and Gluon blocks, and NumPy arrays (host memory), in the namespace's variables
and inside the containers they hold (lists, tuples, dicts, sets, and the attributes of plain objects) down to
`MAX_DEPTH` levels. No framework is imported: a type is checked only against a framework already in `sys.modules`.

Memory is counted once per storage: two tensors that share one (a view, a slice, `detach()`, a NumPy view and its
base) count once, for the variable that owns the storage (not a view) or else the first one found; the other
variable's row says it shares it. Sizes are the storage's bytes as the framework reports them, without the caching
allocator's rounding.

Bounded in time on a large heap: the walk visits at most `MAX_VISITS` objects and stops after `MAX_SECONDS`; a
container's items after its first `MAX_ITEMS` are not looked at, nor are the attributes of objects deeper than
`MAX_DEPTH` levels; IPython's own variables (`In`, `_i1`, `exit`...) are skipped and the output cache (`Out`, `_`, `__`,
`_N`) is listed as such. `Holders.skipped` says what the bounds left out, so the answer is never silently partial.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from .._imported import imported
from .._text import Text

MAX_DEPTH = 4  # levels below a variable: model.layers[3].weight is 3
MAX_ITEMS = 10_000  # of one container's items
MAX_VISITS = 200_000  # objects looked at in one walk
MAX_SECONDS = 1.0  # of one walk
_CHECK_CLOCK = 1024  # visits between looks at the clock

# IPython's own names in the user namespace (history, help): never a user's memory.
_IPYTHON_NAMES = frozenset({"In", "_ih", "_dh", "_ii", "_iii", "exit", "quit", "get_ipython", "_sh"})
_OUTPUT_NAMES = frozenset({"Out", "_oh", "_", "__", "___"})

HOST = "host"

SKIPPED_ITEMS = Text("{name}: only the first {shown:,} of its {total:,} items were looked at",
                     "{name}:只查看了其 {total:,} 项中的前 {shown:,} 项")
SKIPPED_DEPTH = Text("objects more than {depth} levels below a variable were not looked at ({count:,} places)",
                     "变量以下超过 {depth} 层的对象未查看({count:,} 处)")
SKIPPED_VISITS = Text("the walk inside containers stopped after {visits:,} objects (its bound), in {name}; the "
                      "containers after it were not looked into (variables that are a tensor or module themselves "
                      "all were)",
                      "容器内的遍历在查看 {visits:,} 个对象后停止(上限),停在 {name};之后的容器未查看"
                      "(本身就是张量或模块的变量均已查看)")
SKIPPED_TIME = Text("the walk inside containers stopped after {seconds:g} s (its bound), in {name}; the containers "
                    "after it were not looked into (variables that are a tensor or module themselves all were)",
                    "容器内的遍历在 {seconds:g} 秒后停止(上限),停在 {name};之后的容器未查看"
                    "(本身就是张量或模块的变量均已查看)")
SKIPPED_FAILED = Text("{name}: could not be measured ({error})", "{name}:无法测量({error})")


@dataclass(frozen=True)
class Holder:
    """One variable of the namespace and the memory it holds.

    `name`: the variable (`Out[3]` for an output-cache entry); `what`: what it is ("torch.Tensor", "Linear (torch)",
    "3 × torch.Tensor"), and for a module its `parameters` and `buffers` (None: not a module); `devices`: bytes per
    device ("host", "gpu0") counted for this variable; `shared`: bytes it also holds that are counted for another
    variable, and `shares_with` those variables' names; `output_cache`: the entry is IPython's output cache
    (`%memfree --outputs` clears it)."""

    name: str
    what: str
    devices: tuple[tuple[str, int], ...]
    shared: int = 0
    shares_with: tuple[str, ...] = ()
    output_cache: bool = False
    parameters: int | None = None
    buffers: int | None = None

    @property
    def bytes(self) -> int:
        return sum(size for _, size in self.devices)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "what": self.what, "bytes": self.bytes, "devices": dict(self.devices),
                "shared": self.shared, "shares_with": list(self.shares_with), "output_cache": self.output_cache,
                "parameters": self.parameters, "buffers": self.buffers}


@dataclass(frozen=True)
class Holders:
    """The variables holding framework memory, largest first, the totals per device, what the walk looked at and
    what its bounds left out (`skipped`, bilingual sentences), and how long it took (seconds)."""

    holders: tuple[Holder, ...]
    visited: int
    took: float
    skipped: tuple[Text, ...] = ()
    frameworks: tuple[str, ...] = ()  # the frameworks loaded, whose types were looked for

    @property
    def totals(self) -> dict[str, int]:
        found: dict[str, int] = {}
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
                "took": self.took, "skipped": [s.en for s in self.skipped], "frameworks": list(self.frameworks)}


@dataclass
class _Storage:
    """One block of memory found: where, how big, and whether the object found is its owner (not a view)."""

    key: tuple[Any, ...]
    device: str
    bytes: int
    owner: bool


@dataclass
class _Found:
    name: str
    output_cache: bool
    storages: list[_Storage] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)  # what was found in it: type name → count
    module: tuple[str, int, int] | None = None  # the variable itself is a module/layer/block: kind, parameters, buffers


class _Budget(Exception):
    """The walk's bound was reached."""


class _Types:
    """The framework types to look for, from the frameworks already loaded (never importing one)."""

    def __init__(self) -> None:
        modules = sys.modules
        self.frameworks: list[str] = []
        torch, numpy, jax = modules.get("torch"), modules.get("numpy"), modules.get("jax")
        self.torch_tensor = _attr(torch, "Tensor")
        self.torch_module = _attr(_attr(torch, "nn"), "Module")
        self.numpy_array = _attr(numpy, "ndarray")
        self.jax_array = _attr(jax, "Array")
        paddle = modules.get("paddle")
        self.paddle_tensor = _attr(paddle, "Tensor")
        self.paddle_layer = _attr(_attr(paddle, "nn"), "Layer")
        megengine = modules.get("megengine")
        self.mge_tensor = _attr(megengine, "Tensor")
        self.mge_module = _attr(_attr(megengine, "module"), "Module")
        mxnet = modules.get("mxnet")
        self.mx_array = _attr(_attr(mxnet, "ndarray"), "NDArray")
        self.mx_block = _attr(_attr(mxnet, "gluon"), "Block")
        for name, found in (("torch", self.torch_tensor), ("jax", self.jax_array), ("paddle", self.paddle_tensor),
                            ("megengine", self.mge_tensor), ("mxnet", self.mx_array), ("numpy", self.numpy_array)):
            if found is not None:
                self.frameworks.append(name)
        self.modules = tuple(t for t in (self.torch_module, self.paddle_layer, self.mge_module, self.mx_block)
                             if isinstance(t, type))
        self.arrays = tuple(t for t in (self.torch_tensor, self.jax_array, self.paddle_tensor, self.mge_tensor,
                                        self.mx_array, self.numpy_array) if isinstance(t, type))


def _say(text: Text, **fields: Any) -> Text:
    """`text` with its fields filled in, in both languages."""
    return Text(text.en.format(**fields), text.zh.format(**fields))


def _attr(module: Any, name: str) -> Any:
    """`module.name` when it is a class or a submodule; None otherwise (or when the module is not loaded, or is half
    loaded: a framework still being imported is left alone)."""
    if module is None or imported(module.__name__) is None:
        return None
    found = getattr(module, name, None)
    return found if isinstance(found, (type, ModuleType)) else None


def memory_holders(namespace: Mapping[str, Any] | None = None, *, max_depth: int = MAX_DEPTH,
                   max_items: int = MAX_ITEMS, max_visits: int = MAX_VISITS,
                   max_seconds: float = MAX_SECONDS) -> Holders:
    """The variables of `namespace` (the IPython user namespace, or `__main__`'s, by default) that hold framework
    tensors or arrays, largest first, each storage counted once. Bounded: see the module's help."""
    started = time.perf_counter()
    hidden: Mapping[str, Any] = {}
    if namespace is None:
        namespace, hidden = _user_namespace()
    types = _Types()
    walk = _Walk(types, max_depth, max_items, max_visits, started + max_seconds)
    found: list[_Found] = []
    skipped: list[Text] = []
    if types.arrays:
        # Two passes: the variables that are a tensor or a module themselves first (one look each, so no bound can
        # hide them), then the containers and objects, under the bounds.
        variables = [(_Found(name, output_cache), value) for name, value, output_cache in _variables(namespace, hidden)]
        found = [entry for entry, _ in variables]
        direct = types.arrays + types.modules
        later = []
        for entry, value in variables:
            if isinstance(value, direct):
                _measure(walk, entry, value, skipped)
            else:
                later.append((entry, value))
        try:
            for entry, value in later:
                last = entry.name
                _measure(walk, entry, value, skipped)
        except _Budget as budget:
            skipped.append(_say(SKIPPED_TIME, seconds=max_seconds, name=last) if str(budget) == "time"
                           else _say(SKIPPED_VISITS, visits=walk.visits, name=last))
    skipped.extend(walk.skipped)
    if walk.too_deep:
        skipped.append(_say(SKIPPED_DEPTH, depth=max_depth, count=walk.too_deep))
    holders = _assign(found)
    return Holders(tuple(holders), walk.visits, time.perf_counter() - started, tuple(skipped),
                   tuple(types.frameworks))


def _measure(walk: _Walk, entry: _Found, value: Any, skipped: list[Text]) -> None:
    try:
        walk.variable(entry, value)
    except _Budget:
        raise
    except Exception as exc:  # a framework object in a strange state: say so, go on with the rest
        skipped.append(_say(SKIPPED_FAILED, name=entry.name, error=f"{type(exc).__name__}: {exc}"[:200]))


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
    """(name, value, is output cache) for the user's variables, then the output cache's entries as `Out[n]`."""
    output = namespace.get("Out")
    for name, value in list(namespace.items()):
        if name in _IPYTHON_NAMES or name in _OUTPUT_NAMES or name.startswith("_i") and name[2:].isdigit():
            continue
        if name.startswith("_") and name[1:].isdigit():  # _3: the output cache's name for Out[3]
            continue
        if name in hidden and hidden[name] is value:  # put there by IPython at start, not by the user
            continue
        if isinstance(value, type(sys)):  # a module: its globals are the library's, not the user's
            continue
        yield name, value, False
    if isinstance(output, dict):
        for number, value in list(output.items()):
            yield f"Out[{number}]", value, True


class _Walk:
    def __init__(self, types: _Types, max_depth: int, max_items: int, max_visits: int, deadline: float) -> None:
        self.types = types
        self.max_depth = max_depth
        self.max_items = max_items
        self.max_visits = max_visits
        self.deadline = deadline
        self.visits = 0
        self.too_deep = 0
        self.skipped: list[Text] = []
        self._seen: set[int] = set()  # ids of containers already walked in this variable

    def variable(self, entry: _Found, value: Any) -> None:
        self._seen = set()
        if self.types.modules and isinstance(value, self.types.modules):
            entry.module = self._module(entry, value)
            return
        self._visit(entry, value, 0, entry.name)

    def _tick(self) -> None:
        self.visits += 1
        if self.visits >= self.max_visits:
            raise _Budget("visits")
        if self.visits % _CHECK_CLOCK == 0 and time.perf_counter() > self.deadline:
            raise _Budget("time")

    def _visit(self, entry: _Found, value: Any, depth: int, path: str) -> None:
        self._tick()
        types = self.types
        if isinstance(value, (str, bytes, int, float, bool, type(None))):
            return
        if isinstance(value, types.arrays):
            self._array(entry, value)
            return
        if types.modules and isinstance(value, types.modules):
            self._module(entry, value)
            return
        if depth >= self.max_depth:
            if isinstance(value, (list, tuple, dict, set, frozenset)) or hasattr(value, "__dict__"):
                self.too_deep += 1
            return
        if id(value) in self._seen:
            return
        if isinstance(value, dict):
            self._seen.add(id(value))
            self._items(entry, value.values(), len(value), depth, path)
        elif isinstance(value, (list, tuple, set, frozenset)):
            self._seen.add(id(value))
            self._items(entry, value, len(value), depth, path)
        elif isinstance(value, type) or callable(value) and not hasattr(value, "__dict__"):
            return
        else:
            attributes = getattr(value, "__dict__", None)
            if isinstance(attributes, dict) and not isinstance(value, type):
                self._seen.add(id(value))
                self._items(entry, attributes.values(), len(attributes), depth, path)

    def _items(self, entry: _Found, items: Any, total: int, depth: int, path: str) -> None:
        for count, item in enumerate(items):
            if count >= self.max_items:
                self.skipped.append(_say(SKIPPED_ITEMS, name=path, shown=self.max_items, total=total))
                return
            self._visit(entry, item, depth + 1, path)

    def _count(self, entry: _Found, kind: str) -> None:
        entry.kinds[kind] = entry.kinds.get(kind, 0) + 1

    def _array(self, entry: _Found, value: Any, counted: bool = True) -> None:
        types = self.types
        storage: _Storage | None
        if types.torch_tensor is not None and isinstance(value, types.torch_tensor):
            storage = _torch(value)
            kind = "torch." + ("nn.Parameter" if type(value).__name__ == "Parameter" else "Tensor")
        elif types.numpy_array is not None and isinstance(value, types.numpy_array):
            storage, kind = _numpy(value), "numpy.ndarray"
        elif types.jax_array is not None and isinstance(value, types.jax_array):
            storage, kind = _jax(value), "jax.Array"
        elif types.paddle_tensor is not None and isinstance(value, types.paddle_tensor):
            storage, kind = _paddle(value), "paddle.Tensor"
        elif types.mge_tensor is not None and isinstance(value, types.mge_tensor):
            storage, kind = _megengine(value), "megengine.Tensor"
        else:
            storage, kind = _mxnet(value), "mxnet.NDArray"
        if counted:
            self._count(entry, kind)
        if storage is not None:
            entry.storages.append(storage)

    def _module(self, entry: _Found, module: Any) -> tuple[str, int, int]:
        """Count a module's parameters and buffers (each tensor once, as the framework lists them); its description."""
        types = self.types
        kind = f"{type(module).__qualname__} ({type(module).__module__.split('.')[0]})"
        parameters = buffers = 0
        if types.torch_module is not None and isinstance(module, types.torch_module):
            tensors = [("p", t) for t in module.parameters()] + [("b", t) for t in module.buffers()]
        elif types.paddle_layer is not None and isinstance(module, types.paddle_layer):
            tensors = [("p", t) for t in module.parameters()] + [("b", t) for t in module.buffers()]
        elif types.mge_module is not None and isinstance(module, types.mge_module):
            tensors = [("p", t) for t in module.parameters()] + [("b", t) for t in module.buffers()]
        else:  # a Gluon block: its Parameters, each with one array per context
            tensors = [("p", array) for parameter in module.collect_params().values()
                       for array in _mxnet_parameter_arrays(parameter)]
        for role, tensor in tensors:
            self._tick()
            if role == "p":
                parameters += 1
            else:
                buffers += 1
            self._array(entry, tensor, counted=False)  # the module's, not loose tensors
        self._count(entry, kind)
        return kind, parameters, buffers


def _mxnet_parameter_arrays(parameter: Any) -> list[Any]:
    try:
        return list(parameter.list_data())
    except Exception:  # not initialised yet (deferred shape): it holds no memory
        return []


def _device(kind: str, index: int | None) -> str:
    """"host" for a CPU, "gpu<n>" for a GPU (the framework's ordinal), or the framework's own name."""
    if kind in ("cpu", "cpu_pinned", "cpu_shared"):
        return HOST
    if kind in ("cuda", "gpu"):
        return f"gpu{index or 0}"
    return f"{kind}{index if index is not None else ''}"


def _torch(tensor: Any) -> _Storage | None:
    device = tensor.device
    if device.type == "meta":
        return None
    where = _device(device.type, device.index)
    try:
        storage = tensor.untyped_storage()
    except (RuntimeError, NotImplementedError):  # sparse or another layout without one storage: its own size
        return _Storage(("torch", id(tensor)), where, int(tensor.element_size() * tensor.nelement()), True)
    size = int(storage.nbytes())
    owner = tensor._base is None and tensor.storage_offset() == 0 and tensor.nbytes == size
    return _Storage(("torch", where, storage.data_ptr()), where, size, owner)


def _numpy(array: Any) -> _Storage | None:
    root = array
    for _ in range(64):  # a view's base chain, to the array that owns the memory
        base = getattr(root, "base", None)
        if base is None or not hasattr(base, "__array_interface__") or not hasattr(base, "nbytes"):
            break
        root = base
    if root.dtype.hasobject:
        return None  # an object array holds references, not the memory of what they point to
    pointer = root.__array_interface__["data"][0]
    owner = root is array or array.base is None
    if root.base is not None and root is array:  # over another object's buffer (bytes, mmap, a tensor): its own part
        return _Storage(("host", pointer, array.nbytes), HOST, int(array.nbytes), False)
    return _Storage(("host", pointer), HOST, int(root.nbytes), owner)


def _jax(array: Any) -> _Storage | None:
    if array.is_deleted():
        return None
    devices = list(array.devices())
    device = devices[0] if len(devices) == 1 else None
    where = _device(device.platform, device.id) if device is not None else "+".join(
        sorted(_device(d.platform, d.id) for d in devices))
    try:
        key: tuple[Any, ...] = ("jax", where, array.unsafe_buffer_pointer())
    except Exception:  # sharded over devices, or a backend without pointers
        key = ("jax", id(array))
    return _Storage(key, where, int(array.nbytes), True)


def _paddle(tensor: Any) -> _Storage | None:
    if not tensor._is_initialized():
        return None
    place = tensor.place
    where = _device("gpu", place.gpu_device_id()) if place.is_gpu_place() else (
        HOST if place.is_cpu_place() or place.is_cuda_pinned_place() else str(place))
    size = int(tensor.size) * int(tensor.element_size())
    try:
        key: tuple[Any, ...] = ("paddle", where, tensor.data_ptr())
    except Exception:  # older Paddle: no pointer, no sharing seen
        key = ("paddle", id(tensor))
    return _Storage(key, where, size, True)


def _megengine(tensor: Any) -> _Storage | None:
    device = str(getattr(tensor.device, "physical_name", tensor.device))  # "cpu0:0", "gpu0:0" ("xpux:0" is logical)
    kind = device.rstrip("0123456789:x")
    digits = device[len(kind):].split(":")[0]
    where = _device(kind, int(digits) if digits.isdigit() else None)
    import numpy  # MegEngine depends on NumPy: loaded with it

    size = int(tensor.size) * numpy.dtype(tensor.dtype).itemsize
    return _Storage(("megengine", id(tensor)), where, size, True)


def _mxnet(array: Any) -> _Storage | None:
    context = array.context
    where = _device(context.device_type, context.device_id)
    import numpy  # MXNet depends on NumPy: loaded with it

    size = int(array.size) * numpy.dtype(array.dtype).itemsize
    try:
        key: tuple[Any, ...] = ("mxnet", where, array.handle.value)
    except Exception:
        key = ("mxnet", id(array))
    return _Storage(key, where, size, True)


def _assign(found: list[_Found]) -> list[Holder]:
    """Each storage counted once: for the variable that owns it (not a view), or else the first that holds it."""
    credited: dict[tuple[Any, ...], str] = {}
    for owners_only in (True, False):
        for entry in found:
            for storage in entry.storages:
                if storage.key not in credited and (storage.owner or not owners_only):
                    credited[storage.key] = entry.name
    holders = []
    for entry in found:
        devices: dict[str, int] = {}
        shared = 0
        others: list[str] = []
        counted: set[tuple[Any, ...]] = set()
        for storage in entry.storages:
            if storage.key in counted:
                continue
            counted.add(storage.key)
            owner = credited[storage.key]
            if owner == entry.name:
                devices[storage.device] = devices.get(storage.device, 0) + storage.bytes
            else:
                shared += storage.bytes
                if owner not in others:
                    others.append(owner)
        if not devices and not shared:
            continue
        kind, parameters, buffers = entry.module if entry.module is not None else (_what(entry.kinds), None, None)
        holders.append(Holder(entry.name, kind, tuple(sorted(devices.items(), key=lambda item: -item[1])), shared,
                              tuple(others), entry.output_cache, parameters, buffers))
    holders.sort(key=lambda h: (-h.bytes, -h.shared, h.name))
    return holders


def _what(kinds: dict[str, int]) -> str:
    if len(kinds) == 1:
        (kind, count), = kinds.items()
        return kind if count == 1 else f"{count} × {kind}"
    return ", ".join(f"{count} × {kind}" for kind, count in sorted(kinds.items(), key=lambda item: -item[1]))
