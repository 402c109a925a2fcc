"""JAX 0.10 variables, as the source reads them (checked against the jax[cpu] 0.10.2 wheel).

Two reading moments: `import jax` copies every `JAX_*` option into `jax.config` (jax/_src/config.py reads
`os.getenv(NAME.upper())` when each option is defined), and the backend's initialisation — the first operation or
`jax.devices()`, not the import — reads `XLA_FLAGS` and, through the CUDA plugin, the `XLA_PYTHON_CLIENT_*` memory
settings. `jax.config.update` changes options live; a few (platforms, CPU device count) only matter until the backend
is initialised.
"""

from __future__ import annotations

from ..base._text import Text
from ._allocators import Allocator
from ._entry import EntryFactory, ReadWhen
from ._memtrace import MemtraceFacts, Recording
from ._out_of_memory import Fixed, OutOfMemoryFacts, OwnCause, Remedy, ShareOfRoom, Unless
from ._rules import Conflict
from ._values import Choice, Integer, Number, Pattern, Switch

VERSION = "jax 0.10.2"
MEMORY = Text("GPU memory (XLA client)", "显存(XLA 客户端)")
BACKEND = Text("Backend and devices", "后端与设备")
OPTIONS = Text("jax.config options", "jax.config 选项")

_PLUGIN_OPTIONS = Text(
    f"jaxlib/xla_client.py : generate_pjrt_gpu_plugin_options() ({VERSION}), called by the CUDA plugin",
    f"jaxlib/xla_client.py : generate_pjrt_gpu_plugin_options()({VERSION}),由 CUDA 插件调用",
)


def _config(state: str) -> Text:
    """Where jax/_src/config.py defines the option `state`: it reads the variable with os.getenv at `import jax`."""
    return Text(f"jax/_src/config.py : {state} (os.getenv at `import jax`, {VERSION})",
                f"jax/_src/config.py : {state}(在 `import jax` 时由 os.getenv 读取,{VERSION})")


_BACKEND_INIT = Text(
    "the backend's initialisation (the first JAX operation or jax.devices())",
    "后端初始化时(第一次 JAX 运算或调用 jax.devices())",
)
_GPU_ONLY = Text(
    "Read only by the CUDA (or ROCm) plugin: a CPU-only JAX never reads it.",
    "只有 CUDA(或 ROCm)插件读取它:仅 CPU 的 JAX 从不读取。",
)
_BOTH_FRACTIONS = Text(
    "Setting both XLA_CLIENT_MEM_FRACTION and XLA_PYTHON_CLIENT_MEM_FRACTION makes the backend's initialisation fail "
    "with ValueError, so they are refused together here.",
    "同时设置 XLA_CLIENT_MEM_FRACTION 与 XLA_PYTHON_CLIENT_MEM_FRACTION 会让后端初始化抛出 ValueError,"
    "因此这里不允许同时设置。",
)

_client = EntryFactory("jax", readers=("jax",), when=ReadWhen.FIRST_USE, read_at=_PLUGIN_OPTIONS,
                       latch="jax.backends")
_option = EntryFactory("jax", readers=("jax",), when=ReadWhen.IMPORT, live_api="jax.config.update")

