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
blocks through its own API (PyTorch `torch.cuda.empty_cache()` once CUDA is initialised, Paddle
`paddle.device.cuda.empty_cache()` on a CUDA build, MXNet `Context.empty_cache()` for the host and the GPUs the kernel
uses, MegEngine `coalesce_free_memory()`, CuPy's pools' `free_all_blocks()`, and glibc's `malloc_trim(0)` for the host
heap); tells the simulated GPU, when one runs, that the kernel gave its cache back; reads the memory again.

It never imports a framework and never deletes a user's variable. JAX and TensorFlow have no call that returns their
pools without destroying live arrays (`jax.clear_backends()` invalidates every array), so they are not asked: JAX
frees an array's buffer as soon as the array is collected, which the garbage collection does.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import sys
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .._imported import imported
from .._text import Text
from ..memory._sample import split_key
from ..memory._series_words import series_name

if TYPE_CHECKING:
    from ..memory._sampler import Sampler

log = logging.getLogger(__name__)

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
NOT_ASKED_JAX = Text("JAX: not asked (no call gives its pool back without deleting live arrays; an array's buffer is "
                     "freed when the array is collected)",
                     "JAX:未调用(没有在不删除现有数组的情况下归还内存池的接口;数组被回收时其缓冲区即释放)")
NOT_ASKED_TF = Text("TensorFlow: not asked (it has no call that returns its pool)",
                    "TensorFlow:未调用(没有归还内存池的接口)")


def _say(text: Text, **fields: Any) -> Text:
    return Text(text.en.format(**fields), text.zh.format(**fields))


@dataclass(frozen=True)
class Reading:
    """Memory at one moment: the kernel process's host RSS, the kernel's memory per GPU as NVML reports it
    (`gpus`: device label → bytes, "gpu0" or "gpu0 (simulated)"), and each framework allocator's allocated and
    reserved (`allocators`: "torch gpu0" → (allocated, reserved), None where the framework does not say)."""

    time: float
    rss: int | None
    gpus: dict[str, int] = field(default_factory=dict)
    allocators: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"time": self.time, "rss": self.rss, "gpus": dict(self.gpus),
                "allocators": {name: {"allocated": a, "reserved": r} for name, (a, r) in self.allocators.items()}}


@dataclass(frozen=True)
class FreeResult:
    """What `free()` did and what it gave back: the readings before and after, the references cleared and the
    allocator calls made (bilingual sentences and the calls as written), the objects the collector found, the
    output-cache entries cleared (None: not asked), what failed, and how long it took (seconds)."""

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
                "problems": list(self.problems), "took": self.took, "simulated": self.simulated}


def free(outputs: bool = False, sampler: Sampler | None = None, shell: Any = None) -> FreeResult:
    """Give back what the failed cell holds (see the module's help); `outputs=True` clears the output cache too.
    `sampler` is read before and after (the kernel's, by default); `shell` is IPython's (the running one)."""
    started = time.perf_counter()
    if shell is None:
        shell = _shell()
    if sampler is None:
        sampler = _kernel_sampler()
    before = read(sampler)
    cleared, problems = drop_failed_cell(shell)
    cleared_outputs = None
    if outputs:
        cleared_outputs = clear_outputs(shell)
        cleared.append(_say(OUTPUTS, count=cleared_outputs))
    collected = gc.collect()
    released, not_asked, failed = release_caches(before)
    problems.extend(failed)
    simulated = _release_simulation()
    after = read(sampler)
    result = FreeResult(before, after, tuple(cleared), tuple(released), tuple(not_asked), collected, cleared_outputs,
                        tuple(problems), time.perf_counter() - started, simulated or _simulated(before))
    if sampler is not None:
        _mark(sampler, result)
    return result


MARK_LABEL = Text("freed {size}", "释放 {size}")
MARK_NOTE = Text("memory given back (%memfree): {figures}", "归还内存(%memfree):{figures}")


def _mark(sampler: Sampler, result: FreeResult) -> None:
    """Mark the moment on the live chart: what came back, the most of any figure (a GPU's, or the host's RSS)."""
    from .._text import current_language
    from ..catalog._values import format_size

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
    if sampler is not None:
        try:
            row = sampler.sample_once()
        except Exception:  # a failing memory source must not stop the free: the result says what it could read
            log.debug("no sample for the free result", exc_info=True)
            row = {}
        by_device: dict[str, dict[str, int]] = {}
        for key, value in row.items():
            device, quantity = split_key(key)
            by_device.setdefault(device, {})[quantity] = value
        for device, values in by_device.items():
            words = device.split()
            if words[0].startswith("gpu") and "process" in values:
                gpus[device] = values["process"]
            elif len(words) > 1 and ("allocated" in values or "reserved" in values):
                allocators[device] = (values.get("allocated"), values.get("reserved"))
    # The sampler reads NVML's process list at most once a second; a before/after needs it now.
    gpus.update(_nvml_process_memory())
    return Reading(time.time(), _rss(), gpus, allocators)


