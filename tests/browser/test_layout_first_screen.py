"""What a user sees first, in real JupyterLab and Notebook 7 and real Chromium (issue 38, points 1, 2 and 7), at
1280×800 and 1000×800, light and dark, with the sidebar at its default width: the memory chart showing and an
out-of-memory card in place, at least three variable rows are in view without scrolling, and opening "GPUs on this
server" leaves the chart's legend rows in view; each cell's memory badge reads at the size of JupyterLab's small UI
text, apart from the output prompt "[n]:", the active cell's blue bar and everything else in the cell; after
`%envlang zh` the outputs are Chinese while the page keeps JupyterLab's language everywhere it draws: the sidebar, its
chart's legend (the device's total included) and the badges. One lab and one notebook run once; each look is checked
and shot (test-artifacts/first-screen-<app>-<width>-<theme>.png)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from layout_checks import clipped_text, set_theme

from lab_server import (
    OOM_STAND_IN,
    cell_output,
    chromium_page,
    execute_command,
    open_notebook,
    open_sidebar,
    raise_oom,
    run_cell,
    screenshot,
    write_notebook,
)

NOTEBOOK = "first-screen.ipynb"
CELLS = [
    f"%load_ext mgenv_jupyter\nimport os\nimport numpy as np\nleak = []\n{OOM_STAND_IN}",
    "leak.append(np.ones(256 << 20, dtype=np.uint8))",  # run three times: the leak badge (on host memory)
    "os.environ['MGENV_SIMULATE_GPU'] = 'a100-40gb'",  # from here the chart shows a simulated 40 GiB device
    raise_oom(),  # the sidebar's out-of-memory card
    "%envlang zh\n%envset MEGENGINE_DTR_EVICTION_THRESHOLD=2GB",  # Chinese outputs; a DTR line on the chart
]
SIZES = ((1280, 800), (1000, 800))
THEMES = ("light", "dark")
MIN_ROWS = 3
MIN_BADGE_PX = 10.5  # JupyterLab's small UI text (--jp-ui-font-size0, 10.8 px); the badges were 9 px


@pytest.fixture(scope="module")
def lab(lab_pool: Any) -> Iterator[Any]:
    with lab_pool.lab() as lab:
        write_notebook(lab, NOTEBOOK, CELLS)
        yield lab


RECORD_TIME_JS = ("index => window.jupyterapp.shell.currentWidget.content.widgets[index].model"
                  ".getMetadata('mgenv_jupyter')?.memory?.time ?? null")


def run_and_wait(page: Any, index: int) -> None:
    """Run the `index`-th cell and wait until its badge shows this run's record."""
    before = page.evaluate(RECORD_TIME_JS, index)
    run_cell(page, index)
    page.wait_for_function(f"([index, before]) => ({RECORD_TIME_JS})(index) !== before", arg=[index, before],
                           timeout=90_000)


@pytest.fixture(scope="module")
def page(lab: Any) -> Iterator[Any]:
    """The notebook run once in JupyterLab (the leak cell three times), the sidebar open at its default width with
    the out-of-memory card and the chart; the DTR line on the chart says the stream reached the chart after
    `%envlang zh`."""
    with chromium_page(width=1280, height=800) as page:
        open_notebook(page, lab, NOTEBOOK)
        open_sidebar(page)
        run_and_wait(page, 0)
        for _ in range(3):
            run_and_wait(page, 1)
        page.wait_for_selector(".jp-Cell .mgenv-cell-memory-leak", timeout=30_000)
        run_and_wait(page, 2)
        run_cell(page, 3)
        page.wait_for_selector(".mgenv-sb-oom:not([hidden])", timeout=90_000)
        run_cell(page, 4)
        cell_output(page, 4, "MEGENGINE_DTR_EVICTION_THRESHOLD")
        page.wait_for_function("() => document.querySelector('.mgenv-sb-chart')?.mgenvChart?.overlays"
                               ".some(o => o.kind !== 'total')", timeout=60_000)
        # The active cell is the leaking one: its blue bar beside its badge.
        page.evaluate("() => { window.jupyterapp.shell.currentWidget.content.activeCellIndex = 1; }")
        yield page


