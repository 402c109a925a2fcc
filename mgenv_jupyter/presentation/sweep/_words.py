"""Every sentence of a sweep's view, in English and Chinese."""

from __future__ import annotations

from ...base._text import Text as T

OUTCOMES = {
    "ok": T("ok", "完成"),
    "oom": T("out of memory", "内存不足"),
    "error": T("error", "出错"),
    "timeout": T("timed out", "超时"),
    "crashed": T("crashed", "崩溃"),
    "not_run": T("not run", "未运行"),
}
PHASES = {"start": T("while its kernel started", "内核启动时"),
          "setup": T("in setup cell {cell}", "在第 {cell} 个准备单元中"),
          "cell": T("in the measured cell", "在被测单元中")}
TITLE = T("Sweep of {axis}", "{axis} 的扫描")
TIME_TITLE = T("Time of the cell (median of {repeat})", "单元耗时({repeat} 次的中位数)")
TIME_TITLE_ONCE = T("Time of the cell", "单元耗时")
PEAK_TITLE_DEVICE = T("Peak GPU memory", "GPU 显存峰值")
PEAK_TITLE_DEVICE_SIMULATED = T("Peak GPU memory (simulated GPU)", "GPU 显存峰值(模拟 GPU)")
PEAK_TITLE_HOST = T("Peak host memory", "主机内存峰值")
TIMELINE_TITLE_DEVICE = T("GPU memory while the cell ran", "单元运行期间的 GPU 显存")
TIMELINE_TITLE_HOST = T("Host memory while the cell ran", "单元运行期间的主机内存")
SECONDS = T("seconds", "秒")
BYTES = T("memory", "内存")
ELAPSED = T("seconds since the cell started", "自单元开始的秒数")
BUDGET_DEFAULT = T("budget {size} ({total} less {margin:g}%)", "预算 {size}({total} 减去 {margin:g}%)")
BUDGET_GIVEN = T("budget {size}", "预算 {size}")
NO_BUDGET = T("no budget (the total is unknown)", "无预算(总量未知)")
RUNNING = T("running: {done} of {count} points done", "运行中:{count} 个点已完成 {done} 个")
INTERRUPTED = T("Interrupted: {done} of {count} points finished; the rest did not run.",
                "已中断:{count} 个点完成了 {done} 个;其余未运行。")
BEST = T("recommended: {values} — {seconds} s, peak {peak}", "推荐:{values} —— {seconds} 秒,峰值 {peak}")
BEST_NO_PEAK = T("recommended: {values} — {seconds} s", "推荐:{values} —— {seconds} 秒")
CHOICES = {
    "fastest_within_budget": T("recommended: the fastest point within the budget",
                               "推荐:预算之内最快的点"),
    "values_not_held": T("no recommendation: no finished point's kernel had the values it swept",
                         "没有推荐:没有一个完成的点的内核具有它所扫描的取值"),
    "nothing_finished": T("no recommendation: no point finished without failing",
                          "没有推荐:没有一个点无故障地完成"),
    "none_within_budget": T("no recommendation: every finished point peaked above the budget",
                            "没有推荐:所有完成的点的峰值都超过了预算"),
    "no_peak": T("no recommendation: the finished points have no peak to compare with the budget",
                 "没有推荐:完成的点没有可与预算比较的峰值"),
    "largest_fit": T("largest that fits", "能放下的最大取值"),
    "nothing_fits": T("nothing fits", "没有能放下的取值"),
    "fit_so_far": T("the search stopped early", "搜索提前停止"),
}
FIT_TITLE = T("Largest {name} that fits, in {given}", "{given} 中能放下的最大 {name}")
FIT_RUNNING = T("searching for the largest {name} in {given} that peaks within {limit}: {done} probe(s) so far",
                "在 {given} 中搜索峰值不超过 {limit} 的最大 {name}:已探测 {done} 次")
FIT_FOUND = T("largest that fits: {name}={value} — peak {peak}, within {limit}; found in {done} probe(s)",
              "能放下的最大取值:{name}={value} —— 峰值 {peak},不超过 {limit};共探测 {done} 次")
FIT_FOUND_ABOVE = T("; {above} did not fit", ";{above} 放不下")
FIT_NOTHING = T("nothing fits: {name}={value}, the smallest, {why}; found in {done} probe(s)",
                "没有能放下的取值:最小的 {name}={value} {why};共探测 {done} 次")
