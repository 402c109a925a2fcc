"""The out-of-memory report's words, in English and Chinese: one table every part of the view (text, HTML, the chart's
labels, the renderer's data) takes its sentences from."""

from __future__ import annotations

from ...base._text import Text

T = Text
HEADLINE = T("Out of memory on {where} ({exception}){asked}", "{where}内存不足({exception}){asked}")
ASKED = T(": {size} asked for", ":申请 {size}")
GPU = T("gpu{index}", "gpu{index} ")
HOST = T("the host", "主机")
VERDICT = T("Verdict", "结论")
ALSO = T("also possible", "其他可能")
NUMBERS = T("Numbers", "数据")
DEVICE_LINE = T("{device}: total {total}; this kernel {kernel} (NVML); other processes {others}; free {free}",
                "{device}:总量 {total};本内核 {kernel}(NVML);其他进程 {others};空闲 {free}")
UNLISTED = T("; held by no listed process (the driver, other containers) {size}",
             ";不属于任何列出的进程(驱动、其他容器){size}")
ALLOCATOR = T("; allocator allocated {allocated}, reserved {reserved}", ";分配器已分配 {allocated},已预留 {reserved}")
ERROR_ALLOCATOR = T("; the error says: allocator allocated {allocated}, reserved {reserved}",
                    ";错误信息称:分配器已分配 {allocated},已预留 {reserved}")
ERROR_ABOVE_READING = T(" (at the error's moment; more than the {kernel} NVML reads for this kernel now)",
                        "(错误发生时的数字;多于 NVML 现在读到的本内核 {kernel})")
FRAGMENT = T("; reserved but unallocated {free} ({ratio}× the request)", ";已预留未分配 {free}(为申请量的 {ratio} 倍)")
HOST_LINE = T("host: total {total}, available {available}; the kernel's processes {rss}",
              "主机:总量 {total},可用 {available};内核进程占用 {rss}")
PROCESSES = T("Other processes on the GPU", "GPU 上的其他进程")
PROCESS_LINE = T("gpu{gpu}: pid {pid} {user} {name} {bytes}", "gpu{gpu}:pid {pid} {user} {name} {bytes}")
UNSEEN = T("(not visible here)", "(在此不可见)")
TIMELINE = T("Timeline ({series}, last {minutes} min)", "时间线({series},最近 {minutes} 分钟)")
CELL_CLIMB = T("cell [{cell}] went from {first} to {last} (peak {peak})",
               "单元 [{cell}] 从 {first} 升至 {last}(峰值 {peak})")
BETWEEN = T("grew by {grew} between cells [{after_cell}] and [{before_cell}], while no cell ran (from {first} to "
            "{last})",
            "在单元 [{after_cell}] 与 [{before_cell}] 之间、没有单元运行时增长了 {grew}(从 {first} 到 {last})")
EARLIER = T("earlier cells' peaks", "之前各单元的峰值")
NO_TIMELINE = T("no samples recorded before the failure", "失败前没有记录到采样")
CHART_TITLE = T("Timeline of {series}: cell [{cell}] up to the failure, against the earlier cells' peaks",
                "{series} 的时间线:单元 [{cell}] 直到失败,对比之前各单元的峰值")
CHART_TITLE_NO_CELL = T("Timeline of {series}: the last {seconds} s before the failure",
                        "{series} 的时间线:失败前的最后 {seconds} 秒")
SAMPLES = T("samples while the cell ran: {count} (about {interval} s apart){failure}",
            "单元运行期间的采样:{count} 个(间隔约 {interval} 秒){failure}")
NO_SAMPLES = T("no sample while the cell ran (the recorder takes one a second, and pauses while a cell imports a "
               "framework for the first time){failure}",
               "单元运行期间没有采样(记录器每秒采样一次,单元首次导入框架时暂停){failure}")
AT_FAILURE = T(", and one at the failure", ",另有一个在失败时")
TOTAL_LINE = T("{device} total ({size})", "{device} 总量({size})")
TOTAL_SHORT = T("total", "总量")
TOTAL_NOTE = T("the device's memory", "设备的内存")
ONE_CELL = T("cell [{cells}]", "单元 [{cells}]")
MANY_CELLS = T("cells [{cells}]", "单元 [{cells}]")
PEAK_LINE = T("{cells} peak ({size})", "{cells} 峰值({size})")
PEAK_SHORT = T("[{cells}] peak", "[{cells}] 峰值")
PEAK_NOTE = T("the highest {series} sample while the cell ran (for a cell shorter than a sampling interval, the sample "
              "nearest it)", "该单元运行期间 {series} 的最高采样值(单元短于采样间隔时取最接近的采样)")
ASKED_LINE = T("held at the failure + the {asked} asked for ({size})", "失败时占用 + 申请的 {asked}({size})")
ASKED_SHORT = T("+ asked", "+ 申请")
ASKED_NOTE = T("{series} at the failure plus what the failing allocation asked for",
               "失败时的 {series} 加上失败的分配所申请的大小")
REMEDIES = T("Remedies, best first", "解决办法(按推荐顺序)")
NO_REMEDY = T("no catalog setting addresses this cause: reduce the batch or the model, or free memory first",
              "没有目录变量能解决这个原因:请减小批大小或模型,或先释放显存")
ONCE_SET = T("once set: {status}", "设置后:{status}")  # the status the session will give it (%envdiff's words)
RESTART = T("needs a restart (Framework Env sidebar: Restart and apply)",
            "需要重启内核(框架环境变量侧边栏:重启并应用)")
CAVEAT = T("caveat", "注意")
FOOTER = T("Report made in {ms} ms. %oom shows it again; mgenv_jupyter.last_oom() returns it as data; "
           "remedy.apply() sets one through the session.",
           "报告生成用时 {ms} 毫秒。%oom 可再次显示;mgenv_jupyter.last_oom() 以数据形式返回;"
           "remedy.apply() 通过会话设置。")
SIMULATED = T(" (simulated)", "(模拟)")
RECORD_HINT = T("Where the memory was allocated: {frameworks} records it only with recording on. Run %memtrace on (or "
                "click \"Record allocation sites\"), then run the cell again to see the lines",
                "内存分配位置:{frameworks} 仅在开启记录时记录。运行 %memtrace on(或点击“记录分配位置”),"
                "然后重新运行该单元即可看到代码行")
RECORD_BUTTON = T("Record allocation sites", "记录分配位置")