# Rows of the variables section wholly inside the section's visible box, the section scrolled to its top; and the
# chart's legend rows wholly inside the memory section's visible box.
IN_VIEW_JS = """() => {
    const inside = (el, box) => {
        const r = el.getBoundingClientRect();
        return r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
    };
    const config = document.querySelector('.mgenv-sb-config');
    config.scrollTo(0, 0);
    const memory = document.querySelector('.mgenv-sb-memory');
    const rows = [...config.querySelectorAll('.mgenv-sb-row')].filter(r => inside(r, config.getBoundingClientRect()));
    const legend = [...memory.querySelectorAll('.mgenv-chart-legend-item')]
        .filter(r => inside(r, memory.getBoundingClientRect()));
    const oom = document.querySelector('.mgenv-sb-oom');
    const card = !!oom && !oom.hidden && inside(oom, config.getBoundingClientRect());
    return {rows: rows.length, legend: legend.length, card,
            chart: memory.querySelector('.uplot canvas')?.getBoundingClientRect().height ?? 0,
            sidebar: Math.round(document.querySelector('.mgenv-sb').getBoundingClientRect().width)};
}"""

# Each badge against what it must leave readable, and its own text: its size, and the element drawn at the start of
# each of its lines (the active cell's bar must not cover it).
BADGE_JS = """() => {
    const MIN_PX = MIN_BADGE_PX;
    const found = [];
    const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5
        && b.top < a.bottom - 0.5;
    const badges = [...document.querySelectorAll('.jp-Cell > .mgenv-cell-memory, .jp-Cell .mgenv-cell-memory')];
    const viewport = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer, '
        + '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook').getBoundingClientRect();
    for (const badge of badges) {
        const cell = badge.closest('.jp-Cell');
        const box = badge.getBoundingClientRect();
        if (box.top < viewport.top || box.bottom > viewport.bottom) continue;  // scrolled out of view
        const text = badge.innerText.replace(/\\n/g, ' ');
        const size = parseFloat(getComputedStyle(badge).fontSize);
        if (size < MIN_PX) found.push(`${text}: ${size} px text`);
        const textBox = el => { const range = document.createRange(); range.selectNodeContents(el);
                                return range.getBoundingClientRect(); };
        const others = [['input prompt', textBox(cell.querySelector('.jp-InputPrompt'))],
                        ['editor', cell.querySelector('.jp-InputArea-editor').getBoundingClientRect()],
                        ...[...cell.querySelectorAll('.jp-OutputPrompt')].map(p => ['output prompt', textBox(p)]),
                        ...[...cell.querySelectorAll('.jp-OutputArea-output')]
                            .map(o => ['output', o.getBoundingClientRect()]),
                        ...[...cell.querySelectorAll('.jp-Collapser')]
                            .map(c => ['the cell\\'s bar', c.getBoundingClientRect()])];
        const next = cell.nextElementSibling;
        if (next) others.push(['next cell', next.getBoundingClientRect()]);
        for (const [what, other] of others) {
            if (other.width && other.height && meets(box, other)) found.push(`${text} overlaps the ${what}`);
        }
        for (const line of badge.children) {
            if (!line.getClientRects().length) continue;
            const r = textBox(line);
            if (r.left < box.left - 0.5 || r.right > box.right + 0.5) found.push(`"${line.textContent}" is cut off`);
            const top = document.elementFromPoint(r.left + 2, r.top + r.height / 2);
            if (top && !badge.contains(top)) found.push(`"${line.textContent}" starts under ${top.className}`);
        }
    }
    // The leak's line in red: another colour than the others'.
    const colours = new Set(badges.filter(b => !b.classList.contains('mgenv-cell-memory-leak'))
        .map(b => getComputedStyle(b).color));
    const leaks = badges.filter(b => b.classList.contains('mgenv-cell-memory-leak'));
    if (leaks.some(b => colours.has(getComputedStyle(b).color))) found.push('the leak reads as the other badges do');
    return {found, count: badges.length, texts: badges.map(b => b.innerText.replace(/\\n/g, ' ')),
            leak: leaks.length};
}""".replace("MIN_BADGE_PX", str(MIN_BADGE_PX))

# What the page says in which language: the sidebar's section titles and its chart's legend, the badges, and the
# output of the cell that ran %envlang zh.
WORDS_JS = """() => ({
    titles: [...document.querySelectorAll('.mgenv-sb .jp-AccordionPanel-title')].map(t => t.textContent.trim()),
    legend: [...document.querySelectorAll('.mgenv-sb-memory .mgenv-chart-legend-name')].map(n => n.textContent),
    badges: [...document.querySelectorAll('.mgenv-cell-memory')].map(b => b.innerText),
    card: document.querySelector('.mgenv-sb-oom-title')?.textContent ?? '',
})"""


