"""`DTRWidget`: MegEngine's DTR (dynamic tensor rematerialization) — on/off, eviction threshold, evictee minimum size,
sqrt sampling — set before `import megengine` through the environment, and live through MegEngine afterwards."""

from __future__ import annotations

import html
from collections.abc import Callable

import ipywidgets as widgets

from ..base._markup import text_html
from ..base._text import Text, current_language
from ..catalog._megengine_dtr import DTR_PEAK_CAVEAT, DTR_SWITCH
from ..catalog._values import format_size
from ..runtime import SetReport, session
from ..runtime.frameworks import live_api
from ._editors import SizeEditor
from ._panel import EnvPanel
from ._rows import GroupRow, Row, VariableRow

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"
MINIMUM = "MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE"
SQRT_SAMPLING = "MEGENGINE_DTR_SQRT_SAMPLING"
NEAR_CAPACITY = 0.9

BEFORE_IMPORT = Text(
    "MegEngine is not imported yet: Apply writes these variables into the environment as plain bytes, and "
    "`import megengine` reads them.",
    "MegEngine 尚未导入:应用后这些变量以纯字节数写入环境变量,`import megengine` 时读取。",
)
AFTER_IMPORT = Text(
    "MegEngine is imported: Apply changes DTR live (megengine.dtr and the interpreter options) and reads back what "
    "MegEngine now uses.",
    "MegEngine 已导入:应用后通过 megengine.dtr 及解释器选项实时修改 DTR,并读回 MegEngine 实际使用的值。",
)
NOW_USES = Text("MegEngine now uses", "MegEngine 当前实际使用")
SHARE = Text("{size} = {share:.0%} of the GPU's {total}", "{size} = 显卡 {total} 的 {share:.0%}")
NO_TOTAL = Text(
    "GPU memory unknown: pass DTRWidget(gpu_total_bytes=...) to see the threshold as a share of it.",
    "显存总量未知:传入 DTRWidget(gpu_total_bytes=...) 可显示阈值占显存的比例。",
)
ZERO = Text("0: DTR evicts only when an allocation fails.", "0:只在显存申请失败时才释放。")
TOO_CLOSE = Text(
    "Close to the GPU's capacity: freed memory is too fragmented to reuse, so training slows down sharply.",
    "接近显卡容量:释放出的显存过于零散难以复用,训练会显著变慢。",
)
TOO_LARGE = Text(
    "At or above the GPU's capacity: DTR will not evict in time and the run can fail with out-of-memory.",
    "达到或超过显卡容量:DTR 来不及释放,可能出现 OOM。",
)


def _memory_gpu_total() -> int | None:
    """The first visible GPU's total, as the memory sources read it (`memory.sources.gpu_total_bytes`); None without a
    GPU or on failure."""
    try:
        from ..memory import (
            _sources as sources,  # on first use: NVML's binding loads only when a threshold is shown as a share
        )

        total = sources.gpu_total_bytes()
        return int(total) if total is not None else None
    except Exception:  # a missing or failing memory source must not break the editor
        return None


