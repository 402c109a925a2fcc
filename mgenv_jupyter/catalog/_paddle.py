"""PaddlePaddle 3.x memory flags (seed 003). Paddle copies every FLAGS_* environment variable into its gflags once, at
`import paddle` (`__bootstrap__` runs `init_gflags --tryfromenv`); after that only `paddle.set_flags` changes them, and
whether a change still matters depends on when the C++ consumer reads the flag.
"""

from __future__ import annotations

from ..base._text import Text
from ._allocators import Allocator
from ._entry import EntryFactory, ReadWhen
from ._memtrace import MemtraceFacts, Recording
from ._out_of_memory import Fixed, OutOfMemoryFacts, OwnCause, Remedy, Unless
from ._rules import Condition
from ._values import Choice, Integer, MiB, Number, Size, Switch

READERS = ("paddle",)
MEMORY = Text("Memory management", "存储管理")
_BOOTSTRAP = "python/paddle/base/__init__.py : __bootstrap__ (init_gflags --tryfromenv)"

_FIRST_GPU_ALLOC = Text(
    "the first GPU allocation on each device under naive_best_fit",
    "naive_best_fit 策略下每块 GPU 上的第一次显存分配",
)
_NAIVE_ONLY = Text(
    "Only the naive_best_fit allocator reads it; with the default auto_growth strategy it has no effect.",
    "只有 naive_best_fit 分配器读取它;在默认的 auto_growth 策略下没有任何效果。",
)
# Read only by Paddle's naive_best_fit allocator (naive_best_fit_allocator.cc, gpu_info.cc GpuAllocSize).
NAIVE_BEST_FIT = Condition(
    "FLAGS_allocator_strategy",
    ("naive_best_fit",),
    because=Text("only matters under naive_best_fit (the chosen strategy)",
                 "只在 naive_best_fit 策略下起作用(即当前选择的策略)"),
    otherwise=Text("only matters under naive_best_fit: with the chosen strategy {value} it has no effect",
                   "只在 naive_best_fit 策略下起作用:当前选择的策略 {value} 下不起作用"),
)
_CPU_UNUSED = Text(
    "Effectively unused on Linux x86: Paddle installs a plain CPU allocator there and builds the CPU buddy allocator "
    "this flag sizes only on macOS arm64, although the docs imply it sizes CPU memory.",
    "在 Linux x86 上实际不起作用:该平台使用普通 CPU 分配器,此 flag 所控制的 CPU buddy 分配器只在 macOS arm64 上"
    "创建,文档却暗示它决定 CPU 内存的大小。",
)
_STATIC_ONLY = Text(
    "Only static-graph executors (Executor, CompiledProgram, InterpreterCore) use it; dynamic-graph (eager) code is "
    "not affected.",
    "只对静态图执行器(Executor、CompiledProgram、InterpreterCore)有效;动态图(eager)代码不受影响。",
)



_variable = EntryFactory("paddle", readers=READERS, live_api="paddle.set_flags")

