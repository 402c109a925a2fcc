"""MegEngine's DTR (dynamic tensor rematerialization) variables: eager-mode memory saving by evicting tensors and
recomputing them when needed. All are interpreter options read once while `import megengine` runs."""

from __future__ import annotations

from ..base._text import Text
from ._entry import EntryFactory, ReadWhen
from ._megengine import INTEGERS_ONLY_CAVEAT, OPTION_MANAGER, RELEASE_BUILD_CAVEAT
from ._out_of_memory import BytesOfRoom, Fixed, OutOfMemoryFacts, OwnCause, Remedy
from ._rules import Group
from ._values import Size, Switch

READERS = ("megengine",)
DTR = Text("DTR (dynamic tensor rematerialization)", "DTR 相关")

DTR_PEAK_CAVEAT = Text(
    "The eviction threshold is a trigger, not a memory cap. DTR only keeps the total size of live tensors near the "
    "threshold; the memory it frees is scattered, so when no free block is large enough MegEngine asks CUDA for more "
    "and the reserved peak grows. The peak seen in nvidia-smi is therefore usually well above the threshold, and it "
    "cannot be predicted from it: a very low threshold forces constant eviction and recomputation, which can raise "
    "the peak as well as the run time.",
    "驱逐阈值只是触发条件,不是显存上限。DTR 只保证活跃 tensor 的总大小停留在阈值附近;被释放的显存在地址上并不连续,"
    "当没有足够大的空闲块时 MegEngine 会再向 CUDA 申请新显存,于是占用峰值继续上升。因此 nvidia-smi 中看到的峰值通常"
    "明显高于阈值,而且无法由阈值推算:阈值过低会导致不停地释放与重算,不但更慢,峰值也可能更高。",
)
_BELOW_CAPACITY = Text(
    "Keep the threshold clearly below the GPU's memory. Close to the capacity the freed blocks are too fragmented to "
    "serve new requests, so MegEngine keeps defragmenting and training slows down sharply; at or above it even a "
    "single kernel may not fit and the run fails with out-of-memory.",
    "阈值要明显低于显卡容量。接近容量时,被释放的显存块过于零散,无法满足新的申请,MegEngine 会反复整理碎片,"
    "训练显著变慢;达到或超过容量时连一次 kernel 计算都可能放不下,最终 OOM。",
)
_PYTHON_CACHE_GETTER = Text(
    "megengine.dtr's getter returns the value last set from Python, not the one the interpreter uses: after setting "
    "only the environment variable it still shows the default.",
    "megengine.dtr 的读取接口返回的是 Python 端最后一次设置的值,而不是解释器实际使用的值:只设置了环境变量时,"
    "它显示的仍是默认值。",
)
_NOT_MARKED_ONCE = Text(
    "The docs do not mark it as read only once, but the environment variable is read only when `import megengine` "
    "starts the interpreter; change it afterwards through megengine.dtr.",
    "文档没有把它标为“仅首次设置生效”,但环境变量只在 `import megengine` 启动解释器时读取一次;之后请通过 "
    "megengine.dtr 修改。",
)
_TRACED_GRAPHS = Text(
    "These options act on eager (imperative) execution; for traced graphs pass megengine.jit.DTRConfig(...) to "
    "trace instead.",
    "这些选项作用于动态图执行;trace 出的静态图请改为向 trace 传入 megengine.jit.DTRConfig(...)。",
)
_DTR_ENABLE_SETS = Text(
    "megengine.dtr.enable() turns on enable_drop, enable_dtr_auto_drop and record_computing_path together; "
    "megengine.dtr.disable() turns them off and clears the candidates. With megengine.distributed.launcher, call it "
    "inside the launched function, since each worker is a separate process.",
    "megengine.dtr.enable() 会同时打开 enable_drop、enable_dtr_auto_drop 和 record_computing_path;"
    "megengine.dtr.disable() 会将它们关闭并清空候选集合。使用 megengine.distributed.launcher 时,需在被包装的函数内"
    "调用,因为每个 worker 都是独立进程。",
)

