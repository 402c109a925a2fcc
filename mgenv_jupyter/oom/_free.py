"""Give back what a failed cell still holds, without a restart and without touching the user's variables.

After an exception, Python and IPython keep the failed cell alive: `sys.last_type`, `sys.last_value`,
`sys.last_traceback` and `sys.last_exc` (kept for `%debug` and `%tb`), IPython's traceback formatter
(`InteractiveTB.tb`) and the cell's `ExecutionResult` keep the exception, whose traceback keeps every frame of the
failed call and with them every local tensor (pytorch issues #27600 and #36874; fastai's `gpu_mem_restore` exists only
for this). Then the frameworks' caching allocators keep what was freed reserved until asked to give it back.

`free()` does, in order: reads the memory (host RSS, the kernel's NVML memory per GPU, each allocator's allocated and
reserved, from the kernel's sampler); clears the frames of the last exception's traceback and of the exceptions
chained to it (as `traceback.clear_frames` does) and drops the references listed above (so `%debug` has nothing left
to open); clears the output cache (`Out`, `_`, `__`, `_N`) only when asked (`outputs=True`: it holds results a user
may want, as `%reset out` does); collects garbage; asks each *loaded* framework's allocator to return its cached
blocks through its own API, as its adapter says (`release_cache`: PyTorch `torch.cuda.empty_cache()` once CUDA is
initialised, Paddle `paddle.device.cuda.empty_cache()` on a CUDA build, MXNet `Context.empty_cache()` for the host
and the GPUs the kernel uses, MegEngine `coalesce_free_memory()`, CuPy's pools' `free_all_blocks()`), and glibc's
`malloc_trim(0)` for the host heap; tells the simulated GPU, when one runs and a framework's allocator was asked, that
the kernel gave its cache back (a free that only trimmed the host heap gives no GPU memory back); reads the memory
again.

It never imports a framework and never deletes a user's variable. A framework with no call that returns its pool
without destroying live arrays is not asked, and its catalog home says why (`CACHE_KEPT`: JAX's `clear_backends()`
invalidates every array; JAX frees an array's buffer as soon as the array is collected, which the garbage collection
does).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import inspect
import logging
import sys
import threading
import time
from dataclasses import dataclass, field
from types import AsyncGeneratorType, CoroutineType, FrameType, GeneratorType, TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, TypeGuard

from ..base._display import Shown
from ..base._imported import imported
from ..base._kernel_state import LastResultSlot
from ..base._source_state import STATE_OK
from ..base._static import inherits
from ..base._text import Text
from ..catalog._values import format_size
from ..memory._host_source import kernel_rss
from ..memory._nvml_client import NvmlClient
from ..memory._process_tree import ProcessTree, kernel_tree
from ..memory._sample import DeviceId
from ..memory._series_words import series_name
from ..runtime.frameworks import CacheCall, adapters, offered

if TYPE_CHECKING:
    from ..memory._sampler import Sampler

log = logging.getLogger(__name__)

MALLOC_TRIM = "malloc_trim(0)"  # the call for the host heap, beside the frameworks' for their caches
_CHAIN = 16  # exceptions followed along __cause__ / __context__
_SYS_NAMES = ("last_exc", "last_value", "last_traceback", "last_type")

FRAMES = Text("the frames of the failed cell's traceback ({count}), and the local variables they kept",
              "失败单元 traceback 中的帧({count} 个)及其保留的局部变量")
SYS_LAST = Text("Python's record of the last error ({names})", "Python 对上一个错误的记录({names})")
IPYTHON_TB = Text("IPython's traceback formatter's hold on it (for %debug)",
                  "IPython traceback 格式化器对它的引用(供 %debug 使用)")
OUTPUTS = Text("the output cache: {count} entries (Out, _, __, _N)", "输出缓存:{count} 项(Out、_、__、_N)")
NOTHING_HELD = Text("no failed cell is held (no error since the last free)",
                    "没有被保留的失败单元(上次释放后没有新错误)")
COLLECTED = Text("garbage collection: {count} unreachable objects", "垃圾回收:{count} 个不可达对象")


def _say(text: Text, **fields: Any) -> Text:
    return Text(text.en.format(**fields), text.zh.format(**fields))


@dataclass(frozen=True)
class Reading:
    """Memory at one moment: the kernel process's host RSS, the kernel's memory per GPU as NVML reports it
    (`gpus`: device label → bytes, "gpu0" or "gpu0 (simulated)"), and each framework allocator's allocated and
    reserved (`allocators`: "torch gpu0" → (allocated, reserved), None where the framework does not say). The labels
    name devices for people; `devices` gives each one's fields, which code reads instead."""

    time: float
    rss: int | None
    gpus: dict[str, int] = field(default_factory=dict)
    allocators: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)
    devices: dict[str, DeviceId] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"time": self.time, "rss": self.rss, "gpus": dict(self.gpus),
                "allocators": {name: {"allocated": a, "reserved": r} for name, (a, r) in self.allocators.items()}}


