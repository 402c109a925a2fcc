"""TensorFlow 2.21 variables (checked against the tensorflow-cpu 2.21.0 wheel where said; the GPU ones as the
TensorFlow source reads them).

Three reading moments: `import tensorflow` (logging, oneDNN), the eager context's initialisation at the first
operation (thread pools; `tf.config.threading` changes them until then and raises RuntimeError after), and the first
use of each GPU (its allocator).
"""

from __future__ import annotations

from ..base._text import Text
from ._allocators import Allocator
from ._entry import EntryFactory, ReadWhen
from ._memtrace import MemtraceFacts, Recording
from ._out_of_memory import Fixed, OutOfMemoryFacts, OwnCause, Remedy, Unless
from ._values import Choice, Integer, Size, Switch

VERSION = "tensorflow 2.21.0"
MEMORY = Text("GPU memory", "显存")
THREADS = Text("CPU threads", "CPU 线程")
LOGGING = Text("Logging and CPU kernels", "日志与 CPU kernel")

_FIRST_OP = Text(
    "the eager context's initialisation (the first TensorFlow operation)",
    "eager 上下文初始化时(第一次 TensorFlow 运算)",
)
_FIRST_GPU_USE = Text("the first use of each GPU (its allocator is created then)",
                      "每块 GPU 第一次使用时(此时创建其分配器)")
_GPU_ONLY = Text("Read only where TensorFlow has a GPU; the CPU wheel never reads it.",
                 "只有 TensorFlow 使用 GPU 时才读取;CPU 版 wheel 从不读取。")
_THREADING_RAISES = Text(
    "tf.config.threading reports only what it was told (0 = TensorFlow's default), not this variable; once the "
    "context is initialised it raises RuntimeError, so the count can no longer change without a restart (checked "
    "with the 2.21.0 wheel by counting threads).",
    "tf.config.threading 只报告通过它设置的值(0 表示 TensorFlow 默认),不反映该变量;上下文初始化之后它会抛出 "
    "RuntimeError,线程数不重启就无法再改(已在 2.21.0 wheel 中按线程数验证)。",
)

_gpu = EntryFactory("tensorflow", readers=("tensorflow",), when=ReadWhen.FIRST_USE, latch="tensorflow.context")
_threads = EntryFactory("tensorflow", readers=("tensorflow",), when=ReadWhen.FIRST_USE, latch="tensorflow.context")
_variable = EntryFactory("tensorflow", readers=("tensorflow",), when=ReadWhen.IMPORT)