def _nvml_process_memory() -> dict[str, int]:
    """What the kernel's process tree holds on each GPU, from NVML's process list now ("gpu0", or "gpu0 (simulated)"
    under the simulated GPU's fake NVML); empty without a driver."""
    try:
        import psutil
        import pynvml
    except ImportError:
        return {}
    from ..memory._fake_nvml import installed

    suffix = " (simulated)" if installed() is not None else ""
    try:
        me = psutil.Process()
        ours = {me.pid, *(child.pid for child in me.children(recursive=True))}
        pynvml.nvmlInit()
    except Exception:  # no driver, or no process table to read: the sampler's figures stand
        return {}
    found: dict[str, int] = {}
    try:
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            listed = pynvml.nvmlDeviceGetComputeRunningProcesses(handle)
            held = [p.usedGpuMemory for p in listed if p.pid in ours and p.usedGpuMemory is not None]
            if held:
                found[f"gpu{index}{suffix}"] = int(sum(held))
    except Exception:  # MIG, no permission, a lost GPU: what was read so far
        log.debug("NVML's process list for the free result", exc_info=True)
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass
    return found


def _rss() -> int | None:
    try:
        import psutil

        return int(psutil.Process().memory_info().rss)
    except Exception:
        return None


def _simulated(reading: Reading) -> bool:
    return any("simulated" in device for device in reading.gpus)


# ---- references -----------------------------------------------------------------------------------------------------

def drop_failed_cell(shell: Any) -> tuple[list[Text], list[str]]:
    """Clear the frames of the last error's traceback (and of the errors chained to it) and drop the references
    Python and IPython keep to it. The user's namespace is not touched."""
    cleared: list[Text] = []
    problems: list[str] = []
    errors: list[BaseException] = []
    tracebacks: list[TracebackType] = []
    for name in ("last_exc", "last_value"):
        value = getattr(sys, name, None)
        if isinstance(value, BaseException):
            errors.append(value)
    last_tb = getattr(sys, "last_traceback", None)
    if isinstance(last_tb, TracebackType):
        tracebacks.append(last_tb)
    result = getattr(shell, "last_execution_result", None) if shell is not None else None
    error = getattr(result, "error_in_exec", None)
    if isinstance(error, BaseException):
        errors.append(error)
    formatter = getattr(shell, "InteractiveTB", None) if shell is not None else None
    formatter_tb = getattr(formatter, "tb", None)
    if isinstance(formatter_tb, TracebackType):
        tracebacks.append(formatter_tb)
    frames = 0
    seen: set[int] = set()
    for error in _chain(errors):
        tb = error.__traceback__
        if tb is not None:
            tracebacks.append(tb)
        error.__traceback__ = None  # the frames of the failed call are held by this link
    for tb in tracebacks:
        frames += _clear(tb, seen)
    if frames:
        cleared.append(_say(FRAMES, count=frames))
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
    return cleared, problems


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
            todo.extend(e for e in (error.__cause__, error.__context__) if e is not None)
    return found


def _clear(tb: TracebackType, seen: set[int]) -> int:
    """Clear every frame of `tb` not cleared yet (a frame still running is left alone); how many were cleared."""
    count = 0
    link: TracebackType | None = tb
    while link is not None:
        frame = link.tb_frame
        if id(frame) not in seen:
            seen.add(id(frame))
            try:
                frame.clear()
                count += 1
            except RuntimeError:  # still executing (the frame that called free): its locals are the caller's
                pass
        link = link.tb_next
    return count


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

def release_caches(before: Reading) -> tuple[list[str], list[Text], list[str]]:
    """Ask each loaded framework's allocator to give its cached blocks back: (the calls made, the frameworks not
    asked and why, what failed)."""
    released: list[str] = []
    not_asked: list[Text] = []
    problems: list[str] = []

    def call(what: str, action: Any) -> None:
        try:
            action()
            released.append(what)
        except Exception as exc:  # one framework's failure must not stop the others
            problems.append(f"{what}: {type(exc).__name__}: {str(exc)[:200]}")

    torch = imported("torch")
    if torch is not None:
        cuda = getattr(torch, "cuda", None)
        if cuda is not None and cuda.is_initialized():
            call("torch.cuda.empty_cache()", cuda.empty_cache)
    paddle = imported("paddle")
    if paddle is not None and paddle.is_compiled_with_cuda():
        call("paddle.device.cuda.empty_cache()", paddle.device.cuda.empty_cache)
    mxnet = imported("mxnet")
    if mxnet is not None:
        call("mxnet.cpu().empty_cache()", lambda: mxnet.cpu().empty_cache())
        for ordinal in _gpus_in_use(before):
            call(f"mxnet.gpu({ordinal}).empty_cache()", lambda n=ordinal: mxnet.gpu(n).empty_cache())
    megengine = imported("megengine")
    if megengine is not None:
        call("megengine.coalesce_free_memory()", megengine.coalesce_free_memory)
    cupy = imported("cupy")
    if cupy is not None:
        call("cupy.get_default_memory_pool().free_all_blocks()",
             lambda: cupy.get_default_memory_pool().free_all_blocks())
        call("cupy.get_default_pinned_memory_pool().free_all_blocks()",
             lambda: cupy.get_default_pinned_memory_pool().free_all_blocks())
    if imported("jax") is not None:
        not_asked.append(NOT_ASKED_JAX)
    if imported("tensorflow") is not None:
        not_asked.append(NOT_ASKED_TF)
    trim = _malloc_trim()
    if trim is not None:
        call("malloc_trim(0)", lambda: trim(0))
    return released, not_asked, problems


def _gpus_in_use(reading: Reading) -> list[int]:
    """CUDA ordinals of the GPUs NVML sees the kernel on: asking another GPU's pool would create a context there
    (hundreds of MB) to free nothing."""
    from ..memory._framework_sources import nvml_index

    used = set()
    for device, size in reading.gpus.items():
        word = device.split()[0]
        if size and word[3:].isdigit():
            used.add(int(word[3:]))
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
    from ..memory import _simulation as simulation

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