ENTRIES = (
    _variable(
        "FLAGS_allocator_strategy",
        category=MEMORY,
        type=Choice(("auto_growth", "naive_best_fit", "thread_local")),
        default="auto_growth",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/phi/core/memory/allocation/allocator_strategy.cc : GetAllocatorStrategy()",
        description=Text(
            "Which memory allocator Paddle uses: naive_best_fit grabs a large share of memory up front (less "
            "fragmentation, bigger batches), auto_growth takes memory only as tensors need it (may fragment).",
            "选择 Paddle 的内存分配器:naive_best_fit 预先占用大部分内存/显存(碎片少,可支持更大 batch),"
            "auto_growth 按实际需要逐步申请(可能产生碎片)。",
        ),
        first_use=Text("the first tensor allocation", "第一次分配张量内存时"),
        caveats=(
            Text(
                "The strategy is fixed at the first tensor allocation: a later set_flags is silently ignored even "
                "though get_flags reports the new value. The docs do not mention this.",
                "分配策略在第一次分配张量时就固定下来:之后再调用 set_flags 会被静默忽略,而 get_flags 仍会显示新值。"
                "文档没有说明这一点。",
            ),
            Text(
                "The docs list only naive_best_fit and auto_growth; the source also accepts thread_local.",
                "文档只列出 naive_best_fit 和 auto_growth,源码还接受 thread_local。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "FLAGS_eager_delete_scope",
        category=MEMORY,
        type=Switch(on="true", off="false"),
        default="true",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/fluid/framework/scope.cc : Scope::DeleteScope()",
        description=Text(
            "Delete child scopes synchronously, which lowers GPU memory use but makes freeing variables slightly "
            "slower (about 1%).",
            "同步删除子作用域,可降低显存占用,但销毁变量会略慢(约 1% 的性能损失)。",
        ),
        caveats=(_STATIC_ONLY,),
        loads_code=None,
    ),
    _variable(
        "FLAGS_eager_delete_tensor_gb",
        category=MEMORY,
        type=Number(),
        default="0.0",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/fluid/framework/garbage_collector.cc : GetEagerDeletionThreshold()",
        description=Text(
            "Garbage-collection threshold in GiB: unused tensors are freed once this much garbage has piled up; 0 "
            "frees garbage immediately and a negative value turns garbage collection off.",
            "垃圾回收阈值(单位 GiB):无用张量累计到该大小时才释放;0 表示一出现就立即释放,负数表示关闭垃圾回收。",
        ),
        caveats=(_STATIC_ONLY,),
        loads_code=None,
    ),
    _variable(
        "FLAGS_fast_eager_deletion_mode",
        category=MEMORY,
        type=Switch(on="true", off="false"),
        default="true",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/fluid/framework/garbage_collector.cc : IsFastEagerDeletionModeEnabled()",
        description=Text(
            "Fast garbage collection: free GPU memory without waiting for the CUDA kernels that used it to finish; "
            "only matters while garbage collection is on.",
            "快速垃圾回收:不等使用该显存的 CUDA kernel 结束就释放显存;仅在开启垃圾回收时有效。",
        ),
        caveats=(_STATIC_ONLY,),
        loads_code=None,
    ),
    _variable(
        "FLAGS_fraction_of_cpu_memory_to_use",
        applies_when=NAIVE_BEST_FIT,
        category=MEMORY,
        type=Number(minimum=0.0, maximum=1.0),
        default="1.0",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/phi/core/memory/allocation/naive_best_fit_allocator.cc : "
        "GetCPUBuddyAllocator()",
        description=Text(
            "Share of total CPU memory taken as the first memory chunk; when it is used up, another chunk of the same "
            "size is requested.",
            "首次申请的内存块占 CPU 总内存的比例;用完后再申请同样大小的新块。",
        ),
        first_use=Text(
            "the first CPU allocation through the buddy allocator",
            "第一次通过 buddy 分配器分配 CPU 内存时",
        ),
        caveats=(_CPU_UNUSED,),
        loads_code=None,
    ),
    _variable(
        "FLAGS_fraction_of_cuda_pinned_memory_to_use",
        category=MEMORY,
        type=Number(minimum=0.0, maximum=1.0),
        default="0.5",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/phi/core/memory/allocation/naive_best_fit_allocator.cc : "
        "GetCUDAPinnedBuddyAllocator()",
        description=Text(
            "Share of total CPU memory taken as the first chunk of CUDA pinned (page-locked) memory; further chunks "
            "of the same size follow when it runs out.",
            "首次申请的 CUDA 锁页(pinned)内存块占 CPU 总内存的比例;用完后按相同大小继续申请。",
        ),
        first_use=Text("the first pinned-memory allocation", "第一次分配锁页内存时"),
        caveats=(
            Text(
                "Only used when FLAGS_use_auto_growth_pinned_allocator is false; the size is fixed at the first "
                "pinned allocation.",
                "只有 FLAGS_use_auto_growth_pinned_allocator 为 false 时才使用;大小在第一次分配锁页内存时确定。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "FLAGS_fraction_of_gpu_memory_to_use",
        applies_when=NAIVE_BEST_FIT,
        category=MEMORY,
        type=Number(minimum=0.0, maximum=1.0),
        default="0.92",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/phi/core/platform/device/gpu/gpu_info.cc : GpuAllocSize()",
        description=Text(
            "Share of available GPU memory taken as the first memory chunk; when it is used up, another chunk of the "
            "same size is requested until the GPU is full. The default is 0.92 on Linux and 0.5 on Windows.",
            "首次申请的显存块占 GPU 可用显存的比例;用完后按相同大小继续申请,直到显存耗尽。Linux 默认 0.92,"
            "Windows 默认 0.5。",
        ),
        first_use=_FIRST_GPU_ALLOC,
        caveats=(
            _NAIVE_ONLY,
            Text(
                "The first chunk size is fixed at the first allocation on each GPU; a later set_flags only changes "
                "refills, and only while FLAGS_reallocate_gpu_memory_in_mb is 0.",
                "首块大小在每块 GPU 第一次分配时确定;之后 set_flags 只影响后续补充的块,且仅在 "
                "FLAGS_reallocate_gpu_memory_in_mb 为 0 时生效。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "FLAGS_fuse_parameter_groups_size",
        category=MEMORY,
        type=Integer(),
        default="1",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/fluid/framework/ir/coalesce_grad_tensor_pass.cc : CoalesceGradTensorPass",
        description=Text(
            "How many parameter gradients go into each fused group for communication; -1 puts all of them into a "
            "single group.",
            "梯度融合通信时每组包含的参数个数;-1 表示所有参数合成一组。",
        ),
        caveats=(
            Text(
                "The docs give the default as 3 (older releases); Paddle 3.3.1 defaults to 1.",
                "文档写默认值为 3(旧版本),Paddle 3.3.1 的默认值是 1。",
            ),
            _STATIC_ONLY,
        ),
        loads_code=None,
    ),
    _variable(
        "FLAGS_fuse_parameter_memory_size",
        category=MEMORY,
        type=Number(),
        default="-1.0",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/fluid/framework/ir/coalesce_grad_tensor_pass.cc : CoalesceGradTensorPass",
        description=Text(
            "Upper bound in MiB on the gradients fused into one communication call (such as NCCL AllReduce); -1 means "
            "groups are not formed by size.",
            "单次通信调用(如 NCCL AllReduce)中融合的梯度大小上限,单位 MiB;-1 表示不按大小分组。",
        ),
        caveats=(_STATIC_ONLY,),
        loads_code=None,
    ),
    _variable(
        "FLAGS_init_allocated_mem",
        category=MEMORY,
        type=Switch(on="true", off="false"),
        default="false",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/phi/core/memory/allocation/naive_best_fit_allocator.cc : Alloc<Place>()",
        description=Text(
            "Debugging aid: fill newly allocated memory with a non-zero pattern, to catch operators that wrongly "
            "assume fresh memory is zeroed.",
            "调试用:用非零值填充新分配的内存,以发现错误地假定新内存已清零的算子。",
        ),
        caveats=(
            Text(
                "Only the naive_best_fit code paths honour it (GPU memory under naive_best_fit, pinned memory); with "
                "the default auto_growth strategy GPU allocations are not filled.",
                "只有 naive_best_fit 的分配路径会执行填充(naive_best_fit 下的显存、锁页内存);默认 auto_growth "
                "策略下的显存分配不会被填充。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "FLAGS_initial_cpu_memory_in_mb",
        applies_when=NAIVE_BEST_FIT,
        category=MEMORY,
        type=Size(unit=MiB),
        default="500",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/phi/core/memory/allocation/naive_best_fit_allocator.cc : "
        "GetCPUBuddyAllocator()",
        description=Text(
            "Size in MiB of each CPU memory chunk the allocator requests; the smaller of this and "
            "FLAGS_fraction_of_cpu_memory_to_use × physical memory is used.",
            "分配器每次申请的 CPU 内存块大小(MiB);实际取它与 FLAGS_fraction_of_cpu_memory_to_use × 物理内存 "
            "两者中的较小值。",
        ),
        first_use=Text(
            "the first CPU allocation through the buddy allocator",
            "第一次通过 buddy 分配器分配 CPU 内存时",
        ),
        caveats=(_CPU_UNUSED,),
        loads_code=None,
    ),
    _variable(
        "FLAGS_initial_gpu_memory_in_mb",
        applies_when=NAIVE_BEST_FIT,
        category=MEMORY,
        type=Size(unit=MiB),
        default="0",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/phi/core/platform/device/gpu/gpu_info.cc : GpuAllocSize(realloc=false)",
        description=Text(
            "Size in MiB of the first GPU memory chunk; it overrides FLAGS_fraction_of_gpu_memory_to_use, and 0 falls "
            "back to that fraction.",
            "首个显存块的大小(MiB);设置后覆盖 FLAGS_fraction_of_gpu_memory_to_use,为 0 时改用该比例。",
        ),
        first_use=_FIRST_GPU_ALLOC,
        caveats=(_NAIVE_ONLY,),
        loads_code=None,
    ),
    _variable(
        "FLAGS_memory_fraction_of_eager_deletion",
        category=MEMORY,
        type=Number(minimum=0.0, maximum=1.0),
        default="1.0",
        when=ReadWhen.IMPORT,
        read_at=Text(
            f"{_BOOTSTRAP} → legacy CompiledProgram memory-optimize pass",
            "python/paddle/base/__init__.py : __bootstrap__ (init_gflags --tryfromenv) → 旧版 CompiledProgram 的显存"
            "优化 pass",
        ),
        description=Text(
            "Share of temporary variables garbage collection may free, largest first: 1.0 frees all of them, 0.0 "
            "frees none.",
            "垃圾回收可释放的临时变量比例,按占用内存从大到小选取:1.0 释放全部,0.0 一个也不释放。",
        ),
        caveats=(
            Text(
                "Only the legacy data-parallel CompiledProgram path uses it; other executors and dynamic graphs ignore "
                "it.",
                "只有旧的数据并行 CompiledProgram 路径使用它;其他执行器和动态图会忽略。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "FLAGS_reallocate_gpu_memory_in_mb",
        applies_when=NAIVE_BEST_FIT,
        category=MEMORY,
        type=Size(unit=MiB),
        default="0",
        when=ReadWhen.IMPORT,
        read_at=f"{_BOOTSTRAP} → paddle/phi/core/platform/device/gpu/gpu_info.cc : GpuAllocSize(realloc=true)",
        description=Text(
            "Size in MiB of each extra GPU chunk requested when the current one is exhausted; it overrides "
            "FLAGS_fraction_of_gpu_memory_to_use for refills, and 0 falls back to that fraction.",
            "当前显存块用完后每次追加申请的大小(MiB);设置后补充时覆盖 FLAGS_fraction_of_gpu_memory_to_use,"
            "为 0 时改用该比例。",
        ),
        caveats=(_NAIVE_ONLY,),
        loads_code=None,
    ),
)

# What the out-of-memory report says of Paddle (catalog/_out_of_memory.py). Its cap is the pool's size, which matters
# only under naive_best_fit (the entry's own rule; paddle's adapter asks it).
OUT_OF_MEMORY = OutOfMemoryFacts(
    causes=(OwnCause("cap", 0.6, Text(
        "Paddle's naive_best_fit allocator sizes its pool from FLAGS_fraction_of_gpu_memory_to_use",
        "Paddle 的 naive_best_fit 分配器按 FLAGS_fraction_of_gpu_memory_to_use 确定显存池大小")),),
    remedies=(
        Remedy(("fragmentation",), (Fixed("FLAGS_allocator_strategy", "auto_growth", Unless.READ),), Text(
            "Paddle's auto_growth allocator grows and splits its chunks as needed",
            "Paddle 的 auto_growth 分配器按需增长并切分显存块")),
        Remedy(("cap",), (Fixed("FLAGS_fraction_of_gpu_memory_to_use", "0.95"),), Text(
            "naive_best_fit's pool may then take 95% of the GPU", "naive_best_fit 的显存池可使用 GPU 的 95%")),
    ),
)

# Where its memory was allocated, as the allocation sites ask (catalog/_memtrace.py).
MEMTRACE = MemtraceFacts("paddle", Recording.NEVER, Text(
    "PaddlePaddle does not record where its tensors were allocated: its allocator keeps sizes, not stacks",
    "飞桨 PaddlePaddle 不记录张量在哪里分配:其分配器只记录大小,不记录调用栈"))

# Its allocator's settings as AllocatorWidget groups them (catalog/_allocators.py).
ALLOCATOR = Allocator(
    Text("Paddle allocator", "Paddle 分配器"),
    latching=Text(
        "Paddle copies these flags at `import paddle`; paddle.set_flags changes them afterwards, but the allocator "
        "fixes its strategy and pool sizes at the first allocation — after that a change is reported by "
        "paddle.get_flags and ignored by the allocator (status \"may already be latched\").",
        "Paddle 在 `import paddle` 时读取这些 flag,之后可用 paddle.set_flags 修改;但分配器在第一次分配时就固定了策略"
        "和内存池大小,此后的修改 paddle.get_flags 能看到,分配器却不再理会(状态为 \"may already be latched\")。",
    ),
    names=("FLAGS_allocator_strategy", "FLAGS_fraction_of_gpu_memory_to_use", "FLAGS_initial_gpu_memory_in_mb",
           "FLAGS_reallocate_gpu_memory_in_mb", "FLAGS_fraction_of_cpu_memory_to_use",
           "FLAGS_initial_cpu_memory_in_mb"),
    strategy="FLAGS_allocator_strategy",
    default=True,
)
