"""PyTorch 2.13 variables, as the source reads them (checked against the torch 2.13.0+cpu wheel).

Three reading moments matter: `import torch` (the OpenMP runtime, logging), the first use of the allocator settings
(parsed lazily by `AcceleratorAllocatorConfig::instance()`, so after import but before the first allocation still
counts), and the import of the compiler's config modules (`torch._inductor.config`, `torch._dynamo.config`), which
`import torch` does not load: `torch.compile` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..base._errors import InvalidValueError
from ..base._quoting import quoted
from ..base._text import Text
from ._allocator_config import (
    TRUE_OR_FALSE,
    ConfigKey,
    ConfigValue,
    Fraction,
    KeyValueConfig,
    RoundupDivisions,
    WholeNumber,
    Word,
)
from ._allocators import Allocator
from ._entry import EntryFactory, ReadWhen
from ._memtrace import MemtraceFacts, Recording
from ._out_of_memory import ConfigKey as AddKey
from ._out_of_memory import OutOfMemoryFacts, OwnCause, Remedy
from ._rules import Conflict
from ._values import NOT_ALLOWED, Integer, Pattern, Presence, Switch

_TRUE = frozenset({"true", "1", "on", "yes"})
_FALSE = frozenset({"false", "0", "off", "no"})


@dataclass(frozen=True)
class TorchBool(ConfigValue):
    """PyTorch's `ConfigTokenizer::toBool`: exactly `True` or `False`; we also take true/1/on/yes and false/0/off/no
    and write them as PyTorch spells them."""

    kind: ClassVar[str] = "switch"

    def check(self, text: str) -> tuple[str, Any]:
        if text in ("True", "False"):
            return text, text == "True"
        if text.lower() in _TRUE:
            return "True", True
        if text.lower() in _FALSE:
            return "False", False
        raise InvalidValueError(NOT_ALLOWED.get().format(given=quoted(text), allowed=self.allowed()))

    def allowed(self) -> str:
        return TRUE_OR_FALSE.get()

    def choices(self) -> tuple[str, ...]:
        return ("True", "False")


VERSION = "torch 2.13.0"
MEMORY = Text("GPU memory (allocator)", "显存(分配器)")
THREADS = Text("CPU threads", "CPU 线程")
DEBUGGING = Text("Debugging and logging", "调试与日志")
COMPILE = Text("torch.compile (Inductor, Dynamo)", "torch.compile(Inductor、Dynamo)")

_ACCELERATOR_CONFIG = "c10/core/AllocatorConfig.cpp : AcceleratorAllocatorConfig::parseArgs"
_CUDA_CONFIG = "c10/cuda/CUDAAllocatorConfig.cpp : CUDAAllocatorConfig::parseArgs"


def _key(name: str, type: object, en: str, zh: str, default: str | None = None, device_only: bool = False,
         at_least: str | None = None) -> ConfigKey:
    return ConfigKey(name, type, Text(en, zh), default,  # type: ignore[arg-type]
                     _CUDA_CONFIG if device_only else _ACCELERATOR_CONFIG, device_only, at_least)


# The keys of torch 2.13.0's allocator config: the accelerator-generic ones (AcceleratorAllocatorConfig, checked even by
# a CPU build) and the CUDA ones (CUDAAllocatorConfig::getKeys(), checked only where CUDA is built in).
ALLOCATOR_KEYS = (
    _key("backend", Word(words=("native", "cudaMallocAsync")),
         "Which CUDA allocator: PyTorch's caching allocator (native) or CUDA's own cudaMallocAsync. Fixed when torch "
         "loads.",
         "使用哪个 CUDA 分配器:PyTorch 自带的缓存分配器(native)或 CUDA 的 cudaMallocAsync。在 torch 加载时固定。",
         "native", device_only=True),
    _key("expandable_segments", TorchBool(),
         "Grow one memory segment as needed instead of allocating many: less fragmentation.",
         "按需扩展同一块显存段,而不是分配许多段:碎片更少。", "False"),
    _key("max_split_size_mb", WholeNumber(minimum=11),
         "Blocks larger than this (MiB) are never split, which limits fragmentation; at least large_segment_size_mb "
         "(20 unless set).",
         "大于该值(MiB)的块不会被切分,从而减少碎片;至少为 large_segment_size_mb(未设置时为 20)。",
         at_least="large_segment_size_mb"),
    _key("max_non_split_rounding_mb", WholeNumber(minimum=11),
         "How much larger (MiB) a cached block may be than the request and still be used whole; at least "
         "large_segment_size_mb (20 unless set).",
         "缓存块最多可以比请求大多少(MiB)仍被整块使用;至少为 large_segment_size_mb(未设置时为 20)。", "20",
         at_least="large_segment_size_mb"),
    _key("roundup_power2_divisions", RoundupDivisions(),
         "Round allocation sizes up to this many divisions of each power of two, or per size interval in MiB.",
         "把分配大小向上取整到每个 2 的幂区间的若干等分,也可按大小区间(MiB)分别设置。"),
    _key("garbage_collection_threshold", Fraction(open=True),
         "Free unused cached blocks once this share of the allowed memory is in use (strictly between 0 and 1).",
         "显存使用达到允许总量的该比例时回收未使用的缓存块(严格介于 0 和 1 之间)。"),
    _key("large_segment_size_mb", WholeNumber(minimum=11),
         "Size (MiB) of the segments that large allocations are packed into; more than 10.",
         "大块分配所打包进的显存段大小(MiB);须大于 10。", "20"),
    _key("pinned_use_background_threads", TorchBool(),
         "Let a background thread process pinned-memory events.", "用后台线程处理锁页内存的事件。", "False"),
    _key("pinned_max_round_threshold_mb", WholeNumber(),
         "Pinned allocations above this size (MiB) are not rounded up to a power of two.",
         "超过该大小(MiB)的锁页内存分配不再向上取整到 2 的幂。"),
    _key("pinned_max_cached_size_mb", WholeNumber(),
         "Pinned blocks above this size (MiB) are not kept in the cache.", "超过该大小(MiB)的锁页内存块不再缓存。"),
    _key("pinned_use_cuda_host_register", TorchBool(),
         "Allocate pinned memory with malloc + cudaHostRegister instead of cudaHostAlloc.",
         "用 malloc + cudaHostRegister 代替 cudaHostAlloc 分配锁页内存。", "False", device_only=True),
    _key("pinned_num_register_threads", WholeNumber(minimum=1, maximum=128, power_of_two=True),
         "Threads that register pinned memory (a power of two, at most 128).",
         "注册锁页内存的线程数(2 的幂,最多 128)。", "1", device_only=True),
    _key("pinned_reserve_segment_size_mb", WholeNumber(minimum=1),
         "Reserve one pinned segment of this size (MiB) up front.", "预先保留一个该大小(MiB)的锁页内存段。",
         device_only=True),
    _key("release_lock_on_cudamalloc", TorchBool(),
         "Release the allocator's lock while cudaMalloc runs.", "在 cudaMalloc 执行期间释放分配器的锁。", "False",
         device_only=True),
    _key("graph_capture_record_stream_reuse", TorchBool(),
         "Reuse blocks recorded on other streams during CUDA graph capture.",
         "在 CUDA graph 捕获期间复用记录在其他流上的块。", "False", device_only=True),
    _key("per_process_memory_fraction", Fraction(),
         "Cap this process's GPU memory at this share of the device (0 to 1).",
         "把本进程的显存上限设为设备总量的该比例(0 到 1)。", "1.0", device_only=True),
    _key("pinned_free_catch_all", TorchBool(),
         "Let the pinned allocator free blocks it did not allocate itself.",
         "允许锁页内存分配器释放并非由它分配的块。", "False", device_only=True),
    _key("throw_on_cudamalloc_oom", TorchBool(),
         "Raise out-of-memory before calling cudaMalloc when the allocation would not fit.",
         "当分配放不下时,在调用 cudaMalloc 之前就抛出显存不足错误。", "False", device_only=True),
)
ALLOCATOR_CONFIG = KeyValueConfig(ALLOCATOR_KEYS)

_FIRST_ALLOCATOR_USE = Text(
    "the first use of the allocator settings (on a GPU: CUDA's initialisation and first allocation)",
    "第一次使用分配器设置时(GPU 上即 CUDA 初始化与第一次分配)",
)
_BACKEND_AT_LOAD = Text(
    "backend is fixed when torch loads (c10/cuda/CUDACachingAllocator.cpp : BackendStaticInitializer); a live "
    "change of backend is refused by PyTorch (\"Allocator backend parsed at runtime != allocator backend parsed at "
    "load time\"). The other keys are read at the first use of the allocator settings, and the live API changes them "
    "for later allocations.",
    "backend 在 torch 加载时就已固定(c10/cuda/CUDACachingAllocator.cpp : BackendStaticInitializer);运行时修改 "
    "backend 会被 PyTorch 拒绝。其余键在第一次使用分配器设置时读取,运行时接口会对之后的分配生效。",
)
_WHICH_NAME_WINS = Text(
    "With both PYTORCH_CUDA_ALLOC_CONF and PYTORCH_ALLOC_CONF set, torch 2.13.0 uses PYTORCH_CUDA_ALLOC_CONF and "
    "ignores PYTORCH_ALLOC_CONF, silently (checked in the 2.13.0 wheel; CUDAAllocatorConfig::instance() in "
    "c10/cuda/CUDAAllocatorConfig.h reads it first). Some 2025 development versions read PYTORCH_ALLOC_CONF first and "
    "warned that the old name is deprecated; set only one of them.",
    "同时设置 PYTORCH_CUDA_ALLOC_CONF 和 PYTORCH_ALLOC_CONF 时,torch 2.13.0 使用 PYTORCH_CUDA_ALLOC_CONF,"
    "悄悄忽略 PYTORCH_ALLOC_CONF(已在 2.13.0 wheel 中验证)。2025 年的部分开发版本则优先读取 PYTORCH_ALLOC_CONF 并"
    "提示旧名已弃用;请只设置其中一个。",
)
_SEGMENT_PERSISTS = Text(
    "large_segment_size_mb is not reset by a later setting that leaves it out (torch 2.13.0's parseArgs resets only "
    "max_split_size_mb, roundup_power2_divisions and garbage_collection_threshold): after a live change to 64, "
    "max_split_size_mb:32 is refused by torch until large_segment_size_mb is given again.",
    "之后的设置即使不写 large_segment_size_mb 也不会把它恢复默认(torch 2.13.0 的 parseArgs 只重置 max_split_size_mb、"
    "roundup_power2_divisions 和 garbage_collection_threshold):运行时把它改成 64 之后,torch 会拒绝 "
    "max_split_size_mb:32,直到再次写明 large_segment_size_mb。",
)
_STRICTER = Text(
    "PyTorch's own parser reads numbers with stoull, so it takes max_split_size_mb:20.5 as 20, 30abc as 30 and -5 as "
    "a huge number, and a CPU build skips keys it does not know; these are refused here. A CUDA build refuses unknown "
    "keys (\"Unrecognized key\").",
    "PyTorch 自己的解析器用 stoull 读数字,会把 max_split_size_mb:20.5 读成 20、30abc 读成 30、-5 读成极大的数,"
    "CPU 版还会跳过不认识的键;这里一律拒绝。CUDA 版会拒绝未知的键(\"Unrecognized key\")。",
)
_COMPILED_KEEP = Text(
    "Graphs that torch.compile has already compiled keep the settings they were compiled with.",
    "torch.compile 已经编译好的图沿用编译时的设置。",
)
_ONLY_1 = Text(
    'Only the exact value "1" turns it on ("true" and "yes" leave it off); it is written as 1 here.',
    '只有取值恰好为 "1" 才开启("true"、"yes" 都不会开启);这里统一写成 1。',
)

_allocator = EntryFactory("torch", readers=("torch",), live_api="torch.allocator_settings", latch="torch.cuda")
_variable = EntryFactory("torch", readers=("torch",))
_inductor = EntryFactory("torch", readers=("torch._inductor.config",), when=ReadWhen.IMPORT)
_dynamo = EntryFactory("torch", readers=("torch._dynamo.config",), when=ReadWhen.IMPORT)

ENTRIES = (
    # ---- GPU memory ---------------------------------------------------------------------------------------------
    _allocator(
        "PYTORCH_ALLOC_CONF",
        category=MEMORY,
        type=ALLOCATOR_CONFIG,
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at=Text(
            f"c10/core/AllocatorConfig.cpp : AcceleratorAllocatorConfig::instance() (first call), "
            f"c10/cuda/CUDAAllocatorConfig.h : CUDAAllocatorConfig::instance() ({VERSION})",
            "c10/core/AllocatorConfig.cpp : AcceleratorAllocatorConfig::instance()(首次调用时),"
            f"c10/cuda/CUDAAllocatorConfig.h : CUDAAllocatorConfig::instance()({VERSION})",
        ),
        first_use=_FIRST_ALLOCATOR_USE,
        description=Text(
            "The caching allocator's settings as key:value pairs (expandable_segments:True,max_split_size_mb:128): "
            "fragmentation, rounding, garbage collection, pinned memory, and the allocator backend.",
            "缓存分配器的设置,写成 key:value 对(expandable_segments:True,max_split_size_mb:128):碎片、取整、"
            "垃圾回收、锁页内存以及分配器后端。",
        ),
        caveats=(_BACKEND_AT_LOAD, _WHICH_NAME_WINS, _STRICTER, _SEGMENT_PERSISTS),
        extra=True,
        loads_code=None,
    ),
    _allocator(
        "PYTORCH_CUDA_ALLOC_CONF",
        category=MEMORY,
        type=ALLOCATOR_CONFIG,
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at=f"c10/cuda/CUDAAllocatorConfig.h : CUDAAllocatorConfig::instance(), c10/core/AllocatorConfig.cpp : "
        f"AcceleratorAllocatorConfig::instance() ({VERSION})",
        first_use=_FIRST_ALLOCATOR_USE,
        description=Text(
            "The older name of PYTORCH_ALLOC_CONF, with the same key:value settings; the docs call it deprecated.",
            "PYTORCH_ALLOC_CONF 的旧名,设置格式相同;文档称其已弃用。",
        ),
        caveats=(_WHICH_NAME_WINS, _BACKEND_AT_LOAD, _STRICTER, _SEGMENT_PERSISTS),
        extra=True,
        loads_code=None,
    ),
    _allocator(
        "PYTORCH_HIP_ALLOC_CONF",
        category=MEMORY,
        type=ALLOCATOR_CONFIG,
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at=Text(
            f"c10/core/AllocatorConfig.cpp : AcceleratorAllocatorConfig::instance() (first call; in libc10 between the "
            f"CUDA and the generic name), c10/cuda/CUDAAllocatorConfig.h : CUDAAllocatorConfig::instance() ({VERSION})",
            "c10/core/AllocatorConfig.cpp : AcceleratorAllocatorConfig::instance()(首次调用时;libc10 中位于 CUDA 名"
            f"与通用名之间),c10/cuda/CUDAAllocatorConfig.h : CUDAAllocatorConfig::instance()({VERSION})",
        ),
        first_use=_FIRST_ALLOCATOR_USE,
        description=Text(
            "The name ROCm users know for PYTORCH_ALLOC_CONF, with the same key:value settings.",
            "ROCm 用户熟悉的 PYTORCH_ALLOC_CONF 别名,key:value 设置相同。",
        ),
        caveats=(Text(
            "Every build of torch 2.13.0 reads it, not only ROCm's (checked with the CPU wheel): after "
            "PYTORCH_CUDA_ALLOC_CONF, which wins over it, and before PYTORCH_ALLOC_CONF, which it silently overrides; "
            "set only one of the three.",
            "torch 2.13.0 的所有版本都会读取它,而不只是 ROCm 版(已用 CPU wheel 验证):它排在 PYTORCH_CUDA_ALLOC_CONF "
            "之后(后者优先),在 PYTORCH_ALLOC_CONF 之前(会悄悄覆盖后者);三者只设置一个。"),
            _BACKEND_AT_LOAD, _STRICTER, _SEGMENT_PERSISTS),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "PYTORCH_NO_CUDA_MEMORY_CACHING",
        category=MEMORY,
        type=Presence(),
        default=None,
        when=ReadWhen.FIRST_USE,
        latch="torch.cuda",
        read_at=Text(
            "c10/cuda/CUDACachingAllocator.cpp : forceUncachedAllocator() (a function-static getenv != nullptr)",
            "c10/cuda/CUDACachingAllocator.cpp : forceUncachedAllocator()(函数内静态变量:getenv != nullptr)",
        ),
        first_use=Text("the first CUDA allocation", "第一次 CUDA 分配时"),
        description=Text(
            "Bypass the caching allocator: every tensor gets its own cudaMalloc (slow; for memory checkers).",
            "绕过缓存分配器:每个张量都单独 cudaMalloc(很慢;供显存检查工具使用)。",
        ),
        caveats=(Text(
            'The docs say "set it to 1"; the source only checks that it exists, so PYTORCH_NO_CUDA_MEMORY_CACHING=0 '
            "turns caching OFF too.",
            '文档说"设为 1";源码只检查变量是否存在,所以 PYTORCH_NO_CUDA_MEMORY_CACHING=0 同样会关闭缓存。'),),
        extra=True,
        loads_code=None,
    ),
    # ---- CPU threads --------------------------------------------------------------------------------------------
    _variable(
        "OMP_NUM_THREADS",
        category=THREADS,
        type=Integer(minimum=1),
        default=None,
        when=ReadWhen.IMPORT,
        read_at=Text(
            "the OpenMP runtime torch loads (libgomp reads it when `import torch` loads it); "
            "torch.get_num_threads() reports it",
            "torch 加载的 OpenMP 运行时(`import torch` 加载 libgomp 时由它读取);torch.get_num_threads() 可查看其结果",
        ),
        live_api="torch.set_num_threads",
        description=Text(
            "How many threads PyTorch uses for CPU operations (intra-op parallelism). Default: the number of cores.",
            "PyTorch 在 CPU 运算中使用的线程数(算子内并行)。默认等于 CPU 核数。",
        ),
        caveats=(Text(
            "Other libraries read it when they load too (numpy's OpenBLAS, MKL): a live torch.set_num_threads "
            "changes only PyTorch.",
            "其他库加载时也会读取它(numpy 的 OpenBLAS、MKL);运行时的 torch.set_num_threads 只改变 PyTorch。"),
            Text(
            "More threads than cores are not taken at import: torch's MKL builds (the x86 wheels) start with "
            "omp_set_num_threads(mkl_get_max_threads()) (aten/src/ATen/ParallelOpenMP.cpp : init_num_threads), and "
            "MKL caps that at the number of cores unless MKL_DYNAMIC=false. On 2 cores OMP_NUM_THREADS=3 gives "
            "torch.get_num_threads() == 2; torch.set_num_threads(3) gives 3 (checked in the 2.13.0 CPU wheel).",
            "导入时不会采用多于 CPU 核数的线程数:torch 的 MKL 版本(x86 wheel)启动时执行 "
            "omp_set_num_threads(mkl_get_max_threads())(aten/src/ATen/ParallelOpenMP.cpp : init_num_threads),"
            "而 MKL 会把它限制在核数以内,除非 MKL_DYNAMIC=false。在 2 核机器上 OMP_NUM_THREADS=3 得到 "
            "torch.get_num_threads() == 2;torch.set_num_threads(3) 则得到 3(已在 2.13.0 CPU wheel 中验证)。"),
        ),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "MKL_NUM_THREADS",
        category=THREADS,
        type=Integer(minimum=1),
        default=None,
        when=ReadWhen.IMPORT,
        read_at=Text(
            "the MKL runtime torch loads (read when `import torch` loads it); torch.get_num_threads() reports it",
            "torch 加载的 MKL 运行时(在 `import torch` 加载它时读取);torch.get_num_threads() 可查看其结果",
        ),
        live_api="torch.set_num_threads",
        description=Text(
            "How many threads Intel MKL uses inside PyTorch's CPU operations; torch.set_num_threads sets it too.",
            "PyTorch 的 CPU 运算中 Intel MKL 使用的线程数;torch.set_num_threads 也会设置它。",
        ),
        extra=True,
        loads_code=None,
    ),
    # ---- Debugging ----------------------------------------------------------------------------------------------
    _variable(
        "TORCH_LOGS",
        category=DEBUGGING,
        type=Pattern(
            regex=r"[+-]?[a-z_][a-z0-9_.]*(\s*,\s*[+-]?[a-z_][a-z0-9_.]*)*",
            description=Text("comma-separated log names, each optionally prefixed with + (DEBUG) or - (ERROR only)",
                             "以逗号分隔的日志名,每个前面可加 +(DEBUG 级)或 -(只输出 ERROR)"),
            examples=("+dynamo", "graph_breaks,recompiles", "-inductor"),
        ),
        default=None,
        when=ReadWhen.IMPORT,
        read_at="torch/__init__.py : _logging._init_logs() → torch/_logging/_internal.py : _init_logs",
        description=Text(
            "Which torch.compile logs to show and how verbosely (+dynamo for debug output, graph_breaks, recompiles).",
            "显示哪些 torch.compile 日志及其详细程度(+dynamo 输出调试信息,graph_breaks、recompiles 等)。",
        ),
        caveats=(Text(
            "After import, torch._logging.set_logs(...) changes the logs (its keywords are the same names).",
            "导入之后可用 torch._logging.set_logs(...) 修改(关键字即这些名字)。"),),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "TORCH_SHOW_CPP_STACKTRACES",
        category=DEBUGGING,
        type=Switch(),
        default="0",
        when=ReadWhen.IMPORT,
        read_at=Text(
            "libtorch_cpu (cached when torch loads: set after `import torch` it has no effect, and unsetting it "
            "later does not turn it off; checked with the 2.13.0 wheel)",
            "libtorch_cpu(torch 加载时缓存:在 `import torch` 之后设置不起作用,之后删除也不会关闭它;已用 2.13.0 wheel "
            "验证)",
        ),
        description=Text(
            "Add the C++ stack trace to errors raised from PyTorch's C++ code.",
            "在 PyTorch C++ 代码抛出的错误中附上 C++ 调用栈。",
        ),
        extra=True,
        loads_code=None,
    ),
    # ---- torch.compile ------------------------------------------------------------------------------------------
    _inductor(
        "TORCHINDUCTOR_MAX_AUTOTUNE",
        category=COMPILE,
        type=Switch(),
        default="0",
        read_at=Text(
            f"torch/_inductor/config.py : max_autotune (module level, {VERSION})",
            f"torch/_inductor/config.py : max_autotune(模块顶层,{VERSION})",
        ),
        live_api="torch._inductor.config:max_autotune",
        description=Text(
            "Let torch.compile benchmark several kernel choices and keep the fastest (much slower compiles).",
            "让 torch.compile 对多种 kernel 实现做基准测试并选最快的(编译会慢很多)。",
        ),
        caveats=(_ONLY_1, _COMPILED_KEEP),
        extra=True,
        loads_code=None,
    ),
    _inductor(
        "TORCHINDUCTOR_MAX_AUTOTUNE_GEMM",
        category=COMPILE,
        type=Switch(),
        default="0",
        read_at=Text(
            f"torch/_inductor/config.py : max_autotune_gemm (module level, {VERSION})",
            f"torch/_inductor/config.py : max_autotune_gemm(模块顶层,{VERSION})",
        ),
        live_api="torch._inductor.config:max_autotune_gemm",
        description=Text("Autotune only matrix multiplications and convolutions.", "只对矩阵乘和卷积做自动调优。"),
        caveats=(_ONLY_1, _COMPILED_KEEP),
        extra=True,
        loads_code=None,
    ),
    _inductor(
        "TORCHINDUCTOR_FREEZING",
        category=COMPILE,
        type=Switch(),
        default="0",
        read_at=Text(
            f"torch/_inductor/config.py : freezing (module level, {VERSION})",
            f"torch/_inductor/config.py : freezing(模块顶层,{VERSION})",
        ),
        live_api="torch._inductor.config:freezing",
        description=Text(
            "Treat parameters as constants when compiling for inference (constant folding, weight pre-packing).",
            "推理编译时把参数当作常量(常量折叠、权重预打包)。",
        ),
        caveats=(_ONLY_1, _COMPILED_KEEP),
        extra=True,
        loads_code=None,
    ),
    _inductor(
        "TORCHINDUCTOR_FX_GRAPH_CACHE",
        category=COMPILE,
        type=Switch(),
        default="1",
        read_at=f"torch/_inductor/config.py : fx_graph_cache = Config(env_name_force=...) → "
        f"torch/utils/_config_module.py : _read_env_variable ({VERSION})",
        live_api="torch._inductor.config:fx_graph_cache",
        description=Text(
            "Reuse compiled graphs from the on-disk cache across processes (on by default).",
            "跨进程复用磁盘缓存中已编译的图(默认开启)。",
        ),
        caveats=(Text(
            'Only "1" and "0" are read as on and off: any other text ("true", "false") is kept as a string, which '
            "counts as on. It is written as 1 or 0 here.",
            '只有 "1" 和 "0" 被读作开和关:其他文本("true"、"false")会作为字符串保留,一律视为开启。'
            '这里统一写成 1 或 0。'),
            _COMPILED_KEEP),
        extra=True,
        loads_code=None,
    ),
    _inductor(
        "TORCHINDUCTOR_COMPILE_THREADS",
        category=COMPILE,
        type=Integer(minimum=1),
        default=None,
        read_at=Text(
            f"torch/_inductor/config.py : decide_compile_threads() (module level, {VERSION})",
            f"torch/_inductor/config.py : decide_compile_threads()(模块顶层,{VERSION})",
        ),
        live_api="torch._inductor.config:compile_threads",
        description=Text(
            "How many worker processes compile kernels in parallel; 1 compiles in the kernel's own process "
            "(needed for pdb).",
            "并行编译 kernel 的工作进程数;设为 1 则在内核进程中编译(使用 pdb 时需要)。",
        ),
        caveats=(_COMPILED_KEEP,),
        extra=True,
        loads_code=None,
    ),
    _dynamo(
        "TORCH_COMPILE_DISABLE",
        category=COMPILE,
        type=Switch(),
        default="0",
        read_at=Text(
            f"torch/_dynamo/config.py : disable (module level, {VERSION})",
            f"torch/_dynamo/config.py : disable(模块顶层,{VERSION})",
        ),
        live_api="torch._dynamo.config:disable",
        description=Text(
            "Turn torch.compile into a no-op: functions run eagerly, as if never compiled.",
            "让 torch.compile 不起作用:函数按 eager 方式运行,如同从未编译。",
        ),
        caveats=(_ONLY_1,),
        extra=True,
        loads_code=None,
    ),
    _dynamo(
        "TORCHDYNAMO_VERBOSE",
        category=COMPILE,
        type=Switch(),
        default="0",
        read_at=Text(
            f"torch/_dynamo/config.py : verbose (module level, {VERSION})",
            f"torch/_dynamo/config.py : verbose(模块顶层,{VERSION})",
        ),
        live_api="torch._dynamo.config:verbose",
        description=Text(
            "Print full stack traces and the user code location when Dynamo fails or breaks a graph.",
            "Dynamo 失败或断图时打印完整调用栈和用户代码位置。",
        ),
        caveats=(_ONLY_1,),
        extra=True,
        loads_code=None,
    ),
    _dynamo(
        "TORCHDYNAMO_SUPPRESS_ERRORS",
        category=COMPILE,
        type=Presence(empty_is_off=True),
        default=None,
        read_at=f"torch/_dynamo/config.py : suppress_errors = bool(os.environ.get(...)) ({VERSION})",
        live_api="torch._dynamo.config:suppress_errors",
        description=Text(
            "When Dynamo fails on a function, run it eagerly instead of raising.",
            "Dynamo 编译某函数失败时改为 eager 运行,而不是抛出异常。",
        ),
        caveats=(Text(
            "Read as bool(text): any non-empty value, \"0\" and \"false\" included, turns it ON.",
            "按 bool(文本) 读取:任何非空取值(包括 \"0\" 和 \"false\")都会开启。"),),
        extra=True,
        loads_code=None,
    ),
)

CONFLICTS = (
    Conflict(("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"), Text(
        "torch 2.13.0 then uses PYTORCH_CUDA_ALLOC_CONF and silently ignores PYTORCH_ALLOC_CONF (other versions the "
        "other way round), so they are refused together here.",
        "此时 torch 2.13.0 使用 PYTORCH_CUDA_ALLOC_CONF 并悄悄忽略 PYTORCH_ALLOC_CONF(其他版本正好相反),"
        "因此这里不允许同时设置。")),
    Conflict(("PYTORCH_HIP_ALLOC_CONF", "PYTORCH_ALLOC_CONF"), Text(
        "torch 2.13.0 then uses PYTORCH_HIP_ALLOC_CONF and silently ignores PYTORCH_ALLOC_CONF, so they are refused "
        "together here.",
        "此时 torch 2.13.0 使用 PYTORCH_HIP_ALLOC_CONF 并悄悄忽略 PYTORCH_ALLOC_CONF,因此这里不允许同时设置。")),
    Conflict(("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF"), Text(
        "torch 2.13.0 then uses PYTORCH_CUDA_ALLOC_CONF and silently ignores PYTORCH_HIP_ALLOC_CONF, so they are "
        "refused together here.",
        "此时 torch 2.13.0 使用 PYTORCH_CUDA_ALLOC_CONF 并悄悄忽略 PYTORCH_HIP_ALLOC_CONF,因此这里不允许同时设置。")),
)

# What the out-of-memory report says of PyTorch (catalog/_out_of_memory.py).
OUT_OF_MEMORY = OutOfMemoryFacts(
    causes=(OwnCause("cap", 0.75, Text(
        "PyTorch's per-process memory fraction allows {allowed} (torch.cuda.set_per_process_memory_fraction)",
        "PyTorch 的单进程显存比例只允许 {allowed}(torch.cuda.set_per_process_memory_fraction)")),),
    remedies=(Remedy(("fragmentation",), (AddKey(("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"),
                                                 "expandable_segments", "True"),), Text(
        "PyTorch maps memory in growable segments instead of fixed blocks, so freed space can be reused for larger "
        "tensors", "PyTorch 改用可增长的显存段而非固定大小的块,释放的空间可以复用于更大的 tensor")),),
)

# Where its memory was allocated, as the allocation sites ask (catalog/_memtrace.py).
MEMTRACE = MemtraceFacts("torch", Recording.WHEN_ON, Text(
    "PyTorch records stacks on CUDA in its memory history (torch.cuda.memory._record_memory_history) and on "
    "the CPU in its profiler's memory events (torch.profiler with profile_memory and with_stack), only while "
    "they are on",
    "PyTorch 仅在开启时记录调用栈:CUDA 上是显存历史(torch.cuda.memory._record_memory_history),CPU 上是"
    "性能分析器的内存事件(torch.profiler 的 profile_memory 与 with_stack)"),
    kept_on=Text("PyTorch: the CUDA memory history, kept on", "PyTorch:CUDA 显存历史,保持开启"),
    per_cell=Text("PyTorch: no CUDA started, so each cell is recorded by its CPU profiler's memory events while "
                  "it runs", "PyTorch:尚未启动 CUDA,每个单元运行时由 CPU 性能分析器的内存事件记录"))

# Its allocator's settings as AllocatorWidget groups them (catalog/_allocators.py).
ALLOCATOR = Allocator(
    Text("PyTorch allocator", "PyTorch 分配器"),
    latching=Text(
        "The allocator config is applied as one value: each key below is its own control, and a key left at "
        "\"default\" is left out. backend is fixed when torch loads; the other keys at the allocator's first use, "
        "after which torch.cuda.memory._set_allocator_settings changes them for later allocations.",
        "分配器设置作为一个值整体应用:下面每个键各有一个控件,取 \"默认\" 的键不写入。backend 在 torch 加载时固定;其余键"
        "在分配器第一次使用时读取,之后可用 torch.cuda.memory._set_allocator_settings 修改,对之后的分配生效。",
    ),
    category="GPU memory",
)
