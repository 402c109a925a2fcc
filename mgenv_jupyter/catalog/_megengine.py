"""MegEngine 1.13.4 environment variables (all but the DTR ones, which live in _megengine_dtr.py), as the source reads
them.

Where the official docs and the source disagree, the entry follows the source and says so in a caveat.
"""

from __future__ import annotations

from ..base._text import Text
from ._allocators import Allocator
from ._code_loading import LOADS_COMPILED_CODE, RUNS_PROGRAMS
from ._entry import EntryFactory, ReadWhen
from ._memtrace import MemtraceFacts, Recording
from ._values import Choice, FileSystemPath, GiB, Integer, MiB, Number, Pattern, Presence, ReserveMemory, Size, Switch

READERS = ("megengine",)

DEVICE = Text("Device", "设备相关")
LOGGING = Text("Logging", "日志相关")
DISTRIBUTED = Text("Distributed and data loading", "分布式相关")
MEMORY = Text("GPU memory", "显存相关")
SUBLINEAR = Text("Sublinear memory optimisation", "Sublinear 相关")
GRAPH = Text("Graph and interpreter", "图机制相关")
PROFILING = Text("Kernel selection, profiling and dumping (fast-run)", "Kernel 选择、Profile 与 Dump(fast-run)")
JIT = Text("JIT kernel fusion", "JIT 算子融合")

OPTION_MANAGER = Text("imperative/src/impl/interpreter/option_manager.h : OptionManager (interpreter init)",
                      "imperative/src/impl/interpreter/option_manager.h : OptionManager(解释器初始化时)")
_SUBLINEAR_SEARCHER = Text(
    "src/core/impl/graph/seq_sublinear_memory.cpp : ActionSearcherSingleCN constructor",
    "src/core/impl/graph/seq_sublinear_memory.cpp : ActionSearcherSingleCN 构造函数",
)

# Shared caveats.
RELEASE_BUILD_CAVEAT = Text(
    "Read through MGB_GETENV, which is active in the official wheels (RelWithDebInfo builds); a self-built Release "
    "build silently ignores this variable.",
    "该变量经 MGB_GETENV 读取:官方 wheel(RelWithDebInfo 构建)中有效;自行以 Release 方式编译的版本会悄悄忽略它。",
)
INTEGERS_ONLY_CAVEAT = Text(
    'The interpreter parses the value with sscanf("%zu"), so only a plain integer works: words such as "true" leave '
    'the default in place and "2GB" would be read as 2.',
    '解释器用 sscanf("%zu") 解析取值,只认纯整数:"true" 这类单词会让默认值保持不变,"2GB" 会被读成 2。',
)
_SUBLINEAR_OVERRIDES = Text(
    "When set, it overrides the matching argument of the SublinearMemoryConfig passed to trace(...).",
    "设置后会覆盖传给 trace(...) 的 SublinearMemoryConfig 中对应的参数。",
)
_NO_COMP_GRAPH_OPT = Text(
    "The SublinearMemoryConfig docstring says MGB_COMP_GRAPH_OPT must also be set; no such variable exists in "
    "MegEngine 1.13.4, so that advice can be ignored.",
    "SublinearMemoryConfig 的文档字符串称还需设置 MGB_COMP_GRAPH_OPT;"
    "MegEngine 1.13.4 中并不存在该变量,可以忽略这条说明。",
)
_RESERVE_ZERO_IS_ON = Text(
    'The docs say "0" turns this off and "1" on. In the source any value other than b:<bytes> (including "0") '
    "reserves all free memory minus max(300 MiB, 5%) (225 MiB when less than 2 GiB is free); only unsetting the "
    "variable turns it off.",
    '文档称 "0" 关闭、"1" 开启。源码中除 b:<字节数> 以外的任何取值(包括 "0")都会预留全部空闲显存,只扣除 '
    "max(300 MiB, 5%)(空闲不足 2 GiB 时扣除 225 MiB);只有删除该变量才会关闭。",
)
_FIRST_PLASMA_QUEUE = Text(
    "the first multi-worker DataLoader iterator (it starts the process-wide plasma store)",
    "第一次创建多进程 DataLoader 迭代器时(此时会启动进程内唯一的 plasma 共享内存服务)",
)
_FIRST_JIT_COMPILE = Text("the first JIT fusion compilation in the process", "进程内第一次 JIT 融合编译时")


_variable = EntryFactory("megengine", readers=READERS)