# megengine.dtr.enable() sets these three options together; disable() clears them and the eviction candidates.
DTR_SWITCH = Group(
    "megengine.dtr",
    "megengine",
    label=Text("DTR enabled", "启用 DTR"),
    help=Text(
        "As megengine.dtr.enable() / disable(): turns MEGENGINE_ENABLE_DROP, MEGENGINE_DTR_AUTO_DROP and "
        "MEGENGINE_RECORD_COMPUTING_PATH on or off together (disable() also clears the eviction candidates).",
        "等同于 megengine.dtr.enable() / disable():同时打开或关闭 MEGENGINE_ENABLE_DROP、MEGENGINE_DTR_AUTO_DROP 和 "
        "MEGENGINE_RECORD_COMPUTING_PATH(disable() 还会清空驱逐候选集合)。",
    ),
    members=("MEGENGINE_ENABLE_DROP", "MEGENGINE_DTR_AUTO_DROP", "MEGENGINE_RECORD_COMPUTING_PATH"),
    live_api="megengine.dtr.enable",
)
GROUPS = (DTR_SWITCH,)

_variable = EntryFactory("megengine", readers=READERS, read_at=OPTION_MANAGER, when=ReadWhen.IMPORT)

ENTRIES = (
    _variable(
        "MEGENGINE_ENABLE_SWAP",
        category=DTR,
        type=Switch(),
        default=None,
        when=ReadWhen.NOT_READ,
        read_at=Text(f"{OPTION_MANAGER.en} (option removed in v1.7.0)",
                     f"{OPTION_MANAGER.zh}(该选项已在 v1.7.0 移除)"),
        description=Text(
            "Was meant to let DTR swap tensors out to host memory; swapping no longer exists, so it does nothing.",
            "原本用于让 DTR 把 tensor 换出到主机内存;swap 功能已不存在,设置它没有任何效果。",
        ),
        caveats=(
            Text(
                'Not read since v1.7.0: swapping was removed from DTR (commit d909950f6 "remove swap in dtr"), '
                "although the docs still list the variable.",
                '自 v1.7.0 起不再读取:swap 已从 DTR 中移除(提交 d909950f6 "remove swap in dtr"),但文档仍然列出该变量。',
            ),
        ),
        replaced_by="megengine.dtr.enable()",
        loads_code=None,
    ),
    _variable(
        "MEGENGINE_ENABLE_DROP",
        category=DTR,
        type=Switch(),
        default="0",
        description=Text(
            "Allows DTR to drop (evict) tensors and recompute them later from their recorded computing path.",
            "允许 DTR 释放(drop)tensor 的显存,需要时再按记录的计算路径重新计算。",
        ),
        live_api="megengine.option:enable_drop",
        caveats=(_DTR_ENABLE_SETS, _TRACED_GRAPHS, INTEGERS_ONLY_CAVEAT, RELEASE_BUILD_CAVEAT),
        loads_code=None,
    ),
    _variable(
        "MEGENGINE_DTR_AUTO_DROP",
        category=DTR,
        type=Switch(),
        default="0",
        description=Text(
            "Lets DTR choose and evict tensors automatically when memory use passes the eviction threshold or an "
            "allocation fails.",
            "让 DTR 在显存占用超过驱逐阈值或申请失败时,自动挑选并释放 tensor。",
        ),
        live_api="megengine.option:enable_dtr_auto_drop",
        caveats=(_DTR_ENABLE_SETS, _TRACED_GRAPHS, INTEGERS_ONLY_CAVEAT, RELEASE_BUILD_CAVEAT),
        loads_code=None,
    ),
    _variable(
        "MEGENGINE_DTR_EVICTION_THRESHOLD",
        category=DTR,
        type=Size(),
        default="0",
        description=Text(
            "Bytes of live tensor memory above which DTR starts evicting the tensors its policy picks, until usage "
            "drops back under the threshold. 0 (default, allowed since v1.5) means DTR evicts only when free memory "
            "cannot satisfy an allocation, until that allocation succeeds.",
            "活跃 tensor 显存的阈值(字节):超过后 DTR 按其策略挑选 tensor 释放,直到占用回到阈值以下。"
            "0(默认,自 v1.5 起允许)表示只在空闲显存满足不了某次申请时才释放,直到该次申请成功。",
        ),
        live_api="megengine.dtr.eviction_threshold",
        caveats=(
            Text(
                'The C++ side parses the environment value with sscanf("%zu"), so "5GB" in the environment is read '
                "as 5 bytes. Sizes with units are converted to plain bytes here (5GB becomes 5368709120); the "
                'megengine.dtr.eviction_threshold API itself accepts "5GB".',
                'C++ 端用 sscanf("%zu") 解析环境变量,环境中写 "5GB" 会被读成 5 字节。这里会把带单位的大小换算成纯字节数'
                '(5GB 变为 5368709120);megengine.dtr.eviction_threshold 接口本身可以直接接受 "5GB"。',
            ),
            DTR_PEAK_CAVEAT,
            _BELOW_CAPACITY,
            _NOT_MARKED_ONCE,
            _PYTHON_CACHE_GETTER,
            _TRACED_GRAPHS,
            RELEASE_BUILD_CAVEAT,
        ),
        loads_code=None,
    ),
    _variable(
        "MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE",
        category=DTR,
        type=Size(),
        default="1048576",
        description=Text(
            "Smallest tensor, in bytes, that DTR may evict; smaller tensors are never candidates (default 1 MiB).",
            "DTR 可以释放的 tensor 的最小字节数;更小的 tensor 不会成为候选(默认 1 MiB)。",
        ),
        live_api="megengine.dtr.evictee_minimum_size",
        caveats=(
            Text(
                'Parsed with sscanf("%zu") like the threshold: units in the environment would be dropped ("1MB" '
                "read as 1), so sizes are converted to plain bytes here.",
                '与阈值一样用 sscanf("%zu") 解析:环境中的单位会被丢掉("1MB" 被读成 1),所以这里会换算成纯字节数。',
            ),
            _NOT_MARKED_ONCE,
            _PYTHON_CACHE_GETTER,
            RELEASE_BUILD_CAVEAT,
        ),
        loads_code=None,
    ),
    _variable(
        "MEGENGINE_DTR_SQRT_SAMPLING",
        category=DTR,
        type=Switch(),
        default="0",
        description=Text(
            "Speeds up DTR's choice of what to evict: with n candidate tensors, only about sqrt(n) of them are "
            "examined each time.",
            "加快 DTR 选择释放对象的速度:候选 tensor 有 n 个时,每次只考察约 sqrt(n) 个。",
        ),
        live_api="megengine.dtr.enable_sqrt_sampling",
        caveats=(
            Text(
                "Not in the environment-variable docs; only the megengine.dtr API is documented.",
                "环境变量文档中没有它;文档只介绍了 megengine.dtr 接口。",
            ),
            _PYTHON_CACHE_GETTER,
            INTEGERS_ONLY_CAVEAT,
            RELEASE_BUILD_CAVEAT,
        ),
        extra=True,
        loads_code=None,
    ),
)