ENTRIES = (
    # ---- GPU memory ---------------------------------------------------------------------------------------------
    _client(
        "XLA_PYTHON_CLIENT_PREALLOCATE",
        category=MEMORY,
        type=Switch(on="true", off="false"),
        default="true",
        first_use=_BACKEND_INIT,
        description=Text(
            "Take a large share of GPU memory when the backend starts (the default) instead of allocating on demand.",
            "后端启动时预先占用大部分显存(默认),而不是按需分配。",
        ),
        caveats=(_GPU_ONLY, Text(
            'Only "false", "False" and "0" turn preallocation off: "no", "off" or "FALSE" leave it ON. Written as '
            "false here.",
            '只有 "false"、"False"、"0" 会关闭预分配:"no"、"off"、"FALSE" 都会让它保持开启。这里统一写成 false。')),
        extra=True,
        loads_code=None,
    ),
    _client(
        "XLA_CLIENT_MEM_FRACTION",
        category=MEMORY,
        type=Number(minimum=0.0, maximum=1.0),
        default="0.75",
        first_use=_BACKEND_INIT,
        description=Text(
            "Share of the GPU's memory to preallocate (0.75 by default).",
            "预分配的显存占 GPU 总显存的比例(默认 0.75)。",
        ),
        caveats=(_GPU_ONLY, _BOTH_FRACTIONS),
        extra=True,
        loads_code=None,
    ),
    _client(
        "XLA_PYTHON_CLIENT_MEM_FRACTION",
        category=MEMORY,
        type=Number(minimum=0.0, maximum=1.0),
        default="0.75",
        first_use=_BACKEND_INIT,
        description=Text(
            "The older name of XLA_CLIENT_MEM_FRACTION; JAX calls it deprecated but still reads it.",
            "XLA_CLIENT_MEM_FRACTION 的旧名;JAX 称其已弃用,但仍会读取。",
        ),
        caveats=(_GPU_ONLY, _BOTH_FRACTIONS),
        extra=True,
        loads_code=None,
    ),
    _client(
        "XLA_PYTHON_CLIENT_ALLOCATOR",
        category=MEMORY,
        type=Choice(("default", "platform", "bfc", "cuda_async", "vmm")),
        default="default",
        first_use=_BACKEND_INIT,
        description=Text(
            "The GPU allocator: platform allocates and frees exactly on demand (slow, no caching, good for "
            "debugging), bfc is XLA's pool, cuda_async CUDA's stream-ordered allocator.",
            "GPU 分配器:platform 严格按需分配和释放(慢、无缓存,适合调试),bfc 为 XLA 的内存池,"
            "cuda_async 为 CUDA 的流序分配器。",
        ),
        caveats=(_GPU_ONLY, Text(
            "Any other value makes the backend's initialisation fail with ValueError.",
            "其他取值会让后端初始化抛出 ValueError。")),
        extra=True,
        loads_code=None,
    ),
    # ---- Backend and devices ------------------------------------------------------------------------------------
    _client(
        "XLA_FLAGS",
        category=BACKEND,
        type=Pattern(
            regex=r"(--[A-Za-z0-9_]+(=\S*)?)(\s+--[A-Za-z0-9_]+(=\S*)?)*",
            description=Text("space-separated XLA flags, each --name or --name=value",
                             "以空格分隔的 XLA 参数,每个写成 --name 或 --name=value"),
            examples=("--xla_force_host_platform_device_count=4", "--xla_dump_to=/tmp/xla"),
        ),
        default=None,
        read_at=Text(
            "xla/parse_flags_from_env.cc : ParseFlagsFromEnvAndDieIfUnknown (once, absl::call_once), reached "
            f"when the backend initialises ({VERSION})",
            "xla/parse_flags_from_env.cc : ParseFlagsFromEnvAndDieIfUnknown(只执行一次,absl::call_once),后端初始化时"
            f"到达此处({VERSION})",
        ),
        first_use=_BACKEND_INIT,
        description=Text(
            "Flags for the XLA compiler and runtime, such as --xla_force_host_platform_device_count=4 (4 CPU "
            "devices) or --xla_dump_to=DIR.",
            "XLA 编译器与运行时的参数,例如 --xla_force_host_platform_device_count=4(4 个 CPU 设备)或 "
            "--xla_dump_to=目录。",
        ),
        caveats=(Text(
            "An unknown flag aborts the whole process at the backend's initialisation (\"Unknown flag in XLA_FLAGS\"): "
            "the kernel dies. Only the form is checked here, not the flag names.",
            "未知参数会在后端初始化时让整个进程中止(\"Unknown flag in XLA_FLAGS\"),内核随之退出。这里只检查格式,"
            "不检查参数名。"),),
        extra=True,
        loads_code=None,
    ),
    _option(
        "JAX_PLATFORMS",
        category=BACKEND,
        type=Pattern(
            regex=r"[a-z]+(,[a-z]+)*",
            description=Text("comma-separated platform names, the first being the default",
                             "以逗号分隔的平台名,第一个为默认平台"),
            examples=("cpu", "cuda", "cuda,cpu", "tpu"),
            lower=True,
        ),
        default=None,
        read_at=_config("jax_platforms = optional_string_state(...)"),
        first_use=_BACKEND_INIT,
        latch="jax.backends",
        description=Text(
            "Which platforms JAX initialises (cpu, cuda, tpu, ...); the first is the default device's.",
            "JAX 要初始化哪些平台(cpu、cuda、tpu 等);第一个为默认设备所在的平台。",
        ),
        caveats=(Text(
            "After the backend is initialised jax.config.update('jax_platforms', ...) is accepted without error but "
            "has no effect, so it is not applied live then.",
            "后端初始化之后,jax.config.update('jax_platforms', ...) 不会报错,但也不起作用,因此那时不再实时应用。"),),
        extra=True,
        loads_code=None,
    ),
    _option(
        "JAX_NUM_CPU_DEVICES",
        category=BACKEND,
        type=Integer(minimum=-1),
        default="-1",
        read_at=Text(
            "jax/_src/xla_bridge.py : num_cpu_devices = config.int_state(...) (os.getenv at `import jax`, "
            f"{VERSION})",
            "jax/_src/xla_bridge.py : num_cpu_devices = config.int_state(...)(在 `import jax` 时由 os.getenv 读取,"
            f"{VERSION})",
        ),
        first_use=_BACKEND_INIT,
        latch="jax.backends",
        description=Text(
            "How many CPU devices the CPU backend creates (-1: as --xla_force_host_platform_device_count in "
            "XLA_FLAGS says, one by default).",
            "CPU 后端创建的 CPU 设备数(-1 表示按 XLA_FLAGS 中的 --xla_force_host_platform_device_count,默认一个)。",
        ),
        caveats=(Text(
            "jax.config.update raises RuntimeError once the backend is initialised.",
            "后端初始化之后 jax.config.update 会抛出 RuntimeError。"),),
        extra=True,
        loads_code=None,
    ),
    # ---- jax.config options -------------------------------------------------------------------------------------
    _option(
        "JAX_ENABLE_X64",
        category=OPTIONS,
        type=Switch(on="true", off="false"),
        default="false",
        read_at=_config("enable_x64 = bool_state(...)"),
        description=Text(
            "Use 64-bit floats and integers by default (float64 arrays instead of float32).",
            "默认使用 64 位浮点与整数(数组为 float64 而非 float32)。",
        ),
        caveats=(Text(
            "JAX accepts 1/0, true/false, yes/no, on/off, y/n, t/f in any case; anything else makes `import jax` fail.",
            "JAX 接受任意大小写的 1/0、true/false、yes/no、on/off、y/n、t/f;其他取值会让 `import jax` 失败。"),),
        extra=True,
        loads_code=None,
    ),
    _option(
        "JAX_DEBUG_NANS",
        category=OPTIONS,
        type=Switch(on="true", off="false"),
        default="false",
        read_at=_config("debug_nans = bool_state(...)"),
        description=Text(
            "Check every operation's output for NaN and raise where one first appears (slow).",
            "检查每个运算的输出是否有 NaN,并在第一次出现处抛出异常(会变慢)。",
        ),
        extra=True,
        loads_code=None,
    ),
    _option(
        "JAX_DISABLE_JIT",
        category=OPTIONS,
        type=Switch(on="true", off="false"),
        default="false",
        read_at=_config("disable_jit = bool_state(...)"),
        description=Text(
            "Run jit-decorated functions eagerly, op by op (for debugging with print and pdb).",
            "让 jit 修饰的函数逐个算子 eager 运行(便于用 print 和 pdb 调试)。",
        ),
        extra=True,
        loads_code=None,
    ),
    _option(
        "JAX_DEFAULT_MATMUL_PRECISION",
        category=OPTIONS,
        type=Choice(("default", "high", "highest", "bfloat16", "tensorfloat32", "float32")),
        default=None,
        read_at=_config("default_matmul_precision = optional_enum_state(...)"),
        description=Text(
            "Default precision of matrix multiplications and convolutions on 32-bit inputs (TPU and GPU trade "
            "speed for accuracy).",
            "32 位输入的矩阵乘与卷积的默认精度(TPU 与 GPU 上以速度换精度)。",
        ),
        caveats=(Text(
            "JAX also accepts the explicit algorithm names (BF16_BF16_F32, TF32_TF32_F32, ...), which are not offered "
            "here.",
            "JAX 还接受显式算法名(BF16_BF16_F32、TF32_TF32_F32 等),这里未列出。"),),
        extra=True,
        loads_code=None,
    ),
    _option(
        "JAX_LOG_COMPILES",
        category=OPTIONS,
        type=Switch(on="true", off="false"),
        default="false",
        read_at=_config("log_compiles = bool_state(...)"),
        description=Text(
            "Log a message (with the Python location) each time jit compiles a function.",
            "每次 jit 编译函数时记录一条消息(含 Python 代码位置)。",
        ),
        extra=True,
        loads_code=None,
    ),
)