ENTRIES = (
    # ---- Device -------------------------------------------------------------------------------------------------
    _variable(
        "MGE_DEFAULT_DEVICE",
        category=DEVICE,
        type=Pattern(
            regex=r"([cxg]pu|rocm|multithread|cambricon)(x|\d+)(:\d+)?",
            description=Text(
                "a device name: cpu, gpu, xpu, rocm, multithread or cambricon, then an index or x (any), "
                "then optionally :stream",
                "设备名:cpu、gpu、xpu、rocm、multithread 或 cambricon,后接序号或 x(任意一个),"
                "还可再接 :流编号",
            ),
            examples=("xpux", "cpu0", "gpu0", "gpu1:2"),
            lower=True,
        ),
        default="xpux",
        when=ReadWhen.IMPORT,
        read_at=Text(
            "imperative/python/megengine/device.py : module level set_default_device(os.getenv(...))",
            "imperative/python/megengine/device.py : 模块顶层的 set_default_device(os.getenv(...))",
        ),
        description=Text(
            "The device new tensors are placed on. xpux means a GPU if one is present, otherwise the CPU; gpu1:2 "
            "picks GPU 1, stream 2.",
            "新建 tensor 默认放置的计算设备。xpux 表示有 GPU 时用 GPU,否则用 CPU;gpu1:2 表示 1 号 GPU 的 2 号流。",
        ),
        live_api="megengine.set_default_device",
        caveats=(
            Text(
                "An invalid value makes `import megengine` itself fail with an AssertionError.",
                "取值不合法时,`import megengine` 本身就会抛出 AssertionError。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "MEGENGINE_HOST_COMPUTE",
        category=DEVICE,
        type=Switch(),
        default="1",
        when=ReadWhen.IMPORT,
        read_at=OPTION_MANAGER,
        description=Text(
            "Lets the interpreter do small computations on the host even when the tensors live on a GPU (on by "
            "default).",
            "允许解释器在 Host 端完成一些简单计算,即便 tensor 位于 GPU 上(默认开启)。",
        ),
        live_api="megengine.option:enable_host_compute",
        caveats=(INTEGERS_ONLY_CAVEAT, RELEASE_BUILD_CAVEAT),
        loads_code=None,
    ),
    # ---- Logging ------------------------------------------------------------------------------------------------
    _variable(
        "MEGENGINE_LOGGING_LEVEL",
        category=LOGGING,
        type=Choice(
            ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"),
            aliases=(("WARN", "WARNING"), ("FATAL", "CRITICAL")),
            value_notes=(
                ("WARNING", Text("quirk: only INFO and ERROR have a C++ counterpart, so WARNING sets MegEngine's "
                                 "C++ log level to DEBUG (very verbose)",
                                 "注意:只有 INFO 和 ERROR 在 C++ 端有对应等级,所以 WARNING 会把 MegEngine 的 C++ "
                                 "日志等级设为 DEBUG(输出非常多)")),
                ("CRITICAL", Text("quirk: only INFO and ERROR have a C++ counterpart, so CRITICAL sets MegEngine's "
                                  "C++ log level to DEBUG (very verbose)",
                                  "注意:只有 INFO 和 ERROR 在 C++ 端有对应等级,所以 CRITICAL 会把 MegEngine 的 C++ "
                                  "日志等级设为 DEBUG(输出非常多)")),
            ),
        ),
        default="INFO",
        when=ReadWhen.IMPORT,
        read_at=Text(
            "imperative/python/megengine/logger.py : module level _default_level_name (then set_mgb_log_level)",
            "imperative/python/megengine/logger.py : 模块顶层的 _default_level_name(随后调用 set_mgb_log_level)",
        ),
        description=Text(
            "Log level of MegEngine's Python loggers, applied at import; it is also pushed down to the C++ runtime "
            "log level at the same time.",
            "MegEngine Python 日志器的日志等级,在 import 时生效;同时也会被同步为 C++ 运行时的日志等级。",
        ),
        live_api="megengine.set_log_level",
        caveats=(
            Text(
                "The docs list only INFO, DEBUG and ERROR; any Python logging level name is accepted, but WARNING and "
                "CRITICAL map the C++ log level to DEBUG. An unknown name makes the import fail with ValueError.",
                "文档只列出 INFO、DEBUG、ERROR;实际上任何 Python logging 等级名都可用,但 WARNING 和 CRITICAL 会把 C++ "
                "日志等级设成 DEBUG。未知的名字会让 import 抛出 ValueError。",
            ),
            Text(
                "megengine.set_log_level() changes the Python loggers only; use "
                "megengine.logger.set_mgb_log_level() for the C++ side.",
                "megengine.set_log_level() 只修改 Python 日志器;C++ 端请用 megengine.logger.set_mgb_log_level()。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "RUNTIME_OVERRIDE_LOG_LEVEL",
        category=LOGGING,
        type=Choice(
            ("0", "1", "2", "3", "4"),
            aliases=(("DEBUG", "0"), ("INFO", "1"), ("WARN", "2"), ("WARNING", "2"), ("ERROR", "3"), ("NO_LOG", "4")),
            value_notes=(("4", Text("NO_LOG: the C++ runtime prints nothing, errors included",
                                    "NO_LOG:C++ 运行时什么都不打印,连错误也不打印")),),
            python_type=int,
        ),
        default="3",
        when=ReadWhen.EVERY_CALL,
        read_at=Text(
            "src/core/impl/common.cpp : config_default_log_level() (static init) and mgb::set_log_level()",
            "src/core/impl/common.cpp : config_default_log_level()(静态初始化时)以及 mgb::set_log_level()",
        ),
        description=Text(
            "Forces the C++ runtime log level, written as a number: 0 DEBUG, 1 INFO, 2 WARN, 3 ERROR, 4 NO_LOG. It "
            "wins over any level MegEngine itself asks for.",
            "强制指定 C++ 运行时日志等级,用数字表示:0 DEBUG、1 INFO、2 WARN、3 ERROR、4 NO_LOG。"
            "它会压过 MegEngine 自己请求的任何等级。",
        ),
        caveats=(
            Text(
                "The docs say it is read only once. The source reads it when the library loads and again on every "
                "C++ set_log_level call (e.g. megengine.logger.set_mgb_log_level), so a change after import takes "
                "effect at the next such call.",
                "文档称仅首次设置生效。源码在加载库时读取一次,之后每次调用 C++ 的 set_log_level(例如 "
                "megengine.logger.set_mgb_log_level)都会重新读取,所以 import 之后的修改会在下一次这类调用时生效。",
            ),
            Text(
                "Only digits are understood (std::stoi); a word such as ERROR in the environment makes the library "
                "fail to load. Names typed here are converted to their numbers.",
                "只认数字(std::stoi);环境中写成 ERROR 这样的单词会导致库加载失败。这里输入的名字会自动换成对应数字。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "MGB_DEBUG_VAR_SANITY_CHECK_LOG",
        category=LOGGING,
        type=Integer(minimum=0),
        default=None,
        when=ReadWhen.PER_OBJECT,
        read_at="src/plugin/impl/var_sanity_check.cpp : VarSanityCheck::DebugLog::DebugLog",
        description=Text(
            "Id of one var node whose address and checksum the var sanity check should log, to chase memory "
            "overwrites; re-read by every VarSanityCheck plugin, i.e. each graph compiled with the check on.",
            "指定一个 var node 的 id,让越界检查插件打印它的地址和校验和,用于排查显存被改写;"
            "每个 VarSanityCheck 插件(即每个开启检查的计算图)创建时都会重新读取。",
        ),
        caveats=(RELEASE_BUILD_CAVEAT,),
        loads_code=None,
    ),
    _variable(
        "MGB_LOG_TRT_MEM_ALLOC",
        category=LOGGING,
        type=Presence(),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at=Text(
            "src/tensorrt/impl/tensorrt_opr.cpp : TensorRTOpr::GpuAllocator::allocate (function static)",
            "src/tensorrt/impl/tensorrt_opr.cpp : TensorRTOpr::GpuAllocator::allocate(函数内静态变量)",
        ),
        first_use=Text("the first TensorRT memory allocation", "TensorRT 第一次申请显存时"),
        description=Text(
            "Logs every GPU memory allocation TensorRT operators make.",
            "打印 TensorRT 算子每一次申请显存的情况。",
        ),
        caveats=(
            Text(
                "The docs list it as dynamic, but it is kept in a function-static variable at the first TensorRT "
                "allocation; later changes are ignored.",
                "文档把它列为动态变量,但源码在 TensorRT 第一次申请显存时把它存进函数内的静态变量,之后的修改不再生效。",
            ),
            Text(
                'Any value turns it on, "0" included.',
                '只要设置就会开启,"0" 也一样。',
            ),
        ),
        loads_code=None,
    ),
    # ---- Distributed and data loading ---------------------------------------------------------------------------
    _variable(
        "MGE_PLASMA_MEMORY",
        category=DISTRIBUTED,
        type=Size(minimum=1),
        default=str(4 * GiB),
        when=ReadWhen.FIRST_USE,
        read_at="imperative/python/megengine/data/tools/_queue.py : _PlasmaStoreManager.__init__",
        first_use=_FIRST_PLASMA_QUEUE,
        description=Text(
            "Size in bytes of the shared-memory (plasma) store that multi-worker DataLoaders pass batches through; "
            "it is handed to plasma-store-server as -m.",
            "多进程 DataLoader 传递 batch 所用共享内存(plasma)的大小,单位为字节;该值会作为 -m 参数传给 "
            "plasma-store-server。",
        ),
        caveats=(
            Text(
                'The docs call it dynamic and say "0" disables it. The source reads it once, when the first '
                "multi-worker DataLoader starts the store, and has no special meaning for 0.",
                '文档称它是动态的,并说 "0" 表示不使用。源码只在第一个多进程 DataLoader 启动共享内存服务时读取一次,'
                "且 0 没有任何特殊含义。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "MGE_DATALOADER_PLASMA_DEBUG",
        category=DISTRIBUTED,
        type=Presence(empty_is_off=True),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at="imperative/python/megengine/data/tools/_queue.py : _PlasmaStoreManager.__init__",
        first_use=_FIRST_PLASMA_QUEUE,
        description=Text(
            "Shows the output and errors of the DataLoader's shared-memory (plasma) store process.",
            "显示 DataLoader 共享内存(plasma)服务进程的输出与报错信息。",
        ),
        caveats=(
            Text(
                'The docs say "0" turns it off, but the source tests bool(os.environ.get(...)): every non-empty '
                'value, "0" included, turns it on. It is also read only once, when the store starts.',
                '文档称 "0" 表示关闭,但源码判断的是 bool(os.environ.get(...)):任何非空值(包括 "0")都会开启。'
                "而且它只在共享内存服务启动时读取一次。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "MGE_MM_OPR_DEBUG",
        category=DISTRIBUTED,
        type=Switch(),
        default=None,
        when=ReadWhen.PER_OBJECT,
        read_at=Text(
            "src/opr-mm/impl/collective_comm.cpp : CollectiveComm constructor",
            "src/opr-mm/impl/collective_comm.cpp : CollectiveComm 构造函数",
        ),
        description=Text(
            "Prints debug information from multi-machine (collective communication) operators; re-read by every "
            "CollectiveComm operator when it is created.",
            "输出多机(集合通信)算子的调试信息;每个 CollectiveComm 算子创建时都会重新读取。",
        ),
        caveats=(
            Text(
                "The docs say only the first setting counts, but every new CollectiveComm operator reads it again. "
                'Only the exact value "1" turns it on.',
                '文档称仅首次设置生效,但每个新建的 CollectiveComm 算子都会重新读取。只有精确的 "1" 才会开启。',
            ),
            RELEASE_BUILD_CAVEAT,
        ),
        loads_code=None,
    ),
    # ---- GPU memory ---------------------------------------------------------------------------------------------
    _variable(
        "MEGENGINE_INPLACE_UPDATE",
        category=MEMORY,
        type=Switch(),
        default="0",
        when=ReadWhen.EVERY_CALL,
        read_at="imperative/python/megengine/optimizer/sgd.py, adam.py, adamw.py : _updates(); "
        "jit/tracing.py : trace.__init__",
        description=Text(
            "Makes the SGD/Adam/AdamW optimizers update parameters in place, avoiding memory fragmentation and often "
            "saving memory equal to the parameter size; read at every optimizer.step(), and by each trace when it is "
            "created.",
            "让 SGD/Adam/AdamW 优化器原地更新参数,减少显存碎片,通常能省下与参数量相当的显存;每次 optimizer.step() "
            "都会读取,每个 trace 创建时也会读取。",
        ),
        caveats=(
            Text(
                "A trace keeps the value it saw when it was created; recreate the trace after changing it.",
                "trace 会沿用创建时读到的值;修改后需重新创建 trace。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "MGB_CUDA_RESERVE_MEMORY",
        category=MEMORY,
        type=ReserveMemory(),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at="src/core/impl/comp_node/cuda/comp_node.cpp : StaticData::get_mem_reserve_size() <- DeviceInfo::init",
        first_use=Text(
            "the first use of each GPU (the first comp node created on that device)",
            "每块 GPU 第一次被使用时(该设备上创建第一个 comp node 时)",
        ),
        description=Text(
            "Reserves CUDA memory up front for MegEngine's allocator: b:<bytes> reserves exactly that much, any other "
            "value reserves nearly all free memory.",
            "为 MegEngine 的显存分配器预先占用 CUDA 显存:b:<字节数> 精确预留该大小,"
            "其他任何取值都会占用几乎全部空闲显存。",
        ),
        caveats=(_RESERVE_ZERO_IS_ON, RELEASE_BUILD_CAVEAT),
        loads_code=None,
    ),
    _variable(
        "MGB_ROCM_RESERVE_MEMORY",
        category=MEMORY,
        type=ReserveMemory(),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at="src/core/impl/comp_node/rocm/comp_node.cpp : StaticData::get_mem_reserve_size() <- DeviceInfo::init",
        first_use=Text(
            "the first use of each ROCm device (the first comp node created on it)",
            "每个 ROCm 设备第一次被使用时(其上创建第一个 comp node 时)",
        ),
        description=Text(
            "Same as MGB_CUDA_RESERVE_MEMORY for AMD ROCm devices: b:<bytes> reserves exactly that much, any other "
            "value reserves nearly all free memory.",
            "与 MGB_CUDA_RESERVE_MEMORY 相同,"
            "作用于 AMD ROCm 设备:b:<字节数> 精确预留,其他任何取值都会占用几乎全部空闲显存。",
        ),
        caveats=(_RESERVE_ZERO_IS_ON, RELEASE_BUILD_CAVEAT),
        loads_code=None,
    ),
    # ---- Sublinear memory ---------------------------------------------------------------------------------------
    _variable(
        "MGB_SUBLINEAR_MEMORY_THRESH_NR_TRY",
        category=SUBLINEAR,
        type=Integer(minimum=1),
        default="10",
        when=ReadWhen.PER_OBJECT,
        read_at=_SUBLINEAR_SEARCHER,
        description=Text(
            "How many thresholds the sublinear-memory planner samples when it searches the current range; read "
            "again each time a traced graph with sublinear memory optimisation is compiled.",
            "亚线性显存优化在当前范围内搜索时采样的阈值个数;每次编译开启亚线性优化的 trace 计算图时都会重新读取。",
        ),
        caveats=(_SUBLINEAR_OVERRIDES, _NO_COMP_GRAPH_OPT, RELEASE_BUILD_CAVEAT),
        loads_code=None,
    ),
    _variable(
        "MGB_SUBLINEAR_MEMORY_GENETIC_NR_ITER",
        category=SUBLINEAR,
        type=Integer(minimum=0),
        default="0",
        when=ReadWhen.PER_OBJECT,
        read_at=_SUBLINEAR_SEARCHER,
        description=Text(
            "Number of genetic-algorithm iterations used to refine the split plan (0 skips the genetic search); read "
            "again each time a traced graph with sublinear memory optimisation is compiled.",
            "用遗传算法优化切分方案时的迭代次数(0 表示不做遗传搜索);"
            "每次编译开启亚线性优化的 trace 计算图时都会重新读取。",
        ),
        caveats=(_SUBLINEAR_OVERRIDES, _NO_COMP_GRAPH_OPT, RELEASE_BUILD_CAVEAT),
        loads_code=None,
    ),
    _variable(
        "MGB_SUBLINEAR_MEMORY_GENETIC_POOL_SIZE",
        category=SUBLINEAR,
        type=Integer(minimum=1),
        default="20",
        when=ReadWhen.PER_OBJECT,
        read_at=_SUBLINEAR_SEARCHER,
        description=Text(
            "Size of the candidate pool the genetic search draws from for crossover; read again each time a traced "
            "graph with sublinear memory optimisation is compiled.",
            "遗传搜索做交叉(crossover)时所用候选池的大小;每次编译开启亚线性优化的 trace 计算图时都会重新读取。",
        ),
        caveats=(_SUBLINEAR_OVERRIDES, _NO_COMP_GRAPH_OPT, RELEASE_BUILD_CAVEAT),
        loads_code=None,
    ),
    _variable(
        "MGB_SUBLINEAR_MEMORY_LOWER_BOUND_MB",
        category=SUBLINEAR,
        type=Size(unit=MiB),
        default="0",
        when=ReadWhen.PER_OBJECT,
        read_at=_SUBLINEAR_SEARCHER,
        description=Text(
            "Lower bound, in MiB, of the memory bottleneck the planner aims for: raise it to trade memory for speed; "
            "read again each time a traced graph with sublinear memory optimisation is compiled.",
            "规划器追求的显存瓶颈下界(单位 MiB),调高它可以用显存换速度;"
            "每次编译开启亚线性优化的 trace 计算图时都会重新读取。",
        ),
        caveats=(_SUBLINEAR_OVERRIDES, _NO_COMP_GRAPH_OPT, RELEASE_BUILD_CAVEAT),
        loads_code=None,
    ),
    _variable(
        "MGB_SUBLINEAR_MEMORY_WORKERS",
        category=SUBLINEAR,
        type=Integer(minimum=1),
        default=None,
        when=ReadWhen.PER_OBJECT,
        read_at="src/core/impl/graph/seq_sublinear_memory.cpp : SeqModifierForSublinearMemory::search_action",
        description=Text(
            "Number of threads that search for the best sublinear-memory split plan (unset: the config's num_worker, "
            "half the CPU count); read again at every plan search.",
            "搜索最优亚线性切分方案所用的线程数(未设置时取配置中的 num_worker,"
            "即 CPU 数的一半);每次搜索方案时都会重新读取。",
        ),
        caveats=(
            Text(
                "MegEngine asserts 1 <= value <= 4 x the CPU count; a larger value aborts the graph compilation.",
                "MegEngine 会断言 1 <= 取值 <= 4 x CPU 数;超出时计算图编译会直接报错。",
            ),
            _SUBLINEAR_OVERRIDES,
            RELEASE_BUILD_CAVEAT,
        ),
        loads_code=None,
    ),
    _variable(
        "MEGENGINE_INPUT_NODE_USE_STATIC_SHAPE",
        category=SUBLINEAR,
        type=Presence(),
        default=None,
        when=ReadWhen.PER_OBJECT,
        read_at=Text(
            "imperative/python/megengine/jit/tracing.py : _input_node_use_static_shape() in trace.__init__",
            "imperative/python/megengine/jit/tracing.py : trace.__init__ 中的 _input_node_use_static_shape()",
        ),
        description=Text(
            "Gives the input nodes of a traced graph a static shape, so more vars get static shapes and static "
            "storage and larger batches fit; read by each trace when it is created.",
            "让 trace 计算图的输入节点使用静态形状,从而更多 var 获得静态形状与静态存储,可以开更大的 batch;"
            "每个 trace 创建时读取。",
        ),
        caveats=(
            Text(
                'The docs say "0" turns it off, but the source only checks that the variable is set: any value, "0" '
                "included, turns it on.",
                '文档称 "0" 表示关闭,但源码只检查变量是否存在:任何取值(包括 "0")都会开启。',
            ),
        ),
        loads_code=None,
    ),
    # ---- Graph and interpreter ----------------------------------------------------------------------------------
    _variable(
        "MEGENGINE_INTERP_ASYNC_LEVEL",
        category=GRAPH,
        type=Choice(
            ("0", "1", "2"),
            value_notes=(
                ("0", Text("fully synchronous: errors point at the Python line that caused them, but training is "
                           "slower", "完全同步:报错会指向引发它的那行 Python 代码,但训练会变慢")),
                ("1", Text("user-side errors are raised synchronously, device work stays asynchronous",
                           "用户侧的错误同步抛出,设备上的计算仍然异步执行")),
            ),
            python_type=int,
        ),
        default="2",
        when=ReadWhen.IMPORT,
        read_at=OPTION_MANAGER,
        description=Text(
            "How asynchronous eager execution is: 0 runs each op before Python moves on (easy to locate errors), 1 "
            "raises user-side errors at once, 2 (default) runs user code and computation asynchronously.",
            "动态图执行的异步程度:0 表示每个算子执行完 Python 才继续(便于定位报错),1 表示用户侧错误立即抛出,"
            "2(默认)表示用户代码与计算都异步。",
        ),
        live_api="megengine.config.async_level",
        caveats=(INTEGERS_ONLY_CAVEAT, RELEASE_BUILD_CAVEAT),
        loads_code=None,
    ),
    _variable(
        "MEGENGINE_ASYNC_QUEUE_SIZE",
        category=GRAPH,
        type=Integer(minimum=1),
        default="10000",
        when=ReadWhen.IMPORT,
        read_at=Text(
            "imperative/src/impl/interpreter/interpreter_impl.h : WorkQueue constructor",
            "imperative/src/impl/interpreter/interpreter_impl.h : WorkQueue 构造函数",
        ),
        description=Text(
            "Maximum number of commands waiting in the interpreter's work queue before Python blocks.",
            "解释器工作队列中允许排队的最大命令数,超过后 Python 端会阻塞等待。",
        ),
        caveats=(
            Text(
                "Only digits are allowed; anything else (a sign, spaces, units) fails an assertion when the "
                "interpreter starts.",
                "只允许数字;其他字符(正负号、空格、单位)会在解释器启动时触发断言失败。",
            ),
            RELEASE_BUILD_CAVEAT,
        ),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "MEGENGINE_CATCH_WORKER_EXEC",
        category=GRAPH,
        type=Switch(),
        default="1",
        when=ReadWhen.IMPORT,
        read_at=OPTION_MANAGER,
        description=Text(
            "Catches exceptions raised in the eager-mode worker thread and reports them to Python (on by default); "
            "turn it off while debugging to see the raw crash.",
            "捕获动态图 worker 线程中的异常并转交给 Python(默认开启);调试时可关闭以看到原始的崩溃现场。",
        ),
        live_api="megengine.option:catch_worker_execption",
        caveats=(INTEGERS_ONLY_CAVEAT, RELEASE_BUILD_CAVEAT),
        loads_code=None,
    ),
    _variable(
        "MEGENGINE_COMMAND_BUFFER_LENGTH",
        category=GRAPH,
        type=Integer(minimum=0),
        default=None,
        when=ReadWhen.NOT_READ,
        read_at=Text(f"{OPTION_MANAGER.en} (option removed in v1.9.0)",
                     f"{OPTION_MANAGER.zh}(该选项已在 v1.9.0 移除)"),
        description=Text(
            "Used to delay the last few operators (3 by default) for local optimisation; no longer has any effect.",
            "曾用于延迟执行最后几个算子(默认 3 个)以做局部优化;现在已经没有任何作用。",
        ),
        caveats=(
            Text(
                'Not read since v1.9.0: the command buffer was removed (commit a5af35c18 "remove command buffer").',
                '自 v1.9.0 起不再读取:命令缓冲已被移除(提交 a5af35c18 "remove command buffer")。',
            ),
        ),
        replaced_by=Text("nothing: the interpreter no longer buffers commands, so there is no setting to replace it",
                         "没有替代项:解释器已不再缓冲命令,所以也没有可替代它的设置"),
        loads_code=None,
    ),
    _variable(
        "MEGENGINE_RECORD_COMPUTING_PATH",
        category=GRAPH,
        type=Switch(),
        default="0",
        when=ReadWhen.IMPORT,
        read_at=OPTION_MANAGER,
        description=Text(
            "Records the computing history of each tensor, which DTR needs to recompute evicted tensors.",
            "记录每个 tensor 的历史计算路径,DTR 需要它来重新计算被释放的 tensor。",
        ),
        live_api="megengine.option:record_computing_path",
        caveats=(
            Text(
                "GradManager.backward() and Optimizer.step() overwrite it: 0 while they run and 1 afterwards, so after "
                "the first backward or step it is 1 whatever the environment said. megengine.dtr.enable() also sets "
                "it to 1.",
                "GradManager.backward() 和 Optimizer.step() 会覆盖它:执行期间置 0,结束后置 1,所以第一次 backward 或 "
                "step 之后它总是 1,与环境变量无关。megengine.dtr.enable() 也会把它设为 1。",
            ),
            INTEGERS_ONLY_CAVEAT,
            RELEASE_BUILD_CAVEAT,
        ),
        loads_code=None,
    ),
    # ---- Kernel selection, profiling and dumping ----------------------------------------------------------------
    _variable(
        "MEGENGINE_EXECUTION_STRATEGY",
        category=PROFILING,
        type=Choice(("HEURISTIC", "PROFILE", "REPRODUCIBLE", "PROFILE_REPRODUCIBLE", "HEURISTIC_REPRODUCIBLE")),
        default=None,
        when=ReadWhen.NOT_READ,
        read_at=Text(
            "imperative/python/megengine/functional/debug_param.py : (module-level read removed in v1.10.0)",
            "imperative/python/megengine/functional/debug_param.py :(模块顶层的读取已在 v1.10.0 移除)",
        ),
        description=Text(
            "Was the kernel selection (fast-run) strategy: heuristic, profiled, and/or reproducible; it trades speed "
            "against reproducibility and start-up time. Use the API instead.",
            "曾用于设置 kernel 选择(fast-run)策略:启发式、按 profile 结果选择、以及是否要求可复现,"
            "在速度、可复现性与启动耗时之间取舍。请改用 API。",
        ),
        caveats=(
            Text(
                "Not read since v1.10.0 (commit 597a1e791 removed the module-level set_execution_strategy(os.getenv("
                "...))), although the docs and the docstring still say the variable works; 1.13.4 only warns about "
                "the older MEGENGINE_CONV_EXECUTION_STRATEGY.",
                "自 v1.10.0 起不再读取(提交 597a1e791 删除了模块级的 set_execution_strategy(os.getenv(...))),"
                "但文档和 docstring 仍说它有效;1.13.4 只会对更早的 MEGENGINE_CONV_EXECUTION_STRATEGY 给出警告。",
            ),
            Text(
                "The docs list REPRODUCEABLE and OPTIMIZED, which the API rejects; use REPRODUCIBLE, and join "
                "strategies with _ (e.g. PROFILE_REPRODUCIBLE).",
                "文档列出的 REPRODUCEABLE 和 OPTIMIZED 会被 API 拒绝;应写 REPRODUCIBLE,多个策略用 _ 连接"
                "(如 PROFILE_REPRODUCIBLE)。",
            ),
        ),
        replaced_by=Text("megengine.functional.debug_param.set_execution_strategy, "
                         "or megengine.config.benchmark_kernel / deterministic_kernel",
                         "megengine.functional.debug_param.set_execution_strategy,"
                         "或 megengine.config.benchmark_kernel / deterministic_kernel"),
        loads_code=None,
    ),
    _variable(
        "MGB_CONV_PROFILING_TIMEOUT",
        category=PROFILING,
        type=Number(minimum=0),
        default="0",
        when=ReadWhen.IMPORT,
        read_at=Text(
            "src/rdnn/impl/profiler.cpp : TimedProfiler<Opr>::init_timeout_setting() (static member initialiser)",
            "src/rdnn/impl/profiler.cpp : TimedProfiler<Opr>::init_timeout_setting()(静态成员初始化时)",
        ),
        description=Text(
            "Time limit in seconds for profiling one kernel during fast-run; a kernel that runs longer is killed. 0 "
            "means no limit.",
            "fast-run 中 profile 单个 kernel 的超时时间(秒),超时的 kernel 会被直接终止;0 表示不限制。",
        ),
        caveats=(
            Text(
                "Only effective in builds with fast-run enabled (MGB_ENABLE_FASTRUN).",
                "仅在开启 fast-run(MGB_ENABLE_FASTRUN)的构建中有效。",
            ),
            RELEASE_BUILD_CAVEAT,
        ),
        loads_code=None,
    ),
    _variable(
        "MGB_PROFILE_ONLY_WAIT",
        category=PROFILING,
        type=Presence(),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at=Text(
            "src/plugin/impl/profiler.cpp : GraphProfiler::opr_filter (function static)",
            "src/plugin/impl/profiler.cpp : GraphProfiler::opr_filter(函数内静态变量)",
        ),
        first_use=Text(
            "the first operator checked by a graph profiler (GraphProfiler)",
            "图 profiler(GraphProfiler)第一次筛选算子时",
        ),
        description=Text(
            "Makes the graph profiler record only operators that wait on other streams or devices (and copies).",
            "让图 profiler 只记录需要等待其他流或设备的算子(以及拷贝算子)。",
        ),
        caveats=(
            Text('Any value turns it on, "0" included.', '只要设置就会开启,"0" 也一样。'),
            RELEASE_BUILD_CAVEAT,
        ),
        loads_code=None,
    ),
    _variable(
        "MGB_DUMP_INPUT",
        category=PROFILING,
        type=Presence(),
        default=None,
        when=ReadWhen.EVERY_CALL,
        read_at=Text(
            "src/plugin/impl/opr_io_dump.cpp : BinaryOprIODump dump lambda",
            "src/plugin/impl/opr_io_dump.cpp : BinaryOprIODump 的 dump lambda",
        ),
        description=Text(
            "When operator outputs are dumped in binary form, also dumps each operator's inputs; checked for every "
            "dumped var.",
            "以二进制方式导出算子输出时,同时导出每个算子的输入;每导出一个 var 都会检查一次。",
        ),
        caveats=(
            Text(
                "The docs say only the first setting counts, but it is checked again for every dumped var. Any value "
                'turns it on, "0" included. It cannot be combined with lazy sync.',
                '文档称仅首次设置生效,但每导出一个 var 都会重新检查。只要设置就会开启,'
                '"0" 也一样。不能与 lazy sync 同时使用。',
            ),
            RELEASE_BUILD_CAVEAT,
        ),
        loads_code=None,
    ),
    # ---- JIT kernel fusion --------------------------------------------------------------------------------------
    _variable(
        "CUDA_BIN_PATH",
        category=JIT,
        type=FileSystemPath(),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at=Text(
            "src/core/impl/utils/cuda_helper.cpp : get_cuda_include_path() <- "
            "src/jit/impl/nvrtc/compiler_cuda.cpp : NVRTCCompile (static cuda_include_opts)",
            "src/core/impl/utils/cuda_helper.cpp : get_cuda_include_path() <- src/jit/impl/nvrtc/compiler_cuda.cpp : "
            "NVRTCCompile(静态变量 cuda_include_opts)",
        ),
        first_use=Text("the first NVRTC JIT compilation", "第一次 NVRTC JIT 编译时"),
        description=Text(
            "CUDA installation directory used to find the CUDA headers when JIT-fused kernels are compiled; unset, "
            "MegEngine looks for nvcc on PATH and then for libcudart.so.",
            "编译 JIT 融合 kernel 时用来查找 CUDA 头文件的 CUDA 安装目录;未设置时 MegEngine 会在 PATH 中找 nvcc,"
            "再退而查找 libcudart.so。",
        ),
        caveats=(
            Text(
                "The docs call it the path of nvcc. The source uses it to find headers: it adds $CUDA_BIN_PATH/include "
                "and $CUDA_BIN_PATH/../include, so both the CUDA root and its bin directory work.",
                "文档说它是 nvcc 的路径。源码用它查找头文件:会加入 $CUDA_BIN_PATH/include 和 "
                "$CUDA_BIN_PATH/../include,所以 CUDA 根目录和其 bin 目录都可以。",
            ),
            Text(
                "The NVRTC path caches it at the first compilation; the MLIR backend reads it again at each compile.",
                "NVRTC 后端在第一次编译时缓存该值;MLIR 后端每次编译都会重新读取。",
            ),
        ),
        loads_code=RUNS_PROGRAMS,
    ),
    _variable(
        "MGB_JIT_BACKEND",
        category=JIT,
        type=Choice(("HALIDE", "MLIR", "NVRTC", "TINYOPENCL")),
        default=None,
        when=ReadWhen.EVERY_CALL,
        read_at="src/jit/impl/fusion_pass.cpp : JITFusionPass::Impl::config_jit_backends; "
        "fusion_pass.h : get_jit_backend_str()",
        description=Text(
            "Compiler backend for JIT-fused kernels: HALIDE, NVRTC or MLIR on CUDA, MLIR on CPU, TINYOPENCL on "
            "OpenCL; unset, the first one built in is used. Read at every JIT fusion pass.",
            "JIT 融合 kernel 的编译后端:CUDA 上可选 HALIDE、NVRTC、MLIR,CPU 上为 MLIR,OpenCL 上为 TINYOPENCL;"
            "未设置时使用构建中第一个可用的后端。每次执行 JIT 融合 pass 都会读取。",
        ),
        caveats=(
            Text(
                "The environment variable takes priority over the backend chosen through the graph options. The docs "
                "omit TINYOPENCL.",
                "环境变量的优先级高于计算图选项中指定的后端。文档中没有列出 TINYOPENCL。",
            ),
        ),
        loads_code=None,
    ),
    _variable(
        "MGB_JIT_KEEP_INTERM",
        category=JIT,
        type=Presence(),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at=Text(
            "src/jit/impl/utils.cpp : ExecutableHelper::keep_interm() (function static)",
            "src/jit/impl/utils.cpp : ExecutableHelper::keep_interm()(函数内静态变量)",
        ),
        first_use=_FIRST_JIT_COMPILE,
        description=Text(
            "Keeps the intermediate files (sources, objects, libraries) the JIT writes to its work directory.",
            "保留 JIT 在工作目录中生成的中间文件(源码、目标文件、动态库)。",
        ),
        caveats=(
            Text('Any value turns it on, "0" included.', '只要设置就会开启,"0" 也一样。'),
            RELEASE_BUILD_CAVEAT,
        ),
        loads_code=None,
    ),
    _variable(
        "MGB_JIT_WORKDIR",
        category=JIT,
        type=FileSystemPath(),
        default="/tmp/mgbjit-XXXXXX",
        when=ReadWhen.FIRST_USE,
        read_at=Text(
            "src/jit/impl/utils.cpp : ExecutableHelperImpl constructor (singleton ExecutableHelper::get())",
            "src/jit/impl/utils.cpp : ExecutableHelperImpl 构造函数(单例 ExecutableHelper::get())",
        ),
        first_use=_FIRST_JIT_COMPILE,
        description=Text(
            "Directory where the JIT writes its temporary files; unset, a fresh /tmp/mgbjit-XXXXXX directory is made.",
            "JIT 存放临时文件的目录;未设置时会新建一个 /tmp/mgbjit-XXXXXX 目录。",
        ),
        caveats=(
            Text(
                "A directory MegEngine has to create itself (mode 0700, parent must exist) is deleted at exit unless "
                "MGB_JIT_KEEP_INTERM is set.",
                "若目录需由 MegEngine 自己创建(权限 0700,父目录必须已存在),进程退出时会被删除,"
                "除非设置了 MGB_JIT_KEEP_INTERM。",
            ),
            RELEASE_BUILD_CAVEAT,
        ),
        loads_code=LOADS_COMPILED_CODE,
    ),
)

# Where its memory was allocated, as the allocation sites ask (catalog/_memtrace.py).
MEMTRACE = MemtraceFacts("megengine", Recording.NEVER, Text(
    "MegEngine does not record where its tensors were allocated: its allocator keeps sizes, not stacks",
    "MegEngine 不记录张量在哪里分配:其分配器只记录大小,不记录调用栈"))

# Its allocator's settings as AllocatorWidget groups them (catalog/_allocators.py).
ALLOCATOR = Allocator(
    Text("MegEngine allocator", "MegEngine 分配器"),
    latching=Text(
        "The reserve is taken when each GPU is first used, so it must be set before the first operation on that "
        "device; in-place update is read at every optimizer step.",
        "预留显存在每块 GPU 第一次使用时申请,必须在该设备上第一次运算前设置;原地更新在每次 optimizer.step() 时读取。",
    ),
    names=("MGB_CUDA_RESERVE_MEMORY", "MEGENGINE_INPLACE_UPDATE"),
)
