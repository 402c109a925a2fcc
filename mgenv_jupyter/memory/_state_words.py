"""A memory source's state (`State`, a code and its arguments) in words, in the language asked: the chart's
status line and legend show them. The words are chosen here from the code, never read back: code acts on codes.

Each code has one template with its arguments as blanks; a framework's adapter words its own codes (`STATE_WORDS`).
A state of several problems is its parts' words joined by "; ", each after what it concerns ("gpu1: ..."). Where a
template starts with the source's own word (`{framework} sees no GPU`, `NVML error: ...`), `lead()` gives the words
after it, for a status line that writes the source's name itself ("Paddle sees no GPU"). Arguments carry text from
outside (an exception's message): each is cut to a bounded length first.
"""

from __future__ import annotations

from functools import lru_cache

from ..base._source_state import HOLDS_NOTHING, OK, PROBLEMS, State
from ..base._text import Text
from ..runtime.frameworks import offered

_LONGEST = 600  # characters of an argument worded; a longer one (an exception's message) is cut

OK_WORD = Text("ok", "正常")
_UNAVAILABLE = Text("per-process memory unavailable (MIG or container PID namespace): ",
                    "无法得到每个进程的显存(MIG 或容器的 PID 命名空间):")


def _unavailable(en: str, zh: str) -> Text:
    return Text(_UNAVAILABLE.en + en, _UNAVAILABLE.zh + zh)


# code → its words; {name} is the argument `name`. The NVML source's and the host's come first, then the
# frameworks' own (`STATE_WORDS`), then those every framework source and the cluster's nodes share.
WORDS: dict[str, Text] = {
    OK: OK_WORD,
    HOLDS_NOTHING: Text("{framework} holds no GPU memory yet", "{framework} 尚未占用 GPU 显存"),
    "not_imported": Text("{framework} is not imported", "{framework} 未导入"),
    "not_sampled": Text("not sampled yet", "尚未采样"),
    "not_read": Text("not read yet", "尚未读取"),
    "host_idle": Text("idle: GPUs are visible (host memory is the fallback)", "空闲:已有可见 GPU(主机内存仅作后备)"),
    "no_library": Text("no NVIDIA driver (libnvidia-ml.so.1 not found)", "没有 NVIDIA 驱动(未找到 libnvidia-ml.so.1)"),
    "driver_not_loaded": Text("no NVIDIA driver (the driver is not loaded)", "没有 NVIDIA 驱动(驱动未加载)"),
    "no_gpu": Text("NVML sees no GPU", "NVML 未发现 GPU"),
    "no_pynvml": Text("nvidia-ml-py is not installed (pip install nvidia-ml-py)",
                      "未安装 nvidia-ml-py(pip install nvidia-ml-py)"),
    "nvml_error": Text("NVML error: {error}", "NVML 出错:{error}"),
    "nvml_device_error": Text("NVML error on {device}: {error}", "NVML 在 {device} 上出错:{error}"),
    "process_list_refused": _unavailable("NVML answers '{answer}' for the process list",
                                         "NVML 对进程列表的回答是 '{answer}'"),
    "mig_process_list_refused": _unavailable("MIG mode, NVML answers '{answer}' for the process list",
                                             "MIG 模式,NVML 对进程列表的回答是 '{answer}'"),
    "mig_no_process": _unavailable("MIG mode, and NVML lists no process for the full device",
                                   "MIG 模式,NVML 未列出整个设备上的进程"),
    "foreign_pids": _unavailable("NVML lists PIDs {pids}, which do not exist in this kernel's namespace",
                                 "NVML 列出的 PID {pids} 在此内核的命名空间中不存在"),
    "process_memory_unreported": Text(
        "per-process memory unavailable (the driver does not report it, as under Windows WDDM)",
        "无法得到每个进程的显存(驱动不报告,如 Windows WDDM 下)"),
    "host_unavailable": Text("host memory unavailable: {error}", "无法读取主机内存:{error}"),
    "simulation_refused": Text("simulated GPU not started: {error}", "模拟 GPU 未启动:{error}"),
    "simulation_setting_refused": Text("{variable}: {error}", "{variable}:{error}"),
    **{code: text for words in offered(lambda adapter: adapter.state_words).values() for code, text in words.items()},
    "sees_no_gpu": Text("{framework} sees no GPU", "{framework} 未发现 GPU"),
    "waiting_for_devices": Text(
        "waiting for the kernel to use {devices}: reading {framework}'s counters there now would create a CUDA context",
        "等待内核使用 {devices}:现在读取 {framework} 的计数器会创建 CUDA 上下文"),
    "framework_error": Text("{framework} error: {error}", "{framework} 出错:{error}"),
    "source_error": Text("error: {error}", "出错:{error}"),
    "lost": Text("lost: {reason}", "已失联:{reason}"),
    "starting": Text("starting", "正在启动"),
    "ended": Text("ended", "已结束"),
    "stopped": Text("stopped", "已停止"),
    "quiet": Text("no data for {seconds} s", "已 {seconds} 秒没有数据"),
    # what the kernel refused of a node's batch (cluster/_node_memory.py checked_batch)
    "batch_refused": Text("refused a batch that is a {kind}, not a dict", "已拒收:批次是 {kind},不是 dict"),
    "readings_refused": Text(
        "refused {refused} of {total} readings (a size that is not a whole number of bytes, a device name that is not "
        "a short plain label, or more than {most} devices)",
        "已拒收 {total} 条读数中的 {refused} 条(大小不是整数字节、设备名不是简短的纯文本标签,或设备超过 {most} 个)"),
}
# The word a template starts with when it names its source, as the source's name begins: a status line that names
# the source drops it ("NVML error: x" → "NVML error: x" after the name "NVML", "{framework} sees no GPU" → "sees no
# GPU" after "Paddle").
_LEADS = ("{framework} ", "NVML ", "host ")
_WHERE = Text("{where}: {text}", "{where}:{text}")


@lru_cache(maxsize=256)  # states change seldom, and the sampler words them with every batch it sends
def state_text(state: State, language: str) -> str:
    """`state` worded in `language` ("zh" or "en"). An unknown code (a newer node's) is shown as its code and
    arguments."""
    if state.code == PROBLEMS:
        return "; ".join(_part(part, language) for part in state.parts)
    return _part(state, language)


@lru_cache(maxsize=256)
def lead(state: State, language: str) -> str | None:
    """What follows the source's name in a status line, when the state's words start with the source's own word
    ("sees no GPU" for "paddle sees no GPU"); None when they do not."""
    first = state.parts[0] if state.code == PROBLEMS and state.parts else state
    text = WORDS.get(first.code)
    if text is None or first.arg("where"):
        return None
    template = text.get(language)
    start = next((len(word) for word in _LEADS if template.startswith(word)), None)
    if start is None:
        return None
    own = template[start:].format_map(_Args(first))
    rest = [_part(part, language) for part in state.parts[1:]]
    return "; ".join([own, *rest])


def _part(part: State, language: str) -> str:
    where = part.arg("where")
    text = _words(part, language)
    return _WHERE.get(language).format(where=where, text=text) if where else text


def _words(state: State, language: str) -> str:
    text = WORDS.get(state.code)
    if text is None:
        return ": ".join([state.code, *(value[:_LONGEST] for _, value in state.args)])
    return text.get(language).format_map(_Args(state))


class _Args(dict[str, str]):
    def __init__(self, state: State) -> None:
        super().__init__((name, value[:_LONGEST]) for name, value in state.args)

    def __missing__(self, name: str) -> str:
        return ""
