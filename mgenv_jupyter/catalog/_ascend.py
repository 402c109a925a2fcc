"""Ascend TF adapter: every NPURunConfig keyword of seed 002 (and input_fusion_size) plus the environment variables the
adapter reads.

NPURunConfig keywords are not environment variables: NPUEstimator copies them into the NpuOptimizer parameter map and
tf_adapter/util/npu_attrs.cc checks them. Defaults are the constructor defaults written as Python literals; keywords
whose default is None are optional (None leaves the choice to GE). Ascend has no run-time API for any of them.
"""

from __future__ import annotations

from ..base._text import Text
from ._code_loading import LOADS_COMPILED_CODE, WRITES_FILES
from ._entry import Entry, EntryFactory, ReadWhen
from ._keyword_options import KeywordOptions
from ._values import (
    Choice,
    FileSystemPath,
    FreeText,
    Integer,
    MiB,
    OptionalOf,
    Pattern,
    Size,
    Switch,
    ValueType,
)

READERS = ("npu_bridge",)
OPTION_READ_AT = "npu_bridge/estimator/npu/npu_config.py : NPURunConfig.__init__ → tf_adapter/util/npu_attrs.cc"

BASIC = Text("Basic options", "基础功能")
MEMORY = Text("Memory management", "内存管理")
MIXED_COMPUTING = Text("Mixed computing", "混合计算")
DEBUGGING = Text("Debugging", "功能调试")
ACCURACY_TUNING = Text("Accuracy tuning", "精度调优")
ACCURACY_COMPARISON = Text("Accuracy comparison", "精度比对")
PERFORMANCE = Text("Performance tuning", "性能调优")
PROFILING = Text("Profiling", "性能数据采集(Profiling)")
AOE = Text("AOE tuning", "AOE 自动调优")
COMPILATION = Text("Operator and graph compilation", "算子编译与图编译")
DATA_AUGMENTATION = Text("Data augmentation", "数据增强")
EXCEPTION_REMEDY = Text("Exception remedy", "异常补救")
COMPRESSION = Text("Model compression", "模型压缩")
EXPERIMENTAL = Text("Experiment parameters", "试验参数")
DEPRECATED = Text("Deprecated in later versions", "后续版本废弃配置")
DEVICES = Text("Device selection", "设备选择")
DISTRIBUTED = Text("Distributed training", "分布式训练")

_GE_INIT = Text(
    "the first NPU session of the process (GE initialisation in GePlugin::Init)",
    "进程中第一个 NPU 会话创建时(GePlugin::Init 初始化 GE)",
)
_GE_INIT_ONCE = Text(
    "Becomes a GE global initialisation option, applied once when the first NPU session starts; a different value in "
    "a later NPURunConfig is ignored ('Ge has already initialized') until GE is finalised.",
    "该值作为 GE 全局初始化选项,只在第一个 NPU 会话启动时生效一次;之后的 NPURunConfig 设置不同的值会被忽略"
    "(日志提示 'Ge has already initialized'),直到 GE 被 finalize。",
)
_UNSUPPORTED = Text(
    "The docs say this parameter is not supported in the current version.",
    "文档说明当前版本暂不支持此参数。",
)
_DEPRECATED = Text(
    "The docs mark this parameter for removal in a later version; the adapter logs a deprecation warning when it is "
    "used.",
    "文档标明此参数将在后续版本废弃;使用时适配器会打印废弃告警。",
)
_OBJECT = Text(
    "This keyword takes a Python object, not text: create it in code and pass it to NPURunConfig; here only None can "
    "be recorded.",
    "此参数接收 Python 对象而不是文本:请在代码中创建对象并传给 NPURunConfig;这里只能记录 None。",
)
_DEVICE_PRIORITY = Text(
    "Device ID priority in the adapter (npu_attrs.cc GetDeviceID): session_device_id > ASCEND_DEVICE_ID > DEVICE_ID "
    "> 0.",
    "适配器中设备 ID 的优先级(npu_attrs.cc 的 GetDeviceID):session_device_id > ASCEND_DEVICE_ID > DEVICE_ID > 0。",
)
_BOOL = Switch(on="True", off="False")
_FILE = FileSystemPath(directory=False)


_variable = EntryFactory("ascend", readers=READERS)
_keyword = EntryFactory("ascend", readers=READERS, read_at=OPTION_READ_AT, when=ReadWhen.OPTION)


def _option(
    name: str,
    category: Text,
    value_type: ValueType,
    default: str,
    description: Text,
    caveats: tuple[Text, ...] = (),
    replaced_by: str | None = None,
    extra: bool = False,
    *,
    loads_code: Text | None,
) -> Entry:
    """An NPURunConfig keyword: read when the config object is built, never from the environment."""
    return _keyword(name, category=category, type=value_type, default=default, description=description,
                    caveats=caveats, replaced_by=replaced_by, extra=extra, loads_code=loads_code)


