"""MXNet 1.9.1 environment variables: the documented ones (seed 001) plus the live names and siblings the source reads.

Reading moments come from the 1.9.1 source: only MXNET_CPU_WORKER_NTHREADS and MXNET_MP_WORKER_NTHREADS are read at
import; the engine reads its settings at the first NDArray operation; kvstores and executors re-read theirs each time
one is created. MXNet has no run-time API for any of them.
"""

from __future__ import annotations

from ..base._text import Text
from ._allocators import Allocator
from ._entry import EntryFactory, ReadWhen
from ._memtrace import MemtraceFacts, Recording
from ._out_of_memory import Fixed, OutOfMemoryFacts, Remedy, Unless
from ._values import Choice, Integer, Switch

READERS = ("mxnet",)
THREADS = Text("Thread counts", "设置线程数目")
MEMORY = Text("Memory options", "内存选项")
ENGINE = Text("Engine type", "引擎类型")
COMMUNICATION = Text("Data communication", "控制数据通信")
MEMONGER = Text("Memonger", "Memonger(以计算换显存)")
OTHER = Text("Other", "其它环境变量")

_ENGINE_START = Text("the first NDArray operation (engine start)", "第一次 NDArray 运算(引擎启动)时")
_FIRST_GPU_ALLOC = Text("the first memory allocation on each GPU", "每块 GPU 上的第一次显存分配")
_WINDOWS = Text(
    "On Windows the C runtime keeps its own copy of the environment, so os.environ changes made after import are not "
    "seen; use mx.util.setenv() there.",
    "在 Windows 上 C 运行库保存了自己的一份环境变量,import 之后对 os.environ 的修改看不到;请改用 mx.util.setenv()。",
)
_PERDEVICE_ONLY = Text(
    "Only the default ThreadedEnginePerDevice engine uses this count; NaiveEngine and ThreadedEngine ignore it.",
    "只有默认的 ThreadedEnginePerDevice 引擎使用这个线程数;NaiveEngine 与 ThreadedEngine 会忽略它。",
)

_variable = EntryFactory("mxnet", readers=READERS)