ENTRIES = (
    # ---- GPU memory ---------------------------------------------------------------------------------------------
    _gpu(
        "TF_FORCE_GPU_ALLOW_GROWTH",
        category=MEMORY,
        type=Choice(("true", "false"), aliases=(("1", "true"), ("0", "false"), ("on", "true"), ("off", "false"))),
        default="false",
        read_at=Text(
            "tensorflow/core/common_runtime/gpu/gpu_bfc_allocator.cc : GetAllowGrowthValue() (GPUBFCAllocator "
            "constructor)",
            "tensorflow/core/common_runtime/gpu/gpu_bfc_allocator.cc : GetAllowGrowthValue()(GPUBFCAllocator 构造函数"
            "中)",
        ),
        first_use=_FIRST_GPU_USE,
        live_api="tensorflow.set_memory_growth",
        description=Text(
            "Let TensorFlow grow its GPU memory as needed instead of taking almost all of it at start.",
            "让 TensorFlow 按需增加显存,而不是启动时几乎占满整块 GPU。",
        ),
        caveats=(_GPU_ONLY, Text(
            'Only "true" and "false" are read; any other value (1, yes) is logged as an error and ignored. Written '
            "as true or false here.",
            '只读取 "true" 和 "false";其他取值(1、yes)会记一条错误日志并被忽略。这里统一写成 true 或 false。')),
        extra=True,
        loads_code=None,
    ),
    _gpu(
        "TF_GPU_ALLOCATOR",
        category=MEMORY,
        type=Choice(("cuda_malloc_async",)),
        default=None,
        read_at="tensorflow/core/common_runtime/gpu/gpu_process_state.cc : GPUProcessState::GetGPUAllocator()",
        first_use=_FIRST_GPU_USE,
        description=Text(
            "cuda_malloc_async uses CUDA's stream-ordered allocator instead of TensorFlow's BFC pool (unset).",
            "设为 cuda_malloc_async 时使用 CUDA 的流序分配器代替 TensorFlow 的 BFC 内存池(未设置时)。",
        ),
        caveats=(_GPU_ONLY,),
        extra=True,
        loads_code=None,
    ),
    _gpu(
        "TF_GPU_HOST_MEM_LIMIT_IN_MB",
        category=MEMORY,
        type=Size(unit=1024**2, minimum=1),
        default=None,
        read_at="tensorflow/core/common_runtime/gpu/gpu_process_state.cc : GPUProcessState::GetGpuHostAllocator()",
        first_use=Text("the first pinned host allocation", "第一次分配锁页主机内存时"),
        description=Text(
            "Limit (MiB) of the pinned host memory TensorFlow uses for GPU transfers (64 GiB by default).",
            "TensorFlow 用于 GPU 传输的锁页主机内存上限(MiB,默认 64 GiB)。",
        ),
        caveats=(_GPU_ONLY,),
        extra=True,
        loads_code=None,
    ),
    # ---- CPU threads --------------------------------------------------------------------------------------------
    _threads(
        "TF_NUM_INTRAOP_THREADS",
        category=THREADS,
        type=Integer(minimum=0),
        default="0",
        read_at=Text(
            "tensorflow/core/common_runtime/process_util.cc : NumIntraOpThreadsFromEnvironment() (when the "
            "context creates its thread pools)",
            "tensorflow/core/common_runtime/process_util.cc : NumIntraOpThreadsFromEnvironment()(上下文创建线程池时)",
        ),
        first_use=_FIRST_OP,
        live_api="tensorflow.threading:intra_op",
        description=Text(
            "Threads used inside one operation (a matmul, a convolution); 0 lets TensorFlow choose (the cores).",
            "单个算子(矩阵乘、卷积)内部使用的线程数;0 表示由 TensorFlow 决定(等于 CPU 核数)。",
        ),
        caveats=(_THREADING_RAISES,),
        extra=True,
        loads_code=None,
    ),
    _threads(
        "TF_NUM_INTEROP_THREADS",
        category=THREADS,
        type=Integer(minimum=0),
        default="0",
        read_at=Text(
            "tensorflow/core/common_runtime/process_util.cc : NumInterOpThreadsFromEnvironment() (when the "
            "context creates its thread pools)",
            "tensorflow/core/common_runtime/process_util.cc : NumInterOpThreadsFromEnvironment()(上下文创建线程池时)",
        ),
        first_use=_FIRST_OP,
        live_api="tensorflow.threading:inter_op",
        description=Text(
            "Threads that run independent operations at the same time; 0 lets TensorFlow choose.",
            "同时运行相互独立算子的线程数;0 表示由 TensorFlow 决定。",
        ),
        caveats=(_THREADING_RAISES,),
        extra=True,
        loads_code=None,
    ),
    # ---- Logging and CPU kernels --------------------------------------------------------------------------------
    _variable(
        "TF_CPP_MIN_LOG_LEVEL",
        category=LOGGING,
        type=Choice(("0", "1", "2", "3"), aliases=(("INFO", "0"), ("WARNING", "1"), ("ERROR", "2"),
                                                   ("FATAL", "3"))),
        default="0",
        read_at=Text(
            "xla/tsl/platform/default/logging.cc : MinLogLevelFromEnv() (cached at the first log message, "
            "which `import tensorflow` writes)",
            "xla/tsl/platform/default/logging.cc : MinLogLevelFromEnv()(在第一条日志消息时缓存,而 `import tensorflow`"
            " 就会写出日志)",
        ),
        description=Text(
            "Hide TensorFlow's C++ log messages below this level: 0 all, 1 no INFO, 2 no WARNING, 3 no ERROR.",
            "隐藏低于该级别的 TensorFlow C++ 日志:0 全部显示,1 隐藏 INFO,2 隐藏 WARNING,3 隐藏 ERROR。",
        ),
        caveats=(Text(
            "Effectively read during `import tensorflow`: set afterwards it hides nothing (checked with 2.21.0). "
            "Even set before import it does not hide the oneDNN notice, which 2.21.0 writes before its logging is "
            "initialised.",
            "实际上在 `import tensorflow` 时读取:之后再设置不会隐藏任何日志(已在 2.21.0 中验证)。即使在导入前设置,"
            "也隐藏不了 oneDNN 提示,因为 2.21.0 在日志系统初始化之前就输出了它。"),),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "TF_ENABLE_ONEDNN_OPTS",
        category=LOGGING,
        type=Switch(),
        default="1",
        read_at=Text(
            "tensorflow/core/util/util.cc : IsMKLEnabled() (a function-static, first called during "
            "`import tensorflow`)",
            "tensorflow/core/util/util.cc : IsMKLEnabled()(函数内静态变量,`import tensorflow` 期间首次调用)",
        ),
        description=Text(
            "Use oneDNN's optimised CPU kernels (on by default on x86); results may differ slightly in the last "
            "digits.",
            "使用 oneDNN 优化的 CPU kernel(x86 上默认开启);结果的最后几位可能略有不同。",
        ),
        caveats=(Text(
            "Fixed at import: set afterwards, IsMklEnabled() keeps the value it read (checked with 2.21.0).",
            "在导入时固定:之后再设置,IsMklEnabled() 仍保持导入时读到的值(已在 2.21.0 中验证)。"),),
        extra=True,
        loads_code=None,
    ),
)

