"""One language on one screen, in real JupyterLab and real Chromium: with JupyterLab's Chinese language pack set to
中文, everything of ours on the screen is Chinese — the Framework Env panel, the profile's consent dialog, the
memory chart inline and in the panel (axis, legend, status line, the kernel's overlay labels and the sources'
states), %envset's report and the out-of-memory report under the cell — because the kernel learns the front end's
language when the panel or a chart connects. An English JupyterLab stays English. Screenshots (light and dark, the
panel at 280 px) are kept under test-artifacts/; Chinese glyphs need a CJK font (Debian's fonts-noto-cjk), or
Chromium draws boxes.

The check for English left over: no phrase of our own label tables (the sidebar's and the chart's gettext catalog,
the kernel's words for source states and chart lines, the status labels) appears in our parts of the page, and on the
charts, which show no values, not even a single word of them. Names stay names in every language (MegEngine, NVML,
GPU, GiB, variable names and values, the PyTorch message quoted in the report).

The catalog's own words are checked where the panel and the cells show them: two variables' rows with their details
open (what is allowed, where the framework reads it, the caveats), one holding a value the kernel refused with its
reason under the editor; %envset's note on a trap ("'0' does NOT turn this off") and its refusal of a bad value. In
those, no run of three English words is left outside quotes and code (tests/language_checks.py), at 280 px and wide."""

from __future__ import annotations

import json
import re

import pytest
from language_checks import english_runs
from layout_checks import clipped_text, set_theme

from lab_server import (
    OOM_SCENARIO,
    OOM_STAND_IN,
    PROFILE_QUESTION,
    ROOT,
    chromium_page,
    execute_command,
    open_notebook,
    raise_oom,
    run_cell,
    screenshot,
    set_left_area_width,
    write_notebook,
)

CELLS = [
    "%load_ext mgenv_jupyter",
    "%envset MEGENGINE_DTR_EVICTION_THRESHOLD=5GB",
    "%memchart",
    OOM_STAND_IN,
    raise_oom(after_s=2.5),
    "%envset MGB_CUDA_RESERVE_MEMORY=0",  # a trap: "0" reserves all free memory, the note says so
    "%envset MGE_DEFAULT_DEVICE=tpu9",  # refused: the reason says what a device name is
]
# Two rows opened in the panel: a device pattern (its allowed text, a source location in words, a caveat) and a
# reserve whose docs and source disagree; a value typed into the first is refused by the kernel.
DETAILED = ("MGE_DEFAULT_DEVICE", "MGB_CUDA_RESERVE_MEMORY")
REFUSED_VALUE = "tpu9"
CELL = ".jp-Notebook .jp-Cell:nth-child({}) .jp-OutputArea"
REPORT = f"{CELL.format(5)} .mgenv-oom"
INLINE_CHART = f"{CELL.format(3)} .mgenv-chart"
PANEL = ".mgenv-sb"
PANEL_CHART = ".mgenv-sb-memory .mgenv-chart"
CHINESE_SETTINGS = {"@jupyterlab/translation-extension/plugin": {"locale": "zh_CN"}}
HAN = re.compile("[\u4e00-\u9fff]")

# How many samples each chart holds.
SAMPLES_JS = "charts => charts.map(chart => document.querySelector(chart)?.mgenvChart?.store.length ?? 0)"
# Our parts of the page, and the chart's words drawn on its canvas (the axis label), which have no DOM text.
TEXTS_JS = """([panel, panelChart, inline, envset, report]) => {
    const text = selector => document.querySelector(selector)?.innerText ?? '';
    const axis = selector => document.querySelector(selector)?.mgenvChart?._plot?.axes[0].label ?? '';
    const titles = selector => [...document.querySelectorAll(`${selector} [title], ${selector} [aria-label]`)]
        .map(e => [e.getAttribute('title'), e.getAttribute('aria-label')].filter(Boolean).join(' ')).join('\\n');
    return {
        panel: text(panel) + '\\n' + titles(panel),
        panel_chart: text(panelChart) + '\\n' + titles(panelChart) + '\\n' + axis(panelChart),
        inline: text(inline) + '\\n' + titles(inline) + '\\n' + axis(inline),
        envset: text(envset),
        report: text(report),
    };
}"""