@dataclass(frozen=True, repr=False)
class FreeResult(Shown):
    """What `free()` did and what it gave back: the readings before and after, the references cleared and the
    allocator calls made (bilingual sentences and the calls as written), the objects the collector found, the
    output-cache entries cleared (None: not asked), what failed, how long it took (seconds), and what it kept because
    the user still holds it or it still runs (`kept`, bilingual sentences saying why). Shown as presentation's
    `FreeView`, as `%memfree` shows it."""

    display_kind: ClassVar[str] = "free_result"

    before: Reading
    after: Reading
    cleared: tuple[Text, ...]
    released: tuple[str, ...]
    not_asked: tuple[Text, ...]
    collected: int
    outputs: int | None
    problems: tuple[str, ...] = ()
    took: float = 0.0
    simulated: bool = False
    kept: tuple[Text, ...] = ()

    @property
    def rss_freed(self) -> int | None:
        """Host RSS given back (negative: it grew)."""
        if self.before.rss is None or self.after.rss is None:
            return None
        return self.before.rss - self.after.rss

    @property
    def gpus_freed(self) -> dict[str, int]:
        """NVML memory given back per GPU."""
        return {device: used - self.after.gpus[device] for device, used in self.before.gpus.items()
                if device in self.after.gpus}

    def to_json(self) -> dict[str, Any]:
        return {"before": self.before.to_json(), "after": self.after.to_json(), "rss_freed": self.rss_freed,
                "gpus_freed": self.gpus_freed, "cleared": [t.en for t in self.cleared], "released": list(self.released),
                "not_asked": [t.en for t in self.not_asked], "collected": self.collected, "outputs": self.outputs,
                "problems": list(self.problems), "took": self.took, "simulated": self.simulated,
                "kept": [t.en for t in self.kept]}


# Every free, as it ends (the out-of-memory report follows them: oom/_report.py).
FREES: LastResultSlot[FreeResult] = LastResultSlot("free")


def free(outputs: bool = False, sampler: Sampler | None = None, shell: Any = None) -> FreeResult:
    """Give back what the failed cell holds (see the module's help); `outputs=True` clears the output cache too.
    `sampler` is read before and after (the kernel's, by default); `shell` is IPython's (the running one)."""
    started = time.perf_counter()
    if shell is None:
        shell = _shell()
    if sampler is None:
        sampler = _kernel_sampler()
    before = read(sampler)
    cleared, kept, problems = drop_failed_cell(shell)
    cleared_outputs = None
    if outputs:
        cleared_outputs = clear_outputs(shell)
        cleared.append(_say(OUTPUTS, count=cleared_outputs))
    collected = gc.collect()
    released, not_asked, failed = release_caches(before)
    problems.extend(failed)
    # The simulated GPU stands in for a framework's cache on the device: it gives back only when a GPU's allocator
    # was asked to (malloc_trim and MXNet's cpu() pool return host memory; clearing frames frees no cached block).
    simulated = _release_simulation() if any(call.gpu for call in released) else False
    after = read(sampler)
    result = FreeResult(before, after, tuple(cleared), tuple(call.what for call in released), tuple(not_asked),
                        collected, cleared_outputs, tuple(problems), time.perf_counter() - started,
                        simulated or _simulated(before), tuple(kept))
    if sampler is not None:
        _mark(sampler, result)
    FREES.last().remember(result)
    return result