# What the out-of-memory report says of MegEngine (catalog/_out_of_memory.py): running out with DTR off is a cause of
# its own (its adapter reads whether DTR is on), and DTR on, its threshold from what other processes leave, the
# remedy; 80% of that room leaves space above the trigger for what DTR cannot evict at once.
OUT_OF_MEMORY = OutOfMemoryFacts(
    causes=(OwnCause("dtr_off", 0.8, Text(
        "MegEngine ran out of GPU memory with DTR off: with DTR it evicts tensors and recomputes them instead of "
        "failing", "MegEngine 在未开启 DTR 时显存不足:开启 DTR 后它会释放 tensor、需要时重算,而不是直接失败"),
        label=Text("DTR is off in MegEngine", "MegEngine 未开启 DTR")),),
    remedies=(Remedy(("dtr_off", "too_big"), (
        Fixed("MEGENGINE_ENABLE_DROP", "1"), Fixed("MEGENGINE_DTR_AUTO_DROP", "1"),
        Fixed("MEGENGINE_RECORD_COMPUTING_PATH", "1"),
        BytesOfRoom("MEGENGINE_DTR_EVICTION_THRESHOLD", 0.8, 256 * 1024**2, Text(
            "; eviction starts at {threshold}, {share:.0%} of the {spare} other processes leave on the GPU",
            ";活跃 tensor 超过 {threshold} 时开始驱逐,即其他进程留下的 {spare} 的 {share:.0%}"))),
        Text("DTR evicts tensors and recomputes them when needed", "DTR 释放 tensor,需要时重新计算"),
        DTR_PEAK_CAVEAT, only_if="dtr_off"),),
)