class DTRWidget(EnvPanel):
    """MegEngine DTR settings: enable/disable, eviction threshold (with units, and as a share of the GPU when its
    memory is known), evictee minimum size and sqrt sampling.

    Before `import megengine`, Apply sets the MEGENGINE_* variables (sizes as plain bytes, since MegEngine reads
    "5GB" in the environment as 5 bytes). After the import it applies them live and shows what MegEngine then uses.
    `gpu_total_bytes` is the GPU's memory, or a function returning it; without it the memory package is asked.
    The threshold is a trigger, not a cap: the peak memory usually ends up above it (see the caveat shown).
    """

    def __init__(self, gpu_total_bytes: int | Callable[[], int | None] | None = None) -> None:
        current = session()
        known = current.catalog
        self.switch_row = GroupRow(current, DTR_SWITCH)
        self.threshold_row = VariableRow(current, known.get(THRESHOLD))  # type: ignore[arg-type]
        self.minimum_row = VariableRow(current, known.get(MINIMUM))  # type: ignore[arg-type]
        self.sqrt_row = VariableRow(current, known.get(SQRT_SAMPLING))  # type: ignore[arg-type]
        self._gpu_total = gpu_total_bytes
        self.share = widgets.HTML()
        self.share.add_class("mgenv-share")
        self.effect = widgets.HTML()
        self.effect.add_class("mgenv-intro")
        self.effective: dict[str, str] = {}  # what MegEngine reported after the last live change, by name
        caveat = widgets.HTML(text_html(DTR_PEAK_CAVEAT.get(current_language())))
        caveat.add_class("mgenv-caveat")
        rows: list[Row] = [self.switch_row, self.threshold_row, self.minimum_row, self.sqrt_row]
        self.threshold_row.show_under_editor(self.share)
        body = [self.switch_row.widget, self.threshold_row.widget, self.minimum_row.widget, self.sqrt_row.widget,
                caveat, self.effect]
        super().__init__(rows, body, "MegEngine DTR", sweep=(THRESHOLD,))
        self.threshold_row.on_edit(lambda row: self._update_share())
        self._after_change(None)

    def gpu_total(self) -> int | None:
        """The GPU memory the threshold is compared with, in bytes; None when unknown."""
        source = self._gpu_total
        if isinstance(source, int):
            return source
        if callable(source):
            try:
                total = source()
            except Exception:  # a failing probe only hides the share
                return None
            return int(total) if total is not None else None
        return _memory_gpu_total()

    def _update_share(self) -> None:
        editor = self.threshold_row.editor
        nbytes = editor.nbytes() if isinstance(editor, SizeEditor) else None
        if nbytes is None:
            self.share.value = ""
            return
        language = current_language()
        self.share.remove_class("mgenv-near")
        self.share.remove_class("mgenv-over")
        if nbytes == 0:
            self.share.value = html.escape(ZERO.get(language))
            return
        total = self.gpu_total()
        if not total:
            self.share.value = html.escape(NO_TOTAL.get(language))
            return
        share = nbytes / total
        text = SHARE.get(language).format(size=format_size(nbytes), share=share, total=format_size(total))
        warning = ""
        if share >= 1:
            warning = TOO_LARGE.get(language)
            self.share.add_class("mgenv-over")
        elif share >= NEAR_CAPACITY:
            warning = TOO_CLOSE.get(language)
            self.share.add_class("mgenv-near")
        self.share.value = f"{html.escape(text)} {html.escape(warning)}"

    def _after_change(self, report: SetReport | None) -> None:
        if report is not None:
            self.effective.update({c.name: c.effective for c in report if c.effective is not None})
        self._update_share()
        language = current_language()
        if self.session.watcher.first_reader(("megengine",)) is None:
            self.effect.value = f"<p><i>{text_html(BEFORE_IMPORT.get(language))}</i></p>"
            return
        uses = []
        for name in (*DTR_SWITCH.members, THRESHOLD, MINIMUM, SQRT_SAMPLING):
            entry = self.session.catalog.get(name)
            api = live_api(entry) if entry is not None else None
            if entry is None or api is None:
                continue
            try:
                value = api.read(entry)  # from MegEngine itself, not from the environment
            except Exception:  # reading back is informative only
                continue
            if value is None:  # MegEngine cannot say
                continue
            shown = f"{format_size(int(value))} ({value} bytes)" if name in (THRESHOLD, MINIMUM) else value
            uses.append(f"<li><code>{name}</code>: {html.escape(shown)}</li>")
        self.effect.value = (f"<p><i>{text_html(AFTER_IMPORT.get(language))}</i></p>"
                             + (f"<b>{NOW_USES.get(language)}</b><ul>{''.join(uses)}</ul>" if uses else ""))