MARK_LABEL = Text("freed {size}", "释放 {size}")
MARK_NOTE = Text("memory given back (%memfree): {figures}", "归还内存(%memfree):{figures}")


def _mark(sampler: Sampler, result: FreeResult) -> None:
    """Mark the moment on the live chart: what came back, the most of any figure (a GPU's, or the host's RSS)."""
    from ..base._text import current_language

    pairs = [(device, result.before.gpus[device], result.after.gpus[device]) for device in result.gpus_freed]
    if result.before.rss is not None and result.after.rss is not None:
        pairs.append(("host RSS", result.before.rss, result.after.rss))
    freed = max((before - after for _, before, after in pairs), default=0)
    figures = "; ".join(f"{name} {format_size(before)} → {format_size(after)}" for name, before, after in pairs)
    language = current_language()
    try:
        sampler.mark("freed", MARK_LABEL.get(language).format(size=format_size(max(freed, 0))),
                     MARK_NOTE.get(language).format(figures=figures), result.after.time)
    except Exception:  # a chart that cannot be told must not cost the user the free
        log.debug("could not mark the free on the chart", exc_info=True)


# ---- whether it applies ---------------------------------------------------------------------------------------------

OFFER_WHY_HELD = Text("the failed call's frames still hold {held}", "失败调用的帧仍持有 {held}")
OFFER_WHY_CACHED = Text("{device}'s allocator holds {size} reserved but unallocated",
                        "{device} 的分配器持有 {size} 已预留但未分配的内存")
_OFFER_NAMES = 3  # of the failed call's locals named in the offer


@dataclass(frozen=True)
class FreeOffer:
    """Why "free what the failed cell holds" applies now: the failed call's locals still holding framework memory
    (`held`: "big (in step)" → bytes, largest first) and allocators' cached memory (`cached`: device → bytes
    reserved but unallocated). The report offers it when either is there."""

    held: tuple[tuple[str, int], ...]
    cached: tuple[tuple[str, int], ...]

    def why(self, size: Any) -> Text:
        """The reasons in words; `size` formats bytes."""
        parts: list[Text] = []
        if self.held:
            held = ", ".join(f"{name} {size(n)}" for name, n in self.held[:_OFFER_NAMES])
            parts.append(_say(OFFER_WHY_HELD, held=held))
        parts.extend(Text(OFFER_WHY_CACHED.en.format(device=device, size=size(n)),  # "gpu0 (模拟)" in Chinese
                          OFFER_WHY_CACHED.zh.format(device=series_name(device, "zh"), size=size(n)))
                     for device, n in self.cached)
        return Text("; ".join(p.en for p in parts), ";".join(p.zh for p in parts))


def offer(cached: dict[str, int] | None = None) -> FreeOffer | None:
    """Whether a free would give memory back now: the last error's traceback frames hold framework tensors or arrays
    (by name and size, bounded as `memory_holders` is), or an allocator holds reserved but unallocated memory
    (`cached`, device → bytes, from the report's figures). None: nothing to give back."""
    from ..memory._holders import memory_holders

    tb = getattr(sys, "last_traceback", None)
    if tb is None:  # freed already (or no error since): the report's figures of the moment are history
        return None
    locals_: dict[str, Any] = {}
    link = tb if type(tb) is TracebackType else None
    while link is not None and len(locals_) < 1000:
        frame = link.tb_frame
        # A cell's own level is the user's namespace, and IPython's frames hold the shell (all of it): neither is the
        # failed call's.
        module = dict.get(frame.f_globals, "__name__")
        if frame.f_code.co_name != "<module>" and not (type(module) is str
                                                       and module.startswith(("IPython.", "ipykernel."))):
            variables = frame.f_locals
            for name, value in (dict.items(variables) if type(variables) is dict else variables.items()):
                if type(name) is str:
                    locals_.setdefault(f"{name} (in {frame.f_code.co_name})", value)
        link = link.tb_next
    held = memory_holders(locals_, max_seconds=0.1) if locals_ else None
    found = tuple((h.name, h.bytes) for h in held.holders if h.bytes) if held is not None else ()
    spare = tuple((device, n) for device, n in (cached or {}).items() if n > 0)
    if not found and not spare:
        return None
    return FreeOffer(found, spare)