def english_texts() -> list[str]:
    """Every English text of our label tables: the sidebar's and the chart's gettext catalog (its msgids), the
    kernel's words for sources' states and for the chart's lines, and the status labels."""
    from mgenv_jupyter.base._text import Text
    from mgenv_jupyter.memory import _overlays as overlays
    from mgenv_jupyter.memory import _state_words as state_words
    from mgenv_jupyter.runtime._status import Status
    from mgenv_jupyter.runtime.frameworks import _adapters

    catalog = json.loads((ROOT / "mgenv_jupyter" / "locale" / "zh_CN" / "LC_MESSAGES" / "mgenv_jupyter.json")
                         .read_text(encoding="utf-8"))
    texts = [msgid.split("\u0004")[-1] for msgid in catalog if msgid]
    texts += [text.en for text in state_words.WORDS.values()]  # the frameworks' own (STATE_WORDS) included
    texts += [value.en for value in vars(overlays).values() if isinstance(value, Text)]
    # the chart's lines that belong to one framework are named in its adapter (MegEngine's DTR threshold)
    texts += [value.en for module in _adapters.MODULES for value in vars(module).values() if isinstance(value, Text)]
    return texts + [status.label.en for status in Status]


def english_phrases() -> set[str]:
    """The fixed parts (between placeholders) of those texts that are two words or more: "since kernel start",
    "Click to hide or show this line", "takes effect at import". A value or a name on the screen ("default",
    "auto", "Host" in a catalog description) is one word, and is not taken for a label left in English."""
    phrases = set()
    for text in english_texts():
        for part in re.split(r"%\d|\{\w*\}", text):
            part = part.strip(" .,:;()[]'\"–—·+")
            if len(re.findall(r"[A-Za-z]{2,}", part)) >= 2:
                phrases.add(part.lower())
    return phrases


def english_words() -> set[str]:
    """The single words of those texts (three letters or more), for the chart, which shows no values or names but
    its own (series, devices, frameworks)."""
    words = {word for text in english_texts() for word in re.findall(r"(?<![\w{%])[a-z]{3,}(?![\w}])", text)}
    return words - NAMES


# Words that are names in every language where they stand on the chart: frameworks and libraries, "tensor" (the
# frameworks' own word in their Chinese documentation).
NAMES = {"megengine", "paddle", "torch", "jax", "tensorflow", "mxnet", "nvml", "cuda", "nvidia", "dtr", "csv", "gpu",
         "cpu", "tensor"}


def english_left(text: str, phrases: set[str], words: set[str] | None = None) -> list[str]:
    """The phrases of our tables in `text` (case aside: CSS writes some headings in capitals), and with `words` the
    single words too."""
    lowered = re.sub(r"\s+", " ", text.lower())
    left = {phrase for phrase in phrases if phrase in lowered}
    if words is not None:
        left |= {word for word in re.findall(r"(?<![\w.])[A-Za-z]{3,}(?![\w.])", text) if word.lower() in words}
    return sorted(left)


def chinese_lab(shared_lab):
    """JupyterLab set to 中文 before its page loads (a server of its own kind: its language is its user settings')."""
    return shared_lab(env={"MGENV_SIMULATE_GPU": str(OOM_SCENARIO)}, settings=CHINESE_SETTINGS)


