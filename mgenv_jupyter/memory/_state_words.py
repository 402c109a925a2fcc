"""A memory source's state in the user's language: the chart's status line and legend show `state_text()` (a series'
name is worded by `_series_words`).

Sources write their state in English words (`"ok"`, `"paddle is not imported"`, `"no NVIDIA driver (...)"`), which
front ends and tests also match on; this module only words them for people. Each known sentence is a pattern over
the whole state with the parts that vary (a framework's name, a device, an exception's message) carried over as they
are; a state no pattern knows is shown as written. A state may join several problems with "; " and prefix one with
its device ("gpu1: ..."): each part is worded alone. Patterns are anchored and have no nested repetition, and the text
is cut to a bounded length first: states carry exception messages from outside.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .._text import Text
from ..runtime.frameworks import declared

_LONGEST = 600  # characters of a state worded; a longer one (an exception's message) is cut

OK_WORD = Text("ok", "正常")

# (pattern over the whole part, its words; {0}, {1}... are the pattern's groups, carried over as they are); the
# sentences a framework's adapter writes are its own (`STATE_SENTENCES`), placed before the general ones that follow
# the host's.
_SENTENCES: tuple[tuple[re.Pattern[str], Text], ...] = tuple((re.compile(pattern), text) for pattern, text in (
    (r"ok", OK_WORD),
    (r"(\w+) holds no GPU memory yet", Text("{0} holds no GPU memory yet", "{0} 尚未占用 GPU 显存")),
    (r"(\w+) is not imported", Text("{0} is not imported", "{0} 未导入")),
    (r"not sampled yet", Text("not sampled yet", "尚未采样")),
    (r"not read yet", Text("not read yet", "尚未读取")),
    (r"idle: GPUs are visible \(host memory is the fallback\)",
     Text("idle: GPUs are visible (host memory is the fallback)", "空闲:已有可见 GPU(主机内存仅作后备)")),
    (r"no NVIDIA driver \(libnvidia-ml\.so\.1 not found\)",
     Text("no NVIDIA driver (libnvidia-ml.so.1 not found)", "没有 NVIDIA 驱动(未找到 libnvidia-ml.so.1)")),
    (r"no NVIDIA driver \(the driver is not loaded\)",
     Text("no NVIDIA driver (the driver is not loaded)", "没有 NVIDIA 驱动(驱动未加载)")),
    (r"NVML sees no GPU", Text("NVML sees no GPU", "NVML 未发现 GPU")),
    (r"nvidia-ml-py is not installed \(pip install nvidia-ml-py\)",
     Text("nvidia-ml-py is not installed (pip install nvidia-ml-py)", "未安装 nvidia-ml-py(pip install nvidia-ml-py)")),
    (r"NVML error on (gpu\d+): (.*)", Text("NVML error on {0}: {1}", "NVML 在 {0} 上出错:{1}")),
    (r"NVML error: (.*)", Text("NVML error: {0}", "NVML 出错:{0}")),
    (r"per-process memory unavailable \(MIG or container PID namespace\): (.*)",
     Text("per-process memory unavailable (MIG or container PID namespace): {0}",
          "无法得到每个进程的显存(MIG 或容器的 PID 命名空间):{0}")),
    (r"per-process memory unavailable \(the driver does not report it, as under Windows WDDM\)",
     Text("per-process memory unavailable (the driver does not report it, as under Windows WDDM)",
          "无法得到每个进程的显存(驱动不报告,如 Windows WDDM 下)")),
    (r"MIG mode, NVML answers '(.*)' for the process list",
     Text("MIG mode, NVML answers '{0}' for the process list", "MIG 模式,NVML 对进程列表的回答是 '{0}'")),
    (r"NVML answers '(.*)' for the process list",
     Text("NVML answers '{0}' for the process list", "NVML 对进程列表的回答是 '{0}'")),
    (r"MIG mode(?:, and|:) NVML lists no process for the full device",
     Text("MIG mode, and NVML lists no process for the full device", "MIG 模式,NVML 未列出整个设备上的进程")),
    (r"NVML lists PIDs (.*), which do not exist in this kernel's namespace",
     Text("NVML lists PIDs {0}, which do not exist in this kernel's namespace",
          "NVML 列出的 PID {0} 在此内核的命名空间中不存在")),
    (r"host memory unavailable: (.*)", Text("host memory unavailable: {0}", "无法读取主机内存:{0}")),
    *(row for rows in declared("STATE_SENTENCES").values() for row in rows),
    (r"(\w+) sees no GPU", Text("{0} sees no GPU", "{0} 未发现 GPU")),
    (r"waiting for the kernel to use ([\w, ]+): reading (\w+)'s counters there now would create a CUDA context",
     Text("waiting for the kernel to use {0}: reading {1}'s counters there now would create a CUDA context",
          "等待内核使用 {0}:现在读取 {1} 的计数器会创建 CUDA 上下文")),
    (r"(\w+) error: (.*)", Text("{0} error: {1}", "{0} 出错:{1}")),
    (r"error: (.*)", Text("error: {0}", "出错:{0}")),
    (r"lost: (.*)", Text("lost: {0}", "已失联:{0}")),
    (r"starting", Text("starting", "正在启动")),
    (r"ended", Text("ended", "已结束")),
    (r"no data for (\d+) s", Text("no data for {0} s", "已 {0} 秒没有数据")),
))
_OK_DETAIL = re.compile(r"ok: (.*)")
_DEVICE_PREFIX = re.compile(r"(gpu\d+): (.*)")


@lru_cache(maxsize=256)  # states change seldom, and the sampler words them with every batch it sends
def state_text(state: str, language: str) -> str:
    """`state` worded in `language` ("zh" or "en"). "ok: <detail>" becomes the detail alone (the front end writes
    "<source> ok (<detail>)"); English comes back as the source wrote it."""
    text = state[:_LONGEST]
    ok = _OK_DETAIL.fullmatch(text)
    if ok:
        text = ok.group(1)
    if language != "zh":
        return text
    whole = _sentence(text)
    return whole if whole != text else "; ".join(_part(part) for part in text.split("; "))


def _part(part: str) -> str:
    device = _DEVICE_PREFIX.fullmatch(part)
    if device:
        return f"{device.group(1)}:{_sentence(device.group(2))}"
    return _sentence(part)


def _sentence(part: str) -> str:
    for pattern, text in _SENTENCES:
        match = pattern.fullmatch(part)
        if match:
            return text.zh.format(*(_sentence(group) if group and pattern.pattern.startswith("per-process") else group
                                    for group in match.groups()))
    return part