# ---- reading ------------------------------------------------------------------------------------------------------

def read(sampler: Sampler | None) -> Reading:
    """The memory now: one fresh sample of `sampler` (it lands in the history, so the charts see it) and the RSS."""
    gpus: dict[str, int] = {}
    allocators: dict[str, tuple[int | None, int | None]] = {}
    devices: dict[str, DeviceId] = {}
    by_device: dict[DeviceId, dict[str, int]] = {}
    if sampler is not None:
        try:
            by_device = sampler.sample_devices()
        except Exception:  # a failing memory source must not stop the free: the result says what it could read
            log.debug("no sample for the free result", exc_info=True)
    for device, values in by_device.items():
        if _kernels_gpu(device) and "process" in values:
            gpus[device.label] = values["process"]
            devices[device.label] = device
        elif device.framework and ("allocated" in values or "reserved" in values):
            allocators[device.label] = (values.get("allocated"), values.get("reserved"))
            devices[device.label] = device
    # The sampler reads NVML's process list at most once a second; a before/after needs it now.
    tree = kernel_tree(getattr(sampler, "sources", ()))
    for device, size in _nvml_process_memory(tree).items():
        gpus[device.label] = size
        devices[device.label] = device
    return Reading(time.time(), kernel_rss(by_device, tree), gpus, allocators, devices)


def _kernels_gpu(device: DeviceId) -> bool:
    """A GPU of this machine as NVML names it (not a framework's view of it, nor another node's)."""
    return device.gpu is not None and not device.framework and not device.node


def _nvml_process_memory(tree: ProcessTree) -> dict[DeviceId, int]:
    """What the kernel's process tree holds on each GPU, from NVML's process list now (simulated under the simulated
    GPU's fake NVML), through an NVML client of its own for this one reading (memory/_nvml_client.py: its fallbacks,
    such as the process list of drivers before 510, are the sampler's); empty without a driver."""
    nvml = NvmlClient()
    try:
        found = nvml.read(lambda pynvml: (_held(nvml, pynvml, tree.pids()), STATE_OK))
    finally:
        nvml.close()
    return found or {}


def _held(nvml: NvmlClient, pynvml: Any, ours: frozenset[int]) -> dict[DeviceId, int]:
    found: dict[DeviceId, int] = {}
    for index, device in enumerate(nvml.devices):
        try:
            listed = nvml.processes(pynvml, device.handle)
        except pynvml.NVMLError:  # MIG, no permission, a lost GPU: the sampler's figure stands for this one
            log.debug("NVML's process list for the free result", exc_info=True)
            continue
        held = [p.usedGpuMemory for p in listed if p.pid in ours and p.usedGpuMemory is not None]
        if held:
            found[DeviceId(f"gpu{index}", simulated=nvml.simulated)] = int(sum(held))
    return found


def _simulated(reading: Reading) -> bool:
    return any(reading.devices[label].simulated for label in reading.gpus if label in reading.devices)


# ---- references -----------------------------------------------------------------------------------------------------

# An error's links, through BaseException's own accessors: a subclass's properties never run.
_TRACEBACK = BaseException.__dict__["__traceback__"]
_CAUSE = BaseException.__dict__["__cause__"].__get__
_CONTEXT = BaseException.__dict__["__context__"].__get__
_LINKS = 1000  # links followed along one traceback
_GENERATOR_CODE = (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
                   | inspect.CO_ITERABLE_COROUTINE)
_GENERATOR_FRAMES = ((GeneratorType, GeneratorType.__dict__["gi_frame"].__get__),
                     (CoroutineType, CoroutineType.__dict__["cr_frame"].__get__),
                     (AsyncGeneratorType, AsyncGeneratorType.__dict__["ag_frame"].__get__))

KEPT_HELD = Text("{name} holds the traceback: del {name} gives back {size}",
                 "{name} 持有该 traceback:del {name} 可归还 {size}")
KEPT_HELD_NOTHING = Text("{name} holds the traceback (it holds no framework memory)",
                         "{name} 持有该 traceback(其中没有框架内存)")