ENTRIES = (
    # Basic options
    _option(
        "graph_run_mode",
        BASIC,
        Integer(minimum=0, maximum=1),
        "1",
        Text(
            "Graph execution mode: 0 for online inference, 1 for training (default). Mode 0 also forces "
            "enable_small_channel on.",
            "图执行模式:0 为在线推理,1 为训练(默认)。设为 0 时会强制打开 enable_small_channel。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=None,
    ),
    _option(
        "session_device_id",
        BASIC,
        OptionalOf(Integer(minimum=0)),
        "None",
        Text(
            "Logical ID of the device this config's session runs on, so one script can run different models on "
            "different devices; it wins over ASCEND_DEVICE_ID.",
            "指定该配置对应会话所在设备的逻辑 ID,使同一脚本能把不同模型放到不同设备上运行;优先级高于 "
            "ASCEND_DEVICE_ID。",
        ),
        caveats=(_DEVICE_PRIORITY,),
        loads_code=None,
    ),
    _option(
        "distribute",
        BASIC,
        OptionalOf(FreeText()),
        "None",
        Text(
            "A ParameterServerStrategy object, for distributed training with the parameter-server / worker "
            "architecture.",
            "传入 ParameterServerStrategy 对象,用于 PS-Worker 架构的分布式训练。",
        ),
        caveats=(_OBJECT,),
        loads_code=None,
    ),
    _option(
        "deterministic",
        BASIC,
        Integer(minimum=0, maximum=1),
        "0",
        Text(
            "1 turns on deterministic computation, so the same hardware and inputs always give the same outputs; it "
            "is slower, so it is off (0) by default. Fix the random seeds too for fully repeatable results.",
            "设为 1 开启确定性计算,相同硬件和输入下多次执行输出一致;会降低性能,默认关闭(0)。若要结果完全可复现,"
            "还需固定随机数种子。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=None,
    ),
    # Memory management
    _option(
        "memory_config",
        MEMORY,
        OptionalOf(FreeText()),
        "None",
        Text(
            "A MemoryConfig object that sets how system memory is used (atomic clean policy, static memory policy, "
            "huge pages).",
            "传入 MemoryConfig 对象,配置系统内存的使用方式(atomic 清零策略、静态内存策略、大页内存等)。",
        ),
        caveats=(_OBJECT,),
        loads_code=None,
    ),
    _option(
        "external_weight",
        MEMORY,
        _BOOL,
        "False",
        Text(
            "Store the weights of Const/Constant nodes in external files instead of inside the model, so that "
            "networks with very large weights can still compile and load where memory is limited.",
            "把 Const/Constant 节点的权重放到模型外部文件中,使权重很大的网络在内存受限的环境中也能编译和加载。",
        ),
        loads_code=None,
    ),
    # Mixed computing
    _option(
        "mix_compile_mode",
        MIXED_COMPUTING,
        _BOOL,
        "False",
        Text(
            "Mixed computing: operators that cannot be compiled for the device stay in TensorFlow on the host while "
            "the rest run on the NPU; False sinks the whole graph to the device. Must be a bool, and "
            "iterations_per_loop must then be 1.",
            "混合计算:无法下沉到设备的算子留在主机侧由 TensorFlow 执行,其余在 NPU 上执行;False 表示整图下沉。"
            "必须是 bool 类型,且开启时 iterations_per_loop 必须为 1。",
        ),
        loads_code=None,
    ),
    # Debugging
    _option(
        "enable_exception_dump",
        DEBUGGING,
        Integer(minimum=0, maximum=2),
        "2",
        Text(
            "Dump the inputs and outputs of operators that fail, into the script's working directory: 0 off, 1 full "
            "exception dump, 2 lightweight exception dump (default).",
            "将出错算子的输入输出 dump 到脚本执行目录:0 关闭,1 完整异常 dump,2 轻量异常 dump(默认)。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=None,
    ),
    _option(
        "op_debug_config",
        DEBUGGING,
        OptionalOf(_FILE),
        "None",
        Text(
            "Path of a .cfg file that turns on Global Memory checks and other operator debug options, listed "
            "comma-separated (for example ccec_O0,ccec_g,oom).",
            "指向 .cfg 配置文件的路径,用于开启 Global Memory 内存检测等算子调试选项,多个选项以英文逗号分隔"
            "(如 ccec_O0,ccec_g,oom)。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=None,
    ),
    _option(
        "debug_dir",
        DEBUGGING,
        OptionalOf(FileSystemPath()),
        "None",
        Text(
            "Directory for the debug files produced while compiling operators (.o, .json, .cce); by default they go "
            "to the script's working directory.",
            "保存算子编译时生成的调试文件(.o、.json、.cce 等)的目录;默认为脚本执行目录。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=WRITES_FILES,
    ),
    # Accuracy tuning
    _option(
        "precision_mode",
        ACCURACY_TUNING,
        OptionalOf(
            Choice(
                (
                    "force_fp32",
                    "allow_fp32_to_fp16",
                    "force_fp16",
                    "must_keep_origin_dtype",
                    "allow_mix_precision",
                    "cube_fp16in_fp32out",
                    "allow_mix_precision_fp16",
                    "allow_mix_precision_bf16",
                    "allow_fp32_to_bf16",
                )
            )
        ),
        "None",
        Text(
            "Operator precision mode as a string, for example allow_mix_precision for automatic mixed precision or "
            "must_keep_origin_dtype to keep every dtype. Cannot be combined with precision_mode_v2.",
            "算子精度模式(字符串),例如 allow_mix_precision 开启自动混合精度,must_keep_origin_dtype 保持原始数据"
            "类型。不能与 precision_mode_v2 同时使用。",
        ),
        caveats=(
            Text(
                "None leaves GE's default, which depends on the hardware: allow_fp32_to_fp16 on Atlas training "
                "products, must_keep_origin_dtype on Atlas A2/A3 training products.",
                "None 表示使用 GE 默认值,它与硬件有关:Atlas 训练系列产品为 allow_fp32_to_fp16,Atlas A2/A3 训练"
                "系列产品为 must_keep_origin_dtype。",
            ),
            _GE_INIT_ONCE,
        ),
        loads_code=None,
    ),
    _option(
        "precision_mode_v2",
        ACCURACY_TUNING,
        OptionalOf(
            Choice(
                ("fp16", "origin", "cube_fp16in_fp32out", "mixed_float16", "mixed_bfloat16", "cube_hif8", "mixed_hif8")
            )
        ),
        "None",
        Text(
            "Newer form of the operator precision mode, recommended over precision_mode: origin keeps dtypes, "
            "mixed_float16 / mixed_bfloat16 enable mixed precision. Cannot be combined with precision_mode.",
            "新版的算子精度模式,推荐替代 precision_mode:origin 保持原始类型,mixed_float16 / mixed_bfloat16 开启"
            "混合精度。不能与 precision_mode 同时使用。",
        ),
        caveats=(
            Text(
                "None leaves GE's default: origin on Atlas A2 training products; on Atlas training products the "
                "default of precision_mode applies.",
                "None 表示使用 GE 默认值:Atlas A2 训练系列产品为 origin;Atlas 训练系列产品以 precision_mode 的默认值"
                "为准。",
            ),
            _GE_INIT_ONCE,
        ),
        loads_code=None,
    ),
    _option(
        "modify_mixlist",
        ACCURACY_TUNING,
        OptionalOf(_FILE),
        "None",
        Text(
            "JSON file that moves operators between the mixed-precision black, white and gray lists; it only applies "
            "when precision_mode or precision_mode_v2 selects a mixed-precision mode.",
            "JSON 文件,用于调整混合精度黑、白、灰名单中的算子;仅在 precision_mode 或 precision_mode_v2 选择混合精度"
            "模式时生效。",
        ),
        loads_code=None,
    ),
    _option(
        "enable_reduce_precision",
        ACCURACY_TUNING,
        _BOOL,
        "False",
        Text(
            "Reserved switch for reduced-precision computation.",
            "保留的降精度计算开关。",
        ),
        caveats=(_UNSUPPORTED,),
        loads_code=None,
    ),
    _option(
        "customize_dtypes",
        ACCURACY_TUNING,
        OptionalOf(_FILE),
        "None",
        Text(
            "Config file that sets the compute precision of chosen operators (by name or by type) while the rest of "
            "the network follows precision_mode; it has no effect when precision_mode is must_keep_origin_dtype.",
            "配置文件,为指定算子(按名称或类型)单独设置计算精度,其余算子仍按 precision_mode 编译;precision_mode 为 "
            "must_keep_origin_dtype 时不生效。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=None,
    ),
    # Accuracy comparison
    _option(
        "dump_config",
        ACCURACY_COMPARISON,
        OptionalOf(FreeText()),
        "None",
        Text(
            "A DumpConfig object that turns on data dumping and sets what is dumped.",
            "传入 DumpConfig 对象,开启数据 dump 并配置 dump 内容。",
        ),
        caveats=(_OBJECT,),
        loads_code=WRITES_FILES,
    ),
    _option(
        "fusion_switch_file",
        ACCURACY_COMPARISON,
        OptionalOf(_FILE),
        "None",
        Text(
            "Config file that switches individual graph-fusion and UB-fusion rules off (all built-in rules are on by "
            "default), or all of them at once.",
            "配置文件,用于关闭指定的图融合和 UB 融合规则(内置规则默认全部开启),也可一键全部关闭。",
        ),
        loads_code=None,
    ),
    _option(
        "buffer_optimize",
        ACCURACY_COMPARISON,
        Choice(("l2_optimize", "off_optimize")),
        "'l2_optimize'",
        Text(
            "Buffer optimisation switch: l2_optimize (default) or off_optimize.",
            "缓存优化开关:l2_optimize(默认)或 off_optimize。",
        ),
        caveats=(_UNSUPPORTED,),
        loads_code=None,
    ),
    # Performance tuning
    _option(
        "iterations_per_loop",
        PERFORMANCE,
        Integer(minimum=1),
        "1",
        Text(
            "Training iterations the NPU runs per session.run call before returning to the host, which cuts "
            "host-device round trips; the total step count must be a multiple of it, and it must be 1 in mixed "
            "computing mode.",
            "每次 session.run 在 NPU 上连续执行的训练迭代次数,可减少主机与设备间的交互;训练总步数必须是它的整数倍,"
            "混合计算模式下必须为 1。",
        ),
        loads_code=None,
    ),
    _option(
        "hcom_parallel",
        PERFORMANCE,
        _BOOL,
        "True",
        Text(
            "In distributed training, run AllReduce gradient updates in parallel with forward and backward "
            "computation; small networks such as ResNet-18 may do better with False.",
            "分布式训练时让 AllReduce 梯度更新与前后向计算并行执行;ResNet-18 等小网络可设为 False。",
        ),
        loads_code=None,
    ),
    _option(
        "op_precision_mode",
        PERFORMANCE,
        OptionalOf(_FILE),
        "None",
        Text(
            "An .ini file choosing high-precision or high-performance implementations per operator type or node "
            "name (node names win); it overrides op_select_implmode and optypelist_for_implmode.",
            "一个 .ini 文件,按算子类型或节点名称为算子选择高精度或高性能实现(节点名称优先);会覆盖 "
            "op_select_implmode 和 optypelist_for_implmode。",
        ),
        loads_code=None,
    ),
    _option(
        "enable_scope_fusion_passes",
        PERFORMANCE,
        OptionalOf(FreeText()),
        "None",
        Text(
            "Comma-separated names of registered scope fusion passes (built-in or custom) to enable when compiling.",
            "编译时要启用的已注册 Scope 融合规则名称(内置或自定义),多个以英文逗号分隔。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=None,
    ),
    _option(
        "stream_max_parallel_num",
        PERFORMANCE,
        OptionalOf(
            Pattern(
                r"[A-Za-z_][A-Za-z0-9_]*:\d+(,[A-Za-z_][A-Za-z0-9_]*:\d+)*",
                Text("comma-separated ENGINE:N pairs", "以逗号分隔的 ENGINE:N(引擎:并行数)"),
                examples=("DNN_VM_AICPU:10,AIcoreEngine:1",),
            )
        ),
        "None",
        Text(
            "For NMT networks only: how many AICPU and AICORE operators may run in parallel, per engine (default 1, "
            "at most the number of AI Cores).",
            "仅适用于 NMT 网络:按引擎指定 AICPU/AICORE 算子的并行度(默认 1,不能超过 AI Core 的最大核数)。",
        ),
        loads_code=None,
    ),
    _option(
        "is_tailing_optimization",
        PERFORMANCE,
        _BOOL,
        "False",
        Text(
            "For BERT in distributed training: overlap the last gradient AllReduce with computation that does not "
            "depend on it; must match is_tailing_optimization of NPUOptimizer.",
            "仅用于 BERT 网络的分布式训练:让不依赖最后一个 AllReduce 的计算与之并行,以缩短通信拖尾;必须与 "
            "NPUOptimizer 中的 is_tailing_optimization 一致。",
        ),
        loads_code=None,
    ),
    _option(
        "enable_small_channel",
        PERFORMANCE,
        Integer(minimum=0, maximum=1),
        "0",
        Text(
            "Small-channel optimisation switch (0 off, 1 on); graph_run_mode=0 turns it on.",
            "小通道优化开关(0 关闭,1 开启);graph_run_mode=0 时会自动开启。",
        ),
        caveats=(_UNSUPPORTED,),
        loads_code=None,
    ),
    _option(
        "variable_placement",
        PERFORMANCE,
        Choice(("Device", "Host")),
        "'Device'",
        Text(
            "Where variables are placed: Device (default) or Host, which relieves device memory when the weights are "
            "too large for it.",
            "变量的存放位置:Device(默认)或 Host;权重过大导致设备内存不足时可放到 Host。",
        ),
        caveats=(
            Text(
                "It must be the string 'Device' or 'Host' (the source accepts only these exact spellings); the doc's "
                "example writes Device without quotes.",
                "必须是字符串 'Device' 或 'Host'(源码只接受这两种拼写);文档示例中的 Device 漏写了引号。",
            ),
        ),
        loads_code=None,
    ),
    _option(
        "input_fusion_size",
        PERFORMANCE,
        Integer(minimum=0, maximum=32 * MiB),
        "131072",
        Text(
            "Inputs smaller than this many bytes are merged into one block before being copied to the device "
            "(0 to 32 MiB).",
            "小于该字节数的输入会先合并成一块内存再拷贝到设备(范围 0 到 32 MiB)。",
        ),
        caveats=(
            Text(
                "The NPURunConfig docstring says the default is 25600 bytes; the code uses 131072 (128 KiB). Values "
                "outside 0-32 MiB are clamped by the adapter with a warning.",
                "NPURunConfig 的 docstring 写默认值为 25600 字节,代码实际为 131072(128 KiB)。超出 0~32 MiB 的值会被"
                "适配器截断并告警。",
            ),
        ),
        extra=True,
        loads_code=None,
    ),
    # Profiling
    _option(
        "profiling_config",
        PROFILING,
        OptionalOf(FreeText()),
        "None",
        Text(
            "A ProfilingConfig object that turns profiling on and chooses what is collected.",
            "传入 ProfilingConfig 对象,开启 profiling 并配置采集内容。",
        ),
        caveats=(_OBJECT,),
        loads_code=WRITES_FILES,
    ),
    # AOE
    _option(
        "aoe_mode",
        AOE,
        OptionalOf(Choice(("1", "2", "4"))),
        "None",
        Text(
            "Tuning mode of the AOE tool: '1' subgraph tuning, '2' operator tuning, '4' gradient-split tuning. When "
            "set it wins over the AOE_MODE environment variable.",
            "AOE 调优工具的调优模式:'1' 子图调优,'2' 算子调优,'4' 梯度切分调优。设置后优先于环境变量 AOE_MODE。",
        ),
        caveats=(
            Text(
                "The NPURunConfig docstring still lists '3' (model and operator tuning), which the adapter rejects.",
                "NPURunConfig 的 docstring 仍列出 '3'(子图+算子调优),但适配器会拒绝该值。",
            ),
            Text(
                "It must be a string: the doc's example aoe_mode=2 passes an int, which NPUEstimator cannot convert "
                "(tf.compat.as_bytes raises TypeError).",
                "必须是字符串:文档示例 aoe_mode=2 传入的是整数,NPUEstimator 无法转换(tf.compat.as_bytes 抛出 "
                "TypeError)。",
            ),
            _GE_INIT_ONCE,
        ),
        loads_code=None,
    ),
    _option(
        "work_path",
        AOE,
        OptionalOf(FileSystemPath()),
        "None",
        Text(
            "Working directory of AOE tuning, holding its config and result files; it must already exist and be "
            "readable and writable. Defaults to the current directory; only used when aoe_mode is set.",
            "AOE 调优的工作目录,存放调优配置和结果文件;目录须预先创建且可读写。默认为当前目录,仅在设置 aoe_mode "
            "时使用。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=WRITES_FILES,
    ),
    _option(
        "aoe_config_file",
        AOE,
        OptionalOf(_FILE),
        "None",
        Text(
            "Config file naming the operators (by name or type) AOE should tune, when only some slow operators need "
            "tuning.",
            "配置文件,列出需要 AOE 调优的算子(按名称或类型),适用于只调优部分低性能算子的场景。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=None,
    ),
    # Operator and graph compilation
    _option(
        "op_compiler_cache_mode",
        COMPILATION,
        OptionalOf(Choice(("enable", "force", "disable"))),
        "None",
        Text(
            "Disk cache for compiled operators: enable (GE default) reuses it, force rebuilds and refreshes it, "
            "disable turns it off.",
            "算子编译磁盘缓存模式:enable(GE 默认)复用缓存,force 强制重新编译并刷新缓存,disable 关闭缓存。",
        ),
        caveats=(
            Text(
                "The adapter does not check this value; an unknown mode is only rejected later by GE.",
                "适配器不校验该值;未知的取值要到 GE 中才会报错。",
            ),
            _GE_INIT_ONCE,
        ),
        loads_code=None,
    ),
    _option(
        "op_compiler_cache_dir",
        COMPILATION,
        OptionalOf(FileSystemPath()),
        "None",
        Text(
            "Directory of the operator compile cache; a kernel_cache subfolder is created in it (and the directory "
            "itself if needed). Defaults to $HOME/atc_data.",
            "算子编译磁盘缓存的目录,会在其中创建 kernel_cache 子目录(目录不存在时自动创建)。默认 $HOME/atc_data。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=LOADS_COMPILED_CODE,
    ),
    # Data augmentation
    _option(
        "local_rank_id",
        DATA_AUGMENTATION,
        OptionalOf(Integer(minimum=0, maximum=7)),
        "None",
        Text(
            "For data-parallel recommendation networks: the rank within the server whose process deduplicates and "
            "preprocesses the data for the other devices (get it from get_local_rank_id()).",
            "用于推荐网络的数据并行:指定本服务器内负责去重与预处理数据、再分发给其他设备的主进程的 rank 编号"
            "(可通过 get_local_rank_id() 获取)。",
        ),
        loads_code=None,
    ),
    _option(
        "local_device_list",
        DATA_AUGMENTATION,
        OptionalOf(Pattern(r"\d+(,\d+)*", Text("comma-separated device IDs", "以逗号分隔的设备 ID"),
                           examples=("0,1",))),
        "None",
        Text(
            "Used with local_rank_id: the devices the main process sends preprocessed data to, such as '0,1'.",
            "与 local_rank_id 配合使用:主进程把预处理后的数据发送给哪些设备,例如 '0,1'。",
        ),
        loads_code=None,
    ),
    # Exception remedy
    _option(
        "hccl_timeout",
        EXCEPTION_REMEDY,
        OptionalOf(Integer(minimum=0)),
        "None",
        Text(
            "Timeout in seconds for collective communication; raise it when communication fails by timing out. It "
            "overrides the HCCL_EXEC_TIMEOUT environment variable.",
            "集合通信超时时间(秒);出现通信超时失败时可调大。它会覆盖环境变量 HCCL_EXEC_TIMEOUT。",
        ),
        caveats=(
            Text(
                "Older docs give the default as 1800 s, newer ones 1836 s; on Atlas training products the value "
                "is rounded down to a multiple of 68 s within (0, 17340].",
                "旧文档写默认值为 1800 秒,较新的文档为 1836 秒;在 Atlas 训练系列产品上取值范围为 (0, 17340],"
                "并向下取整为 68 秒的整数倍。",
            ),
        ),
        loads_code=None,
    ),
    _option(
        "op_wait_timeout",
        EXCEPTION_REMEDY,
        OptionalOf(Integer(minimum=0)),
        "None",
        Text(
            "Timeout in seconds for an operator waiting to run (the docs' default is 120).",
            "算子等待超时时间(秒,文档默认 120)。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=None,
    ),
    _option(
        "op_execute_timeout",
        EXCEPTION_REMEDY,
        OptionalOf(Integer(minimum=0)),
        "None",
        Text(
            "Timeout in seconds for an operator's execution.",
            "算子执行超时时间(秒)。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=None,
    ),
    _option(
        "stream_sync_timeout",
        EXCEPTION_REMEDY,
        Integer(minimum=-1),
        "-1",
        Text(
            "Timeout in ms for stream synchronisation during graph execution; -1 (default) waits forever and reports "
            "no error. In cluster training it must exceed hccl_timeout or HCCL_EXEC_TIMEOUT.",
            "图执行时 stream 同步等待的超时时间(毫秒);-1(默认)表示一直等待且不报错。集群训练时必须大于 "
            "hccl_timeout 或 HCCL_EXEC_TIMEOUT。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=None,
    ),
    _option(
        "event_sync_timeout",
        EXCEPTION_REMEDY,
        Integer(minimum=-1),
        "-1",
        Text(
            "Timeout in ms for event synchronisation during graph execution; -1 (default) waits forever and reports "
            "no error.",
            "图执行时 event 同步等待的超时时间(毫秒);-1(默认)表示一直等待且不报错。",
        ),
        caveats=(_GE_INIT_ONCE,),
        loads_code=None,
    ),
    # Model compression
    _option(
        "enable_compress_weight",
        COMPRESSION,
        _BOOL,
        "False",
        Text(
            "Switch for compressing the weights of the whole network.",
            "对整个网络的权重进行压缩的开关。",
        ),
        caveats=(_UNSUPPORTED,),
        loads_code=None,
    ),
    _option(
        "compress_weight_conf",
        COMPRESSION,
        OptionalOf(_FILE),
        "None",
        Text(
            "File listing the nodes whose weights should be compressed.",
            "列出需要压缩权重的节点的配置文件。",
        ),
        caveats=(
            _UNSUPPORTED,
            Text(
                "NPUEstimator always passes enable_compress_weight as well, so setting this keyword trips the "
                "adapter's check that the two cannot be used together.",
                "NPUEstimator 总会同时传入 enable_compress_weight,因此设置此参数会触发适配器中“二者不能同时使用”的"
                "检查。",
            ),
        ),
        loads_code=None,
    ),
    # Experiment parameters
    _option(
        "jit_compile",
        EXPERIMENTAL,
        Choice(("true", "false", "auto")),
        "'auto'",
        Text(
            "Whether compilation builds operators online (true, tuned for the graph) or first looks for prebuilt "
            "operator binaries (false); auto compiles online for static shapes and prefers binaries for dynamic "
            "shapes.",
            "模型编译时优先在线编译算子(true,可结合图信息优化),还是优先使用已编译好的算子二进制(false);auto 对静态 "
            "shape 在线编译,对动态 shape 优先查找二进制。",
        ),
        caveats=(
            Text(
                "It must be the string 'true', 'false' or 'auto': NPURunConfig raises TypeError for a bool.",
                "必须是字符串 'true'、'false' 或 'auto':传入 bool 时 NPURunConfig 会抛出 TypeError。",
            ),
        ),
        loads_code=None,
    ),
    # Deprecated in later versions
    _option(
        "enable_data_pre_proc",
        DEPRECATED,
        _BOOL,
        "True",
        Text(
            "Whether the GetNext operator is sunk to the NPU; sinking it is required to run training loops on the "
            "device.",
            "是否将 GetNext 算子下沉到 NPU 执行;它是训练迭代循环下沉的前提。",
        ),
        caveats=(_DEPRECATED,),
        loads_code=None,
    ),
    _option(
        "variable_format_optimize",
        DEPRECATED,
        OptionalOf(_BOOL),
        "None",
        Text(
            "Convert variables to a data layout that suits the NPU better while they are initialised; None leaves it "
            "unset.",
            "在变量初始化时把变量转换为更适合 NPU 的数据格式;None 表示不配置。",
        ),
        caveats=(_DEPRECATED,),
        loads_code=None,
    ),
    _option(
        "op_debug_level",
        DEPRECATED,
        OptionalOf(Integer(minimum=0, maximum=4)),
        "None",
        Text(
            "Operator debug level for compilation: 0 off, 1 to 4 keep increasing amounts of debug information in the "
            "compiled operators.",
            "算子编译调试级别:0 关闭,1 到 4 在编译出的算子中保留越来越多的调试信息。",
        ),
        caveats=(_DEPRECATED, _GE_INIT_ONCE),
        replaced_by="op_debug_config",
        loads_code=None,
    ),
    _option(
        "op_select_implmode",
        DEPRECATED,
        OptionalOf(Choice(("high_precision", "high_performance", "high_precision_for_all",
                           "high_performance_for_all"))),
        "None",
        Text(
            "Whether built-in operators that have two implementations use the high-precision or the high-performance "
            "one.",
            "对有高精度和高性能两种实现的内置算子,选择使用哪一种。",
        ),
        caveats=(_DEPRECATED,),
        replaced_by="op_precision_mode",
        loads_code=None,
    ),
    _option(
        "optypelist_for_implmode",
        DEPRECATED,
        OptionalOf(FreeText()),
        "None",
        Text(
            "Comma-separated operator types (such as Pooling, SoftmaxV2, LRN, ROIAlign) that use the mode chosen by "
            "op_select_implmode, which must also be set.",
            "使用 op_select_implmode 所选模式的算子类型列表(如 Pooling、SoftmaxV2、LRN、ROIAlign),以逗号分隔;"
            "必须同时设置 op_select_implmode。",
        ),
        caveats=(_DEPRECATED,),
        replaced_by="op_precision_mode",
        loads_code=None,
    ),
    _option(
        "dynamic_input",
        DEPRECATED,
        OptionalOf(_BOOL),
        "None",
        Text(
            "Whether the network's inputs have dynamic shapes.",
            "网络输入是否为动态 shape。",
        ),
        caveats=(
            _DEPRECATED,
            Text(
                "The docs recommend set_graph_exec_config for dynamic inputs, since this setting covers a single graph "
                "only.",
                "文档建议改用 set_graph_exec_config 支持动态输入,因为此配置只针对单张图。",
            ),
        ),
        loads_code=None,
    ),
    _option(
        "dynamic_graph_execute_mode",
        DEPRECATED,
        Choice(("dynamic_execute", "lazy_recompile")),
        "'dynamic_execute'",
        Text(
            "Execution mode for dynamic inputs, used only when dynamic_input is True: dynamic_execute compiles once "
            "for the shape ranges given in dynamic_inputs_shape_range.",
            "动态输入时的执行模式,仅在 dynamic_input 为 True 时生效:dynamic_execute 按 dynamic_inputs_shape_range "
            "中的 shape 范围编译。",
        ),
        caveats=(
            _DEPRECATED,
            Text(
                "The doc lists only dynamic_execute; the source also accepts lazy_recompile.",
                "文档只列出 dynamic_execute,源码还接受 lazy_recompile。",
            ),
        ),
        loads_code=None,
    ),
    _option(
        "dynamic_inputs_shape_range",
        DEPRECATED,
        OptionalOf(FreeText()),
        "None",
        Text(
            "Shape ranges of the dynamic inputs, for example 'getnext:[128,3~5,2~128,-1];data:[128,3~5,2~128,-1]'.",
            "动态输入的 shape 范围,例如 'getnext:[128,3~5,2~128,-1];data:[128,3~5,2~128,-1]'。",
        ),
        caveats=(_DEPRECATED,),
        loads_code=None,
    ),
    _option(
        "graph_memory_max_size",
        DEPRECATED,
        OptionalOf(Size()),
        "None",
        Text(
            "Formerly the size in bytes of static plus maximum dynamic graph memory; memory is now requested as the "
            "network needs it.",
            "旧版本中用于指定网络静态内存与最大动态内存的大小(字节);现在系统按实际需要动态申请内存。",
        ),
        caveats=(
            Text(
                "The docs say it no longer has any effect, although the adapter still passes it on to GE.",
                "文档说明它已不再生效,尽管适配器仍会把它传给 GE。",
            ),
        ),
        loads_code=None,
    ),
    _option(
        "variable_memory_max_size",
        DEPRECATED,
        OptionalOf(Size()),
        "None",
        Text(
            "Formerly the size in bytes of variable memory; memory is now requested as the network needs it.",
            "旧版本中用于指定变量内存的大小(字节);现在系统按实际需要动态申请内存。",
        ),
        caveats=(
            Text(
                "The docs say it no longer has any effect, although the adapter still passes it on to GE.",
                "文档说明它已不再生效,尽管适配器仍会把它传给 GE。",
            ),
        ),
        loads_code=None,
    ),
    # Environment variables
    _variable(
        "ASCEND_DEVICE_ID",
        category=DEVICES,
        type=Integer(minimum=0),
        default="0",
        when=ReadWhen.FIRST_USE,
        read_at="tf_adapter/util/npu_attrs.cc : GetEnvDeviceID() ← GePlugin::Init()",
        first_use=_GE_INIT,
        description=Text(
            "Logical ID of the NPU this process uses.",
            "本进程使用的 NPU 的逻辑 ID。",
        ),
        caveats=(_DEVICE_PRIORITY,),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "DEVICE_ID",
        category=DEVICES,
        type=Integer(minimum=0),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at="tf_adapter/util/npu_attrs.cc : GetEnvDeviceID() ← GePlugin::Init()",
        first_use=_GE_INIT,
        description=Text(
            "Physical ID of the NPU, used only when ASCEND_DEVICE_ID is unset; the adapter converts it to a logical "
            "ID.",
            "NPU 的物理 ID,仅在未设置 ASCEND_DEVICE_ID 时使用;适配器会把它转换为逻辑 ID。",
        ),
        caveats=(_DEVICE_PRIORITY,),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "AOE_MODE",
        category=AOE,
        type=Choice(("1", "2", "4")),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at="tf_adapter/util/npu_attrs.cc : NpuAttrs::SetNpuOptimizerAttr()",
        first_use=_GE_INIT,
        description=Text(
            "AOE tuning mode taken from the environment: '1' subgraph, '2' operator, '4' gradient-split tuning.",
            "从环境变量读取的 AOE 调优模式:'1' 子图调优,'2' 算子调优,'4' 梯度切分调优。",
        ),
        caveats=(
            Text(
                "Read only when NPURunConfig has no aoe_mode; the keyword wins when both are set.",
                "只有 NPURunConfig 未设置 aoe_mode 时才读取;两者同时设置时以参数为准。",
            ),
        ),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "HCCL_EXEC_TIMEOUT",
        category=EXCEPTION_REMEDY,
        type=Integer(minimum=0),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at=Text(
            "HCCL runtime : communicator initialisation (not read by tf_adapter itself)",
            "HCCL 运行时 : 通信域初始化时(tf_adapter 自身不读取)",
        ),
        first_use=Text("HCCL communicator initialisation", "HCCL 通信域初始化时"),
        description=Text(
            "Timeout in seconds that HCCL waits for collective communication between devices.",
            "HCCL 设备间集合通信的等待超时时间(秒)。",
        ),
        caveats=(
            Text(
                "The TF adapter never reads it; HCCL does. The hccl_timeout keyword of NPURunConfig supersedes it when "
                "set.",
                "TF 适配器本身不读取它,由 HCCL 读取。NPURunConfig 设置了 hccl_timeout 时以该参数为准。",
            ),
        ),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "RANK_ID",
        category=DISTRIBUTED,
        type=Integer(minimum=0),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at="tf_adapter/util/ge_plugin.cc : GePlugin::Init()",
        first_use=_GE_INIT,
        description=Text(
            "Rank of this process within the distributed training job.",
            "本进程在分布式训练任务中的 rank 编号。",
        ),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "RANK_SIZE",
        category=DISTRIBUTED,
        type=Integer(minimum=1),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at="tf_adapter/util/ge_plugin.cc : GePlugin::Init()",
        first_use=_GE_INIT,
        description=Text(
            "Number of processes (devices) taking part in the distributed training job.",
            "参与分布式训练任务的进程(设备)总数。",
        ),
        extra=True,
        loads_code=None,
    ),
)

# Its entries are NPURunConfig's keyword arguments, not variables: how every front end words them (catalog/_options.py).
KEYWORD_OPTIONS = KeywordOptions(
    export_key="npu_run_config",
    label=Text("NPURunConfig option", "NPURunConfig 参数"),
    keyword=Text("NPURunConfig keyword", "NPURunConfig 关键字参数"),
    passed=Text("passed to NPURunConfig(**session().npu_run_config_kwargs())",
                "通过 NPURunConfig(**session().npu_run_config_kwargs()) 传入"),
    recorded=Text("recorded: NPURunConfig({name}={value}, ...) via mgenv_jupyter.session().npu_run_config_kwargs()",
                  "已记录:通过 mgenv_jupyter.session().npu_run_config_kwargs() 得到 NPURunConfig({name}={value}, ...)"),
    removed=Text("removed from the NPURunConfig options", "已从 NPURunConfig 参数中移除"),
    not_variable=Text("{name} is an NPURunConfig option, not an environment variable: a sweep sets each point's "
                      "environment", "{name} 是 NPURunConfig 选项,不是环境变量:扫描设置的是每个点的环境"),
)