def run_the_notebook(page, lab, dark: bool, language: str) -> dict:
    """Open the notebook (its profile asks for consent: answered with the accept button), run its cells, and show the
    panel at 280 px beside it; screenshots of the dialog, the notebook with the panel, and the out-of-memory report."""
    name = write_notebook(lab, "screen.ipynb", CELLS,
                          metadata={"mgenv_jupyter": {"profile": {"MGE_DEFAULT_DEVICE": "cpu0"}}})
    open_notebook(page, lab, name)
    # The extension's front end loads mgenv_jupyter in the kernel and reviews the notebook's profile: the dialog.
    page.wait_for_selector(PROFILE_QUESTION, timeout=60_000)
    set_theme(page, dark)
    theme = "dark" if dark else "light"
    dialog = page.inner_text(PROFILE_QUESTION)
    screenshot(page, f"{language}-consent-dialog-{theme}.png")
    page.locator(f"{PROFILE_QUESTION} .jp-Dialog-button.jp-mod-accept").click()
    page.wait_for_selector(PROFILE_QUESTION, state="detached", timeout=10_000)
    for index in range(len(CELLS)):
        run_cell(page, index)
    page.evaluate("() => window.jupyterapp.shell.activateById('mgenv-jupyter-sidebar')")
    try:
        page.wait_for_selector(f"{REPORT} .mgenv-oom-apply", timeout=90_000)
    except Exception:
        screenshot(page, f"{language}-no-oom-report.png")
        raise AssertionError(f"no out-of-memory report; the notebook says:\n{page.inner_text('.jp-Notebook')}"
                             ) from None
    page.wait_for_selector(f"{INLINE_CHART} canvas", timeout=30_000)
    try:
        page.wait_for_selector(f"{PANEL_CHART} canvas", timeout=30_000)
    except Exception:
        screenshot(page, f"{language}-no-panel-chart.png")
        memory = page.evaluate("() => document.querySelector('.mgenv-sb-memory')?.outerHTML.slice(0, 3000)")
        raise AssertionError(f"the panel's chart drew nothing: {memory}") from None
    set_left_area_width(page, 280)
    # A batch or two more in each chart (at 10 Hz, 15 samples), until every line's legend row shows its value.
    grown = page.evaluate(SAMPLES_JS, [INLINE_CHART, PANEL_CHART])
    page.wait_for_function(f"""([charts, before]) => ({SAMPLES_JS})(charts).every((n, i) => n >= before[i] + 15)
        && charts.every(chart => [...document.querySelectorAll(`${{chart}} .mgenv-chart-legend-series`)]
            .every(row => !['', '–'].includes(row.querySelector('.mgenv-chart-legend-now')?.textContent ?? '')))""",
                           arg=[[INLINE_CHART, PANEL_CHART], grown], timeout=30_000)
    execute_command(page, "notebook:move-cursor-up")  # the first cells in view: %envset and the chart
    page.evaluate("() => window.jupyterapp.shell.currentWidget.content.activeCellIndex = 1")
    page.locator(CELL.format(2)).scroll_into_view_if_needed()
    screenshot(page, f"{language}-notebook-and-panel-280-{theme}.png")
    page.locator(INLINE_CHART).scroll_into_view_if_needed()
    screenshot(page, f"{language}-inline-chart-{theme}.png")
    page.locator(REPORT).scroll_into_view_if_needed()
    screenshot(page, f"{language}-oom-report-{theme}.png")
    texts = page.evaluate(TEXTS_JS, [PANEL, PANEL_CHART, INLINE_CHART, CELL.format(2), REPORT])
    texts["dialog"] = dialog
    (ROOT / "test-artifacts" / f"{language}-screen-texts-{theme}.json").write_text(
        json.dumps(texts, ensure_ascii=False, indent=1), encoding="utf-8")
    texts["clipped"] = clipped_text(page, PANEL)
    texts["trap"] = page.inner_text(CELL.format(6))
    texts["refused"] = page.inner_text(CELL.format(7))
    page.locator(CELL.format(7)).scroll_into_view_if_needed()
    screenshot(page, f"{language}-trap-and-refusal-{theme}.png")
    texts.update(open_rows(page, theme, language))
    return texts


def open_rows(page, theme: str, language: str) -> dict:
    """The DETAILED rows found with the panel's search box, their details opened as a user does, a refused value
    typed into the first; their text, and screenshots of each at 280 px and at 640 px."""
    texts: dict[str, str] = {}
    search = page.locator(f"{PANEL} .mgenv-sb-search")
    for width in (280, 640):
        set_left_area_width(page, width)
        for name in DETAILED:
            row = f"{PANEL} .mgenv-sb-row[data-name='{name}']"
            search.fill(name)
            page.wait_for_selector(row, state="visible", timeout=10_000)
            if not page.eval_on_selector(f"{row} .mgenv-sb-details", "details => details.open"):
                page.locator(f"{row} .mgenv-sb-details > summary").click()
            if name == DETAILED[0] and width == 280:
                box = page.locator(f"{row} [aria-label='{name}']")
                box.fill(REFUSED_VALUE)
                box.press("Enter")
                page.wait_for_selector(f"{row} .mgenv-sb-row-error:not([hidden])", timeout=30_000)
            page.locator(f"{row} .mgenv-sb-details").scroll_into_view_if_needed()
            screenshot(page, f"{language}-panel-row-{name}-{width}-{theme}.png")
            texts[f"row {name}"] = page.inner_text(row)
    texts["row clipped"] = clipped_text(page, PANEL)
    search.fill("")
    # What an empty box says (the kernel's editor spec): "not set", or a default, which is a value.
    texts["placeholders"] = page.eval_on_selector_all(f"{PANEL} .mgenv-sb-row input[placeholder]",
                                                      "inputs => inputs.map(input => input.placeholder)")
    return texts