def han(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def look(page: Any, app: str, width: int, height: int, theme: str) -> dict[str, Any]:
    """One size and theme: the sidebar as it opens, then with "GPUs on this server" unfolded; the badges."""
    page.set_viewport_size({"width": width, "height": height})
    set_theme(page, dark=theme == "dark")
    page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets[1].node.scrollIntoView()")
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    first = page.evaluate(IN_VIEW_JS)
    name = f"first-screen-{app}-{width}-{theme}"
    screenshot(page, f"{name}.png")
    badges = page.evaluate(BADGE_JS)
    gpus = page.locator(".mgenv-sb .jp-AccordionPanel-title:has-text('GPUs on this server')")
    gpus.click()
    page.wait_for_function("title => title.getAttribute('aria-expanded') === 'true'", arg=gpus.element_handle())
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    unfolded = page.evaluate(IN_VIEW_JS)
    screenshot(page, f"{name}-gpus.png")
    gpus.click()  # folded again, as the next look expects
    page.wait_for_function("title => title.getAttribute('aria-expanded') === 'false'", arg=gpus.element_handle())
    return {"first": first, "unfolded": unfolded, "badges": badges["found"], "count": badges["count"],
            "leak": badges["leak"], "clipped": clipped_text(page, ".mgenv-sb")}


def check(seen: dict[str, Any]) -> list[str]:
    problems = []
    first, unfolded = seen["first"], seen["unfolded"]
    if first["rows"] < MIN_ROWS:
        problems.append(f"{first['rows']} variable rows in view")
    if not first["card"]:
        problems.append("the out-of-memory card is not in view")
    if first["legend"] < 1 or first["chart"] < 40:
        problems.append(f"chart {first['chart']} px high, {first['legend']} legend rows")
    if unfolded["legend"] < 1:
        problems.append("GPUs on this server hides the chart's legend")
    if seen["count"] < 4 or seen["leak"] != 1:
        problems.append(f"{seen['count']} badges, {seen['leak']} leak badges")
    return problems + seen["badges"] + seen["clipped"]


def test_jupyterlab(page):
    words = page.evaluate(WORDS_JS)
    output = page.inner_text(".jp-Cell:nth-child(5) .jp-OutputArea")
    looks = {f"{w}x{h}-{theme}": look(page, "lab", w, h, theme) for w, h in SIZES for theme in THEMES}
    problems = {name: check(seen) for name, seen in looks.items()}
    assert problems == {name: [] for name in looks}, (problems, {n: s["first"] for n, s in looks.items()})
    # %envlang chose Chinese for what the kernel writes; what the page draws stays in JupyterLab's English.
    assert han(output), output
    assert not any(han(text) for text in [*words["titles"], *words["legend"], *words["badges"], words["card"]]), words
    assert any(name.endswith("total (40 GiB)") for name in words["legend"]), words["legend"]


def test_notebook_7(page, lab):
    """The same notebook, saved with its cells' records, opened in Notebook 7 on the same kernel."""
    execute_command(page, "docmanager:save")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(lab.page_url(f"notebooks/{NOTEBOOK}"))
    page.wait_for_selector(".jp-Notebook .jp-Cell .mgenv-cell-memory-leak", timeout=60_000)
    page.click("li.lm-MenuBar-item:has-text('View')")
    page.locator(".lm-Menu-itemLabel:text-is('Framework Env')").click()
    page.wait_for_selector(".mgenv-sb-config[data-connection='ready'] .mgenv-sb-row", timeout=60_000)
    page.wait_for_selector(".mgenv-sb-oom:not([hidden])", timeout=60_000)
    page.evaluate("() => { window.jupyterapp.shell.currentWidget.content.activeCellIndex = 1; }")
    words = page.evaluate(WORDS_JS)
    looks = {f"{w}x{h}-{theme}": look(page, "notebook7", w, h, theme) for w, h in SIZES for theme in THEMES}
    problems = {name: check(seen) for name, seen in looks.items()}
    assert problems == {name: [] for name in looks}, (problems, {n: s["first"] for n, s in looks.items()})
    assert not any(han(text) for text in [*words["titles"], *words["legend"], *words["badges"], words["card"]]), words