KEPT_SUSPENDED = Text("the frame of {function}, a suspended generator or coroutine (clearing it would close it)",
                      "{function} 的帧:挂起的生成器或协程(清除会将其关闭)")
KEPT_RUNNING = Text("the frame of {function}, still running in another thread (its locals are in use)",
                    "{function} 的帧:仍在另一线程中运行(其局部变量正在使用)")
KEPT_UNSURE = Text("the traceback and its frames: the search for variables that hold it stopped at its bound "
                   "({why}), so none of it was cleared; it goes once nothing else holds it",
                   "traceback 及其帧:查找持有它的变量时达到上限({why}),因此均未清除;没有其他引用后即释放")


@dataclass
class _Failure:
    """What the last error keeps alive: the errors (the last one and those chained to it), every traceback link
    that refers to it, and the frames of those links in order."""

    errors: list[BaseException]
    links: list[TracebackType]
    frames: list[FrameType]

    @classmethod
    def of(cls, shell: Any) -> tuple[_Failure, Any, TracebackType | None]:
        """The last error's, with IPython's traceback formatter and the traceback it holds."""
        errors: list[BaseException] = []
        for name in ("last_exc", "last_value"):
            value = getattr(sys, name, None)
            if _is_error(value):
                errors.append(value)
        tracebacks: list[TracebackType] = []
        last_tb = getattr(sys, "last_traceback", None)
        if type(last_tb) is TracebackType:
            tracebacks.append(last_tb)
        result = getattr(shell, "last_execution_result", None) if shell is not None else None
        error = getattr(result, "error_in_exec", None)
        if _is_error(error):
            errors.append(error)
        formatter = getattr(shell, "InteractiveTB", None) if shell is not None else None
        formatter_tb = getattr(formatter, "tb", None)
        if type(formatter_tb) is TracebackType:
            tracebacks.append(formatter_tb)
        chained = _chain(errors)
        tracebacks.extend(tb for error in chained if (tb := _TRACEBACK.__get__(error)) is not None)
        links: dict[int, TracebackType] = {}
        frames: dict[int, FrameType] = {}
        for tb in tracebacks:
            for link in _links(tb):
                links.setdefault(id(link), link)
                frames.setdefault(id(link.tb_frame), link.tb_frame)
        return cls(chained, list(links.values()), list(frames.values())), formatter, formatter_tb


def drop_failed_cell(shell: Any) -> tuple[list[Text], list[Text], list[str]]:
    """Clear the frames of the last error's traceback (and of the errors chained to it) and drop the references
    Python and IPython keep to it, keeping what the user still holds; (cleared, kept, problems), in words.

    Kept, and said why: an error that a variable still reaches keeps its traceback and frames (found by the holders
    walk, which runs none of the user's code; when the walk stops at a bound nothing is cleared); the frame of a
    suspended generator or coroutine (clearing it would close it: its `finally` would run) and a frame still running
    in a thread. The user's namespace is not touched."""
    cleared: list[Text] = []
    kept: list[Text] = []
    problems: list[str] = []
    failure, formatter, formatter_tb = _Failure.of(shell)
    if failure.errors or failure.frames:
        count = _clear_unheld(failure, shell, kept)
        if count:
            cleared.append(_say(FRAMES, count=count))
    held = [name for name in _SYS_NAMES if getattr(sys, name, None) is not None]
    for name in held:
        try:
            delattr(sys, name)
        except AttributeError:
            pass
    if held:
        cleared.append(_say(SYS_LAST, names=", ".join(f"sys.{name}" for name in held)))
    if formatter is not None and formatter_tb is not None:
        try:
            formatter.tb = None
            cleared.append(IPYTHON_TB)
        except Exception as exc:  # a formatter that will not let go: say so
            problems.append(f"IPython's traceback formatter: {type(exc).__name__}: {exc}")
    if not cleared:
        cleared.append(NOTHING_HELD)
    return cleared, kept, problems