@pytest.mark.parametrize("dark", [False, True])
def test_with_jupyterlab_in_chinese_everything_of_ours_on_the_screen_is_chinese(shared_lab, dark):
    with chinese_lab(shared_lab) as lab, chromium_page(width=1400, height=900) as page:
        texts = run_the_notebook(page, lab, dark, "zh")
        lang = page.evaluate("() => document.documentElement.lang")
    assert lang.startswith("zh"), lang  # JupyterLab itself is in Chinese
    phrases, words = english_phrases(), english_words()
    assert {"since kernel start", "click to hide or show this line", "takes effect at import"} <= phrases
    assert {"host", "used", "total", "eviction", "threshold", "now", "peak"} <= words
    for region in ("panel", "panel_chart", "inline", "envset", "report", "dialog", "trap", "refused",
                   *(f"row {name}" for name in DETAILED)):
        text = texts[region]
        assert HAN.search(text), (region, text[:300])
        charts = region in ("panel_chart", "inline")
        left = english_left(text, phrases, words if charts else None)
        assert left == [], (region, left, text[:2000])
    # What the issue saw in English: the chart's labels, the source states, %envset's report.
    assert "自内核启动" in texts["inline"] and "自内核启动" in texts["panel_chart"]  # "since kernel start"
    assert "DTR 释放阈值" in texts["inline"] or "DTR" in texts["inline"]
    assert "导入时生效" in texts["envset"]  # "takes effect at import"
    assert "已换算为 5368709120 字节" in texts["envset"] and "normalised" not in texts["envset"]
    assert "框架环境变量" in texts["panel"]
    assert texts["clipped"] == [] and texts["row clipped"] == []
    # The catalog's own words: the trap, the refusal (in the cell and in the panel), what is allowed, where it is read,
    # the caveats; no English sentence left in them.
    device, reserve = (texts[f"row {name}"] for name in DETAILED)
    assert "'0' 并不能关闭它" in texts["trap"] and "%envunset" in texts["trap"], texts["trap"]
    assert f"不接受 '{REFUSED_VALUE}'" in texts["refused"] and "设备名" in texts["refused"], texts["refused"]
    assert f"不接受 '{REFUSED_VALUE}'" in device and "模块顶层的 set_default_device" in device, device
    assert "AssertionError" in device and "import megengine" in device  # its caveat, in Chinese around the names
    assert "b:<字节数>" in reserve and "预留全部空闲显存" in reserve, reserve
    for region in ("trap", "refused", *(f"row {name}" for name in DETAILED)):
        assert english_runs(texts[region]) == [], (region, english_runs(texts[region]), texts[region])
    assert "未设置" in texts["placeholders"] and "not set" not in texts["placeholders"], texts["placeholders"]


def test_an_english_jupyterlab_stays_english(shared_lab):
    with shared_lab(env={"MGENV_SIMULATE_GPU": str(OOM_SCENARIO)}) as lab, \
            chromium_page(width=1400, height=900) as page:
        texts = run_the_notebook(page, lab, False, "en")
    for region in ("panel", "panel_chart", "inline", "envset", "report", "dialog", "trap", "refused",
                   *(f"row {name}" for name in DETAILED)):
        assert not HAN.search(texts[region]), (region, HAN.findall(texts[region])[:20], texts[region][:500])
    assert "'0' does NOT turn this off" in texts["trap"] and "not set" in texts["placeholders"]
    assert f"'{REFUSED_VALUE}' is not allowed: expected a device name" in texts["row MGE_DEFAULT_DEVICE"]
    assert "since kernel start" in texts["inline"] and "since kernel start" in texts["panel_chart"]
    assert "takes effect at import" in texts["envset"]
    assert "framework env" in texts["panel"].lower() and texts["report"].startswith("Out of memory on gpu0")