FIT_STOPPED = T("the search stopped at {name}={value}: {why}", "搜索在 {name}={value} 处停止:{why}")
FIT_INTERRUPTED = T("Interrupted after {done} probe(s).", "已在探测 {done} 次后中断。")
FIT_SO_FAR = T("the largest that fit so far: {name}={value} (peak {peak})",
               "目前能放下的最大取值:{name}={value}(峰值 {peak})")
FIT_NONE_SO_FAR = T("nothing fit so far", "目前没有能放下的取值")
FIT_OVER = T("peaked at {peak}, above {limit}", "峰值 {peak},超过 {limit}")
FIT_LIMIT = T("{limit} ({budget} less {margin:g}%)", "{limit}({budget} 减去 {margin:g}%)")
SETUP_REPLAYED = T("Before the cell each point ran {count} cell(s) of this kernel: {cells}",
                   "每个点在该单元之前运行了本内核的 {count} 个单元:{cells}")
SETUP_GIVEN = T("Before the cell each point ran {count} piece(s) of code you chose",
                "每个点在该单元之前运行了你指定的 {count} 段代码")
SETUP_NONE = T("Nothing ran before the cell", "该单元之前没有运行任何代码")
LEFT_OUT = {"failed": T("failed", "失败"), "our_magic": T("our magics", "本扩展的魔法命令"),
            "sweep": T("a sweep", "扫描"), "empty": T("empty", "为空")}
LEFT_OUT_LINE = T("Left out: {cells}", "未重放:{cells}")
KERNEL_SAME = T("Each point: a fresh kernel of {kernel}", "每个点:一个全新的 {kernel} 内核")
KERNEL_OWN = T("Each point: a fresh kernel of this kernel's Python (no kernelspec matched it)",
               "每个点:用本内核的 Python 启动的全新内核(没有匹配的内核规格)")
KERNEL_RAY = T("placed by Ray on the cluster's nodes", "由 Ray 放到集群的节点上")
SLOTS_GPUS = T("one point per GPU at a time on {gpus}", "每块 GPU 同时运行一个点:{gpus}")
SIMULATED = T("simulated", "模拟")
HEADERS = {"outcome": T("outcome", "结果"), "seconds": T("seconds", "秒"), "peak_device": T("peak GPU", "GPU 峰值"),
           "peak_host": T("peak host", "主机峰值"), "gpu": T("GPU", "GPU"), "node": T("node", "节点"),
           "note": T("note", "说明"), "held": T("kernel had", "内核实际取值")}
BEST_MARK = T("best", "最佳")
OVER_BUDGET = T("above the budget", "超出预算")
OVER_LIMIT = T("past the {seconds} s limit", "超过 {seconds} 秒的限制")
SIGNAL = T("killed by {signal}", "被 {signal} 终止")
OVER_TOTAL = T("peaked above the device's whole {total}", "峰值超过了设备的全部 {total}")
VALUES_DIFFER = T("the kernel had {values}: not what it swept, never recommended",
                  "内核实际取值为 {values}:不是所扫描的取值,从不推荐")
POINT = T("point {number}", "第 {number} 个点")
APPLIED = T("Set {names} in this kernel.", "已在本内核中设置 {names}。")
APPLIED_RESTART = T("{names} had already been read by the running framework: they take effect in a new kernel. "
                    "They were handed to the notebook profile of {count} open Framework Env panel(s): use its "
                    "“Restart and apply”.",
                    "{names} 已被运行中的框架读取:需在新内核中生效。它们已交给 {count} 个打开的 Framework Env 面板的"
                    "笔记本配置:请使用其中的“重启并应用”。")
APPLIED_RESTART_NO_PANEL = T("{names} had already been read by the running framework: they take effect in a new "
                             "kernel. No Framework Env panel is open to keep them in the notebook profile: open it "
                             "and apply again, or restart and run %envset {assignments} before the import.",
                             "{names} 已被运行中的框架读取:需在新内核中生效。没有打开的 Framework Env 面板可将它们"
                             "保存到笔记本配置:请打开面板后再次应用,或重启后在导入前运行 %envset {assignments}。")