def _clear_unheld(failure: _Failure, shell: Any, kept: list[Text]) -> int:
    """Cut the errors' tracebacks and clear their frames, but for what is kept (said in `kept`); how many frames
    were cleared.

    Kept: what a variable still reaches (an error, a traceback link, a frame: the holders walk finds them without
    running the user's code, and says what `del` of that variable would give back); a frame that is still alive (a
    suspended generator's or coroutine's, or one another thread is running), and an error such a frame holds in its
    locals, with that error's traceback. When the walk stopped at a bound, it cannot tell: nothing is cleared."""
    from ..memory._holders import HoldersWalk

    walk = HoldersWalk(watch=[*failure.errors, *failure.links, *failure.frames])
    if shell is not None:
        walk.namespace(shell.user_ns, getattr(shell, "user_ns_hidden", {}))
    else:
        walk.namespace()
    holders = walk.result()
    if not walk.complete:
        why = walk.stopped or (holders.skipped[-1] if holders.skipped else Text("?", "?"))
        kept.append(Text(KEPT_UNSURE.en.format(why=why.en), KEPT_UNSURE.zh.format(why=why.zh)))
        return 0
    reached = walk.reached
    live = _alive(failure.frames)  # frame id → why it is alive (in words)
    holder_of: dict[int, str] = {}  # error id → who holds it: a variable, or a live frame (its sentence)
    for error in failure.errors:
        if id(error) in reached:
            holder_of[id(error)] = reached[id(error)]
    for frame in failure.frames:
        if id(frame) in live:
            for value in _frame_values(frame):
                if id(value) in {id(error) for error in failure.errors}:
                    holder_of.setdefault(id(value), "")  # said with its frame
    protected: dict[int, str] = {}  # frame id → the variable that holds it ("" for a live frame's)
    for error in failure.errors:
        if id(error) in holder_of:
            for link in _links(_TRACEBACK.__get__(error)):
                protected.setdefault(id(link.tb_frame), holder_of[id(error)])
    for link in failure.links:
        if id(link) in reached:
            for later in _links(link):
                protected.setdefault(id(later.tb_frame), reached[id(link)])
    for frame in failure.frames:
        if id(frame) in reached:
            protected.setdefault(id(frame), reached[id(frame)])
    for error in failure.errors:
        if id(error) not in holder_of:
            _TRACEBACK.__set__(error, None)  # the frames of the failed call are held by this link
    for name in dict.fromkeys(name for name in protected.values() if name):
        size = walk.own.get(name, 0)
        kept.append(_say(KEPT_HELD, name=name, size=format_size(size)) if size else _say(KEPT_HELD_NOTHING, name=name))
    count = 0
    for frame in failure.frames:
        if id(frame) in live:
            kept.append(_say(live[id(frame)], function=getattr(frame.f_code, "co_qualname", frame.f_code.co_name)))
        elif id(frame) not in protected:
            try:
                frame.clear()
                count += 1
            except RuntimeError:  # still executing: the frame that called free (its locals are the caller's)
                pass
    return count


def _is_error(value: Any) -> TypeGuard[BaseException]:
    """Whether `value` is an exception, by its type (isinstance would ask a `__class__` property)."""
    return inherits(type(value), BaseException)


def _links(tb: TracebackType | None) -> list[TracebackType]:
    found: list[TracebackType] = []
    while tb is not None and len(found) < _LINKS:
        found.append(tb)
        tb = tb.tb_next
    return found


def _alive(frames: list[FrameType]) -> dict[int, Text]:
    """Those frames still alive, by id, with why: a generator's or coroutine's that has not finished (its generator
    refers to it; a finished one no longer does), or one that another thread is running."""
    found: dict[int, Text] = {}
    candidates = [frame for frame in frames if frame.f_code.co_flags & _GENERATOR_CODE]
    if candidates:  # one pass over the heap, as long as a gc.collect(), only when a generator's frame is there
        wanted = {id(frame) for frame in candidates}
        for referrer in gc.get_referrers(*candidates):
            for kind, frame_of in _GENERATOR_FRAMES:
                if type(referrer) is kind and (frame := frame_of(referrer)) is not None and id(frame) in wanted:
                    found[id(frame)] = KEPT_SUSPENDED
    me = threading.get_ident()
    wanted = {id(frame) for frame in frames}
    for thread, frame in sys._current_frames().items():
        while thread != me and frame is not None:
            if id(frame) in wanted:
                found.setdefault(id(frame), KEPT_RUNNING)
            frame = frame.f_back
    return found