# What giving memory back (`%memfree`, `last_oom().free()`) says of TensorFlow, which it does not ask.
CACHE_KEPT = Text("TensorFlow: not asked (it has no call that returns its pool)",
                  "TensorFlow:未调用(没有归还内存池的接口)")

# What the out-of-memory report says of TensorFlow (catalog/_out_of_memory.py).
OUT_OF_MEMORY = OutOfMemoryFacts(
    causes=(OwnCause("cap", 0.3, Text(
        "TensorFlow maps nearly all of the GPU at its first use unless allow growth is on; another notebook on the "
        "same GPU then has nothing left", "除非开启 allow growth,TensorFlow 首次使用时会占据几乎整个 GPU;"
        "同一 GPU 上的另一个 notebook 就无显存可用")),),
    remedies=(
        Remedy(("fragmentation",), (Fixed("TF_GPU_ALLOCATOR", "cuda_malloc_async", Unless.SET),), Text(
            "CUDA's own asynchronous allocator in place of TensorFlow's BFC pool",
            "用 CUDA 自带的异步分配器代替 TensorFlow 的 BFC 显存池")),
        Remedy(("cap",), (Fixed("TF_FORCE_GPU_ALLOW_GROWTH", "true"),), Text(
            "TensorFlow takes GPU memory as it needs it", "TensorFlow 按需占用显存")),
    ),
)

# Where its memory was allocated, as the allocation sites ask (catalog/_memtrace.py).
MEMTRACE = MemtraceFacts("tensorflow", Recording.NEVER, Text(
    "TensorFlow does not record where its tensors were allocated: its allocators keep sizes and its profiler "
    "names operations, not Python lines",
    "TensorFlow 不记录张量在哪里分配:其分配器只记录大小,性能分析器只记录算子,不记录 Python 代码行"))

# Its allocator's settings as AllocatorWidget groups them (catalog/_allocators.py).
ALLOCATOR = Allocator(
    Text("TensorFlow GPU allocator", "TensorFlow GPU 分配器"),
    latching=Text(
        "TensorFlow reads these when each GPU is first used (its allocator is created then); memory growth can "
        "still be switched per GPU with tf.config.experimental.set_memory_growth before that.",
        "TensorFlow 在每块 GPU 第一次使用时(此时创建其分配器)读取这些变量;在此之前仍可用 "
        "tf.config.experimental.set_memory_growth 按 GPU 开启显存增长。",
    ),
    category="GPU memory",
)