ENTRIES = (
    # Thread counts
    _variable(
        "MXNET_GPU_WORKER_NTHREADS",
        category=THREADS,
        type=Integer(minimum=1),
        default="2",
        when=ReadWhen.FIRST_USE,
        read_at="src/common/utils.h : GetNumThreadsPerGPU() ← ThreadedEnginePerDevice::Start()",
        first_use=_ENGINE_START,
        description=Text(
            "Upper bound on the threads that run computation on each GPU.",
            "每块 GPU 上执行计算任务的线程数上限。",
        ),
        caveats=(_PERDEVICE_ONLY, _WINDOWS),
        loads_code=None,
    ),
    _variable(
        "MXNET_GPU_COPY_NTHREADS",
        category=THREADS,
        type=Integer(minimum=1),
        default="2",
        when=ReadWhen.FIRST_USE,
        read_at="src/engine/threaded_engine_perdevice.cc : ThreadedEnginePerDevice::Start()",
        first_use=_ENGINE_START,
        description=Text(
            "Upper bound on the threads that copy memory to and from each GPU.",
            "每块 GPU 上负责内存拷贝的线程数上限。",
        ),
        caveats=(
            Text(
                "The docs give the default as 1; the 1.9.1 source uses 2.",
                "文档写默认值为 1,但 1.9.1 源码中的默认值是 2。",
            ),
            _PERDEVICE_ONLY,
            _WINDOWS,
        ),
        loads_code=None,
    ),
    _variable(
        "MXNET_CPU_WORKER_NTHREADS",
        category=THREADS,
        type=Integer(minimum=1),
        default="1",
        when=ReadWhen.IMPORT,
        read_at="src/initialize.cc : LibraryInitializer::LibraryInitializer()",
        description=Text(
            "How many scheduler threads run CPU operators in parallel; each operator's own OpenMP threads are set by "
            "OMP_NUM_THREADS instead.",
            "CPU 上可并行调度算子的线程数;单个算子内部的 OpenMP 线程数由 OMP_NUM_THREADS 控制。",
        ),
        caveats=(
            Text(
                "Read while the library loads at `import mxnet`; setting it afterwards has no effect. Processes forked "
                "by MXNet workers use MXNET_MP_WORKER_NTHREADS instead.",
                "在 `import mxnet` 加载动态库时读取,之后再设置无效。MXNet 派生(fork)的工作进程改用 "
                "MXNET_MP_WORKER_NTHREADS。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "MXNET_CPU_PRIORITY_NTHREADS",
        category=THREADS,
        type=Integer(minimum=1),
        default="4",
        when=ReadWhen.FIRST_USE,
        read_at="src/engine/threaded_engine_perdevice.cc : ThreadedEnginePerDevice::Start()",
        first_use=_ENGINE_START,
        description=Text(
            "Threads reserved for high-priority CPU jobs.",
            "专门处理高优先级 CPU 任务的线程数。",
        ),
        caveats=(_PERDEVICE_ONLY, _WINDOWS),
        loads_code=None,
    ),
    _variable(
        "MXNET_MP_WORKER_NTHREADS",
        category=THREADS,
        type=Integer(minimum=1),
        default="1",
        when=ReadWhen.IMPORT,
        read_at="src/initialize.cc : LibraryInitializer::LibraryInitializer()",
        description=Text(
            "CPU scheduler threads given to each forked worker process (for example DataLoader workers); it replaces "
            "MXNET_CPU_WORKER_NTHREADS in the child.",
            "每个 fork 出来的工作进程(如 DataLoader worker)使用的 CPU 调度线程数;在子进程中取代 "
            "MXNET_CPU_WORKER_NTHREADS。",
        ),
        caveats=(
            Text(
                "Read once while the library loads at import and applied in every forked child; not available on "
                "Windows.",
                "在 import 加载动态库时读取一次,并在每个 fork 出的子进程中生效;Windows 上不可用。",
            ),
        ),
        extra=True,
        loads_code=None,
    ),
    # Memory options
    _variable(
        "MXNET_EXEC_ENABLE_INPLACE",
        category=MEMORY,
        type=Switch(on="true", off="false"),
        default=None,
        when=ReadWhen.NOT_READ,
        read_at=Text(
            "not read anywhere (removed by the NNVM refactor, #3194, 2016)",
            "任何地方都不再读取(2016 年 NNVM 重构 #3194 时移除)",
        ),
        description=Text(
            "Was meant to switch in-place memory optimisation of symbolic graphs on or off.",
            "原用于开关符号图计算中的原地(in-place)内存优化。",
        ),
        caveats=(
            Text(
                "Still documented (default true), but no code in MXNet 1.9.1 reads it: setting it changes nothing.",
                "文档仍列出此变量(默认 true),但 MXNet 1.9.1 中已没有代码读取它,设置后没有任何效果。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "MXNET_EXEC_MATCH_RANGE",
        category=MEMORY,
        type=Integer(minimum=0),
        default=None,
        when=ReadWhen.NOT_READ,
        read_at=Text(
            "not read anywhere; the live name is NNVM_EXEC_MATCH_RANGE (src/nnvm/plan_memory.cc : MXPlanMemory())",
            "任何地方都不再读取;现在起作用的名字是 NNVM_EXEC_MATCH_RANGE(src/nnvm/plan_memory.cc : MXPlanMemory())",
        ),
        description=Text(
            "Old name of the approximate size-matching range used when the graph memory planner shares buffers.",
            "图内存规划器复用缓冲区时使用的近似尺寸匹配范围的旧名称。",
        ),
        caveats=(
            Text(
                "MXNet 1.9.1 never reads this name (the docs' default was 10); set NNVM_EXEC_MATCH_RANGE instead.",
                "MXNet 1.9.1 不再读取这个名字(文档默认值为 10);请改用 NNVM_EXEC_MATCH_RANGE。",
            ),
        ),
        replaced_by="NNVM_EXEC_MATCH_RANGE",
        loads_code=None,
    ),
    _variable(
        "MXNET_EXEC_NUM_TEMP",
        category=MEMORY,
        type=Integer(minimum=1),
        default=None,
        when=ReadWhen.NOT_READ,
        read_at=Text(
            "src/common/utils.h : GetExecNumMatchColor() (never called)",
            "src/common/utils.h : GetExecNumMatchColor()(从未被调用)",
        ),
        description=Text(
            "Was meant to cap the number of temporary workspaces allocated per device.",
            "原用于限制每个设备上分配的临时工作空间数量。",
        ),
        caveats=(
            Text(
                "Documented, but the only function that reads it is never called in 1.9.1, so it has no effect; "
                "NNVM_EXEC_NUM_TEMP is the variable the memory planner really reads.",
                "文档中仍有此变量,但 1.9.1 中读取它的函数从未被调用,因此没有效果;内存规划器实际读取的是 "
                "NNVM_EXEC_NUM_TEMP。",
            ),
        ),
        replaced_by="NNVM_EXEC_NUM_TEMP",
        loads_code=None,
    ),
    _variable(
        "NNVM_EXEC_MATCH_RANGE",
        category=MEMORY,
        type=Integer(minimum=0),
        default="16",
        when=ReadWhen.PER_OBJECT,
        read_at="src/nnvm/plan_memory.cc : MXPlanMemory()",
        description=Text(
            "How loosely buffer sizes may match when the memory planner reuses memory between graph nodes; 0 turns "
            "sharing off, which helps debugging.",
            "内存规划器在图节点之间复用内存时允许的尺寸匹配范围;设为 0 关闭共享,便于调试。",
        ),
        caveats=(
            Text(
                "Read at every memory plan (each executor bind, each hybridized CachedOp plan). The docs say MXNet "
                "always tries every range from 1 to this value; it only does so when NNVM_AUTO_SEARCH_MATCH_RANGE is "
                "on (off by default).",
                "每次生成内存计划时读取(每次执行器 bind、每次 hybridize 后的 CachedOp 规划)。文档说 MXNet 总会尝试 "
                "1 到该值的所有范围,实际上只有打开 NNVM_AUTO_SEARCH_MATCH_RANGE(默认关闭)时才会这样做。",
            ),
            _WINDOWS,
        ),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "NNVM_AUTO_SEARCH_MATCH_RANGE",
        category=MEMORY,
        type=Switch(),
        default="0",
        when=ReadWhen.PER_OBJECT,
        read_at="src/nnvm/plan_memory.cc : MXPlanMemory()",
        description=Text(
            "When on, the memory planner tries every match range from 1 up to NNVM_EXEC_MATCH_RANGE and keeps the "
            "plan that uses least memory.",
            "打开后,内存规划器会尝试从 1 到 NNVM_EXEC_MATCH_RANGE 的每个匹配范围,并保留最省内存的方案。",
        ),
        caveats=(_WINDOWS,),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "NNVM_EXEC_NUM_TEMP",
        category=MEMORY,
        type=Integer(minimum=1),
        default="1",
        when=ReadWhen.PER_OBJECT,
        read_at="src/nnvm/plan_memory.cc : MXGraphAllocator::MXGraphAllocator()",
        description=Text(
            "Maximum number of temporary workspaces the memory planner allocates per device; smaller values save GPU "
            "memory at some cost in parallelism.",
            "内存规划器在每个设备上分配的临时工作空间数上限;调小可节省显存,但可能降低并行度。",
        ),
        caveats=(_WINDOWS,),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "MXNET_GPU_MEM_POOL_RESERVE",
        category=MEMORY,
        type=Integer(minimum=0, maximum=100),
        default="5",
        when=ReadWhen.FIRST_USE,
        read_at="src/storage/pooled_storage_manager.h : GPUPooledStorageManager() ← StorageImpl::Alloc",
        first_use=_FIRST_GPU_ALLOC,
        description=Text(
            "Percentage of GPU memory the pool leaves free for things other than arrays, such as kernel launches and "
            "cuDNN workspaces; raise it if kernel launches run out of memory after many iterations.",
            "显存池为非数组用途(如 kernel 启动、cuDNN 句柄空间)预留的显存百分比;若多次迭代后 kernel 启动报显存不足,"
            "可调大此值。",
        ),
        caveats=(_WINDOWS,),
        loads_code=None,
    ),
    _variable(
        "MXNET_GPU_MEM_POOL_TYPE",
        category=MEMORY,
        type=Choice(("Naive", "Round", "Unpooled")),
        default="Naive",
        when=ReadWhen.FIRST_USE,
        read_at=Text(
            "src/storage/storage.cc : StorageImpl::Alloc (lazy, per device)",
            "src/storage/storage.cc : StorageImpl::Alloc(按设备延迟创建)",
        ),
        first_use=_FIRST_GPU_ALLOC,
        description=Text(
            "How the GPU memory pool works: Naive reuses blocks of exactly the same size, Round rounds requests up "
            "to reduce fragmentation, Unpooled does no pooling at all.",
            "GPU 显存池的策略:Naive 只复用大小完全相同的块,Round 将请求向上取整以减少碎片,Unpooled 不使用内存池。",
        ),
        caveats=(_WINDOWS,),
        extra=True,
        loads_code=None,
    ),
    # Engine type
    _variable(
        "MXNET_ENGINE_TYPE",
        category=ENGINE,
        type=Choice(("ThreadedEnginePerDevice", "ThreadedEngine", "NaiveEngine")),
        default="ThreadedEnginePerDevice",
        when=ReadWhen.FIRST_USE,
        read_at="src/engine/engine.cc : CreateEngine() ← Engine::_GetSharedRef()",
        first_use=_ENGINE_START,
        description=Text(
            "Which execution engine schedules operations: NaiveEngine runs everything synchronously on the calling "
            "thread (useful for debugging), ThreadedEngine uses one shared thread pool, ThreadedEnginePerDevice gives "
            "each device its own threads.",
            "选择调度运算的执行引擎:NaiveEngine 在调用线程上同步执行(便于调试),ThreadedEngine 使用一个全局线程池,"
            "ThreadedEnginePerDevice 为每个设备分配独立线程。",
        ),
        caveats=(
            Text(
                "The engine is created at the first NDArray operation, not at import: it can still be changed after "
                "`import mxnet` until then, but not afterwards (custom operators re-read it on each call).",
                "引擎在第一次 NDArray 运算时才创建,而不是在 import 时:在此之前修改仍然有效,之后修改无效"
                "(自定义算子每次调用时会重新读取)。",
            ),
            _WINDOWS,
        ),
        loads_code=None,
    ),
    # Data communication
    _variable(
        "MXNET_KVSTORE_REDUCTION_NTHREADS",
        category=COMMUNICATION,
        type=Integer(minimum=1),
        default="4",
        when=ReadWhen.PER_OBJECT,
        read_at="src/kvstore/comm.h : CommCPU::CommCPU()",
        description=Text(
            "CPU threads used to sum large arrays inside a 'local' kvstore.",
            "'local' 类型 kvstore 中对大数组求和时使用的 CPU 线程数。",
        ),
        caveats=(
            Text(
                "Read each time a kvstore is created (Gluon's Trainer creates one at its first step); the 'device' "
                "kvstore does not use it.",
                "每次创建 kvstore 时读取(Gluon Trainer 在第一次 step 时创建);'device' 类型的 kvstore 不使用它。",
            ),
            _WINDOWS,
        ),
        loads_code=None,
    ),
    _variable(
        "MXNET_KVSTORE_BIGARRAY_BOUND",
        category=COMMUNICATION,
        type=Integer(minimum=1),
        default="1000000",
        when=ReadWhen.PER_OBJECT,
        read_at="src/kvstore/comm.h : CommCPU::CommCPU(); src/kvstore/kvstore_dist.h : KVStoreDist::KVStoreDist()",
        description=Text(
            "Size (in elements) above which an array counts as big: big arrays are reduced with "
            "MXNET_KVSTORE_REDUCTION_NTHREADS threads and split across servers in distributed training.",
            "数组元素个数超过该值即视为大数组:大数组用 MXNET_KVSTORE_REDUCTION_NTHREADS 个线程规约,分布式训练时还会"
            "拆分到多个 server。",
        ),
        caveats=(_WINDOWS,),
        loads_code=None,
    ),
    _variable(
        "MXNET_ENABLE_GPU_P2P",
        category=COMMUNICATION,
        type=Switch(),
        default="1",
        when=ReadWhen.PER_OBJECT,
        read_at="src/kvstore/comm.h : CommDevice::InitBuffersAndComm()",
        description=Text(
            "Let a 'device' kvstore use direct GPU-to-GPU (peer-to-peer) transfers where the hardware supports them.",
            "允许 'device' 类型的 kvstore 在硬件支持时使用 GPU 之间的点对点(P2P)直接通信。",
        ),
        caveats=(_WINDOWS,),
        loads_code=None,
    ),
    # Memonger
    _variable(
        "MXNET_BACKWARD_DO_MIRROR",
        category=MEMONGER,
        type=Switch(),
        default="0",
        when=ReadWhen.PER_OBJECT,
        read_at="src/executor/graph_executor.cc : GraphExecutor::InitFullGraph()",
        description=Text(
            "Trade compute for memory in training: some forward feature maps are dropped and recomputed during the "
            "backward pass, typically saving 30-50% of device memory for about 5% speed.",
            "以计算换显存:训练时丢弃部分前向特征图,反向传播需要时再重新计算,通常可省 30%~50% 显存,速度约损失 5%。",
        ),
        caveats=(
            Text(
                "Only symbolic executors read it (Symbol bind/simple_bind, Module.bind), once per bind; hybridized "
                "Gluon blocks (CachedOp) ignore it. The docs do not say so.",
                "只有符号执行器在每次 bind 时读取(Symbol 的 bind/simple_bind、Module.bind);hybridize 后的 Gluon "
                "模块(CachedOp)不使用它,文档没有说明这一点。",
            ),
            _WINDOWS,
        ),
        loads_code=None,
    ),
    # Other
    _variable(
        "MXNET_CUDNN_AUTOTUNE_DEFAULT",
        category=OTHER,
        type=Choice(
            ("0", "1", "2"),
            value_notes=(
                ("0", Text("cuDNN auto-tuning off", "关闭 cuDNN 自动调优")),
                ("1", Text("auto-tune within the workspace limit", "在工作空间上限之内自动调优")),
                ("2", Text("auto-tune for the fastest algorithm, ignoring the workspace limit",
                           "不顾工作空间上限,调优出最快的算法")),
            ),
            python_type=int,
        ),
        default="1",
        when=ReadWhen.PER_OBJECT,
        read_at=Text(
            "src/operator/nn/cudnn/cudnn_convolution-inl.h : CuDNNConvolutionOp::Init() (and deconvolution)",
            "src/operator/nn/cudnn/cudnn_convolution-inl.h : CuDNNConvolutionOp::Init()(反卷积同理)",
        ),
        description=Text(
            "Default cudnn_tune setting for convolution layers that do not set it: 0 off, 1 tune within the workspace "
            "limit, 2 pick the fastest algorithm.",
            "未显式设置 cudnn_tune 的卷积层所用的默认值:0 关闭,1 在工作空间限制内调优,2 选择最快的算法。",
        ),
        caveats=(
            Text(
                "The docs say auto-tuning is off by default (0); the 1.9.1 source defaults to 1. It is read when a new "
                "convolution shape is first seen; shapes already tuned keep their cached choice.",
                "文档说默认关闭自动调优(0),但 1.9.1 源码默认值为 1。它在首次遇到新的卷积形状时读取,已调优过的形状沿用"
                "缓存的结果。",
            ),
            _WINDOWS,
        ),
        loads_code=None,
    ),
)

# What the out-of-memory report says of MXNet (catalog/_out_of_memory.py). MXNet compares the pool type as written.
OUT_OF_MEMORY = OutOfMemoryFacts(
    remedies=(Remedy(("fragmentation",), (Fixed("MXNET_GPU_MEM_POOL_TYPE", "Round", Unless.SET),), Text(
        "MXNet's pool rounds sizes, so freed blocks fit later requests",
        "MXNet 的显存池按取整后的大小复用,释放的块可以满足之后的申请")),),
)

# Where its memory was allocated, as the allocation sites ask (catalog/_memtrace.py).
MEMTRACE = MemtraceFacts("mxnet", Recording.NEVER, Text(
    "MXNet does not record where its arrays were allocated: its storage pool keeps sizes, not stacks",
    "MXNet 不记录数组在哪里分配:其存储池只记录大小,不记录调用栈"))

# Its allocator's settings as AllocatorWidget groups them (catalog/_allocators.py).
ALLOCATOR = Allocator(
    Text("MXNet GPU memory pool", "MXNet 显存池"),
    latching=Text(
        "MXNet's GPU memory pool reads these at the first GPU allocation and keeps them until the process ends.",
        "MXNet 的显存池在第一次 GPU 分配时读取这些变量,并一直沿用到进程结束。",
    ),
    names=("MXNET_GPU_MEM_POOL_TYPE", "MXNET_GPU_MEM_POOL_RESERVE"),
)