def _frame_values(frame: FrameType) -> list[Any]:
    """The values of a frame's local variables (read as a debugger does; no user code runs)."""
    found = frame.f_locals
    return list(dict.values(found)) if type(found) is dict else list(found.values())


def _chain(errors: list[BaseException]) -> list[BaseException]:
    """The errors and those chained to them (`__cause__`, `__context__`), each once, at most `_CHAIN` per start."""
    found: list[BaseException] = []
    ids: set[int] = set()
    for start in errors:
        todo: list[BaseException] = [start]
        steps = 0
        while todo and steps < _CHAIN:
            error = todo.pop()
            steps += 1
            if id(error) in ids:
                continue
            ids.add(id(error))
            found.append(error)
            todo.extend(e for e in (_CAUSE(error), _CONTEXT(error)) if e is not None)
    return found


def clear_outputs(shell: Any) -> int:
    """Empty IPython's output cache (`Out`, `_`, `__`, `___`, `_N`), as `%reset out` does; how many entries it had."""
    if shell is None:
        return 0
    hook = getattr(shell, "displayhook", None)
    cache = shell.user_ns.get("_oh")
    count = len(cache) if isinstance(cache, dict) else 0
    if hook is not None and getattr(hook, "do_full_cache", False):
        hook.flush()
    return count


# ---- allocators -----------------------------------------------------------------------------------------------------

def release_caches(before: Reading) -> tuple[list[CacheCall], list[Text], list[str]]:
    """Ask each loaded framework's allocator to give its cached blocks back: (the calls made that returned, the
    frameworks not asked and why, what failed)."""
    released: list[CacheCall] = []
    not_asked: list[Text] = []
    problems: list[str] = []

    def call(made: CacheCall) -> None:
        try:
            made.action()
            released.append(made)
        except Exception as exc:  # one framework's failure must not stop the others
            problems.append(f"{made.what}: {type(exc).__name__}: {str(exc)[:200]}")

    gpus = _GpusInUse(before)
    for key, release in offered(lambda adapter: adapter.release_cache).items():
        module = imported(key)
        if module is not None:
            for made in release(module, gpus):
                call(made)
    from ..catalog._homes import facts

    for key in adapters():
        kept = facts(key).cache_kept if imported(key) is not None else None
        if kept is not None:
            not_asked.append(kept)
    trim = _malloc_trim()
    if trim is not None:
        call(CacheCall(MALLOC_TRIM, lambda: trim(0), gpu=False))
    return released, not_asked, problems


class _GpusInUse:
    """CUDA ordinals of the GPUs NVML sees the kernel on, found when an adapter first asks: asking another GPU's pool
    would create a context there (hundreds of MB) to free nothing."""

    def __init__(self, reading: Reading) -> None:
        self.reading = reading

    def __call__(self) -> list[int]:
        from ..memory._framework_sources import nvml_index

        used = set()
        for label, size in self.reading.gpus.items():
            device = self.reading.devices.get(label)
            if size and device is not None and device.gpu is not None:
                used.add(device.gpu)
        return [ordinal for ordinal in range(8) if nvml_index(ordinal) in used]


def _malloc_trim() -> Any:
    """glibc's malloc_trim (return the free parts of the C heap to the system), where the C library is glibc."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # musl and others have none
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def _release_simulation() -> bool:
    """Tell the simulated GPU, if one runs in this kernel, that the kernel gave its cached memory back."""
    from ..memory.simulated import _simulation as simulation

    running = getattr(simulation, "running", None)
    current = running() if running is not None else None
    if current is None:
        return False
    release = getattr(current, "release", None)
    return bool(release()) if release is not None else False


# ---- where from ---------------------------------------------------------------------------------------------------

def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _kernel_sampler() -> Sampler | None:
    try:
        from ..memory._shared import kernel_sampler

        return kernel_sampler()
    except Exception:  # no sampler: the result has the RSS only
        log.debug("no kernel sampler for the free result", exc_info=True)
        return None