CONFLICTS = (
    Conflict(("XLA_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_MEM_FRACTION"), _BOTH_FRACTIONS),
)

# What giving memory back (`%memfree`, `last_oom().free()`) says of JAX, which it does not ask.
CACHE_KEPT = Text("JAX: not asked (no call gives its pool back without deleting live arrays; an array's buffer is "
                  "freed when the array is collected)",
                  "JAX:未调用(没有在不删除现有数组的情况下归还内存池的接口;数组被回收时其缓冲区即释放)")

# JAX's two names for its memory share, newest first (the catalog refuses both at once; each defaults to 0.75).
FRACTION_NAMES = ("XLA_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_MEM_FRACTION")

# What the out-of-memory report says of JAX (catalog/_out_of_memory.py). Preallocation is off only for "false",
# "False" and "0" in JAX's own reading (the entry's caveat): a value set in any other case leaves it on.
OUT_OF_MEMORY = OutOfMemoryFacts(
    causes=(OwnCause("cap", 0.75, Text(
        "JAX's allocator takes at most {fraction:.0%} of the GPU ({cap}); {room} is not held by other processes",
        "JAX 的分配器最多使用 GPU 的 {fraction:.0%}({cap});未被其他进程占用的显存有 {room}")),),
    remedies=(
        Remedy(("cap",), (ShareOfRoom(FRACTION_NAMES, 0.95, 0.05),), Text(
            "JAX's allocator may then take this share of the GPU", "JAX 的分配器可以使用 GPU 的这一比例")),
        Remedy(("cap",), (Fixed("XLA_PYTHON_CLIENT_PREALLOCATE", "false", Unless.READ_ANY_CASE),), Text(
            "JAX allocates as it goes instead of taking its whole share at the start",
            "JAX 按需分配,而不是一开始就占满其份额")),
    ),
)

# Where its memory was allocated, as the allocation sites ask (catalog/_memtrace.py).
MEMTRACE = MemtraceFacts("jax", Recording.ALWAYS, Text(
    "JAX keeps the Python stack of every live buffer (jax.profiler.device_memory_profile), always",
    "JAX 始终记录每个存活缓冲区的 Python 调用栈(jax.profiler.device_memory_profile)"),
    kept_on=Text("JAX: always recorded (its device memory profile)", "JAX:始终记录(其设备内存分析)"),
    after_off=Text("JAX still keeps its own record", "JAX 仍保留其自身的记录"))

# Its allocator's settings as AllocatorWidget groups them (catalog/_allocators.py).
ALLOCATOR = Allocator(
    Text("JAX GPU memory (XLA client)", "JAX 显存(XLA 客户端)"),
    latching=Text(
        "JAX reads these when its backend initialises — the first operation or jax.devices(), not the import — and "
        "only a GPU backend uses them; after that a change waits for a restart.",
        "JAX 在后端初始化时(第一次运算或 jax.devices(),而非 import 时)读取这些变量,且只有 GPU 后端使用它们;"
        "此后修改要等重启才生效。",
    ),
    category="GPU memory",
)
