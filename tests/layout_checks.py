"""What a user must be able to see, checked in the real browser: every input visible, wide enough to use and not
covered by anything else; no text cut off without a tooltip; one box inside another; labels that do not overlap.

Each check returns the offending elements described in words (an empty list when all is well), so a test asserts
`== []` and a failure says what and where.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MIN_INPUT_WIDTH = 48  # px: below this a user cannot see what they type

# Runs in the page. An element is "usable" when it has a box, is at least MIN_INPUT_WIDTH wide (checkboxes and radio
# buttons excepted: they are small by nature, so they need only be visible), and the element at its centre is itself
# or inside it (nothing is drawn over it). Hidden elements (display:none, a collapsed section) are skipped.
_INPUTS_JS = """
([root, minWidth]) => {
  const problems = [];
  const scope = document.querySelector(root);
  if (!scope) return [`${root}: not found`];
  const shown = el => {
    if (!el.getClientRects().length) return false;
    const style = getComputedStyle(el);
    return style.visibility !== 'hidden' && style.display !== 'none';
  };
  for (const el of scope.querySelectorAll('input, select, textarea, button')) {
    if (!shown(el) || el.type === 'hidden') continue;
    el.scrollIntoView({block: 'center', inline: 'nearest'});
    const box = el.getBoundingClientRect();
    const name = el.getAttribute('aria-label') || el.title || el.name || el.textContent.trim().slice(0, 40)
      || el.closest('[data-name]')?.dataset.name || el.outerHTML.slice(0, 80);
    const small = el.type === 'checkbox' || el.type === 'radio' || el.tagName === 'BUTTON';
    if (!small && box.width < minWidth) problems.push(`${name}: ${Math.round(box.width)} px wide`);
    if (box.width < 1 || box.height < 1) { problems.push(`${name}: no box`); continue; }
    const x = box.left + box.width / 2, y = box.top + box.height / 2;
    const top = document.elementFromPoint(x, y);
    if (!top || !(top === el || el.contains(top) || top.contains(el) && top.tagName === 'LABEL'
                  || (el.labels && [...el.labels].some(l => l.contains(top))))) {
      const what = top ? `${top.tagName.toLowerCase()}.${[...top.classList].join('.')}` : 'nothing';
      problems.push(`${name}: covered by ${what}`);
    }
  }
  return problems;
}
"""

# Text that overflows its box (scrollWidth > clientWidth) must carry the full text in a title (a tooltip), on itself
# or an ancestor within the scope. Visually hidden text (a box of at most a pixel: labels for screen readers) is not
# text anyone can see cut off.
_CLIPPED_JS = """
([root]) => {
  const problems = [];
  const scope = document.querySelector(root);
  if (!scope) return [`${root}: not found`];
  for (const el of scope.querySelectorAll('*')) {
    if (!el.getClientRects().length || el.children.length) continue;
    // Text in a box of a pixel or less is hidden on purpose (a screen reader's label), not cut off.
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) continue;
    const text = el.textContent.trim();
    if (!text) continue;
    const style = getComputedStyle(el);
    if (style.overflow === 'visible' && style.textOverflow !== 'ellipsis') continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    let titled = false;
    for (let node = el; node && node !== scope.parentElement; node = node.parentElement) {
      if (node.title || node.getAttribute('aria-label') || node.dataset?.tooltip) { titled = true; break; }
    }
    if (!titled) problems.push(`"${text.slice(0, 50)}" is cut off without a tooltip`);
  }
  return problems;
}
"""

_INSIDE_JS = """
([inner, outer]) => {
  const problems = [];
  const container = document.querySelector(outer);
  if (!container) return [`${outer}: not found`];
  const box = container.getBoundingClientRect();
  for (const el of container.querySelectorAll(inner)) {
    if (!el.getClientRects().length) continue;
    const r = el.getBoundingClientRect();
    if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
      problems.push(`${inner} "${el.textContent.trim().slice(0, 40)}" sticks out of ${outer}`);
    }
  }
  return problems;
}
"""

_OVERLAPS_JS = """
([selector]) => {
  const boxes = [...document.querySelectorAll(selector)].filter(el => el.getClientRects().length)
    .map(el => [el.textContent.trim().slice(0, 40), el.getBoundingClientRect()]);
  const problems = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, p] = boxes[i], [b, q] = boxes[j];
      if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom) {
        problems.push(`"${a}" overlaps "${b}"`);
      }
    }
  }
  return problems;
}
"""


def unusable_inputs(page: Any, root: str, min_width: int = MIN_INPUT_WIDTH) -> list[str]:
    """Inputs, selects, text areas and buttons under `root` that a user cannot see or reach."""
    return list(page.evaluate(_INPUTS_JS, [root, min_width]))


def clipped_text(page: Any, root: str) -> list[str]:
    """Text under `root` cut off without a tooltip giving it whole."""
    return list(page.evaluate(_CLIPPED_JS, [root]))


def sticking_out(page: Any, inner: str, outer: str) -> list[str]:
    """Elements matching `inner` inside `outer` whose box is not inside `outer`'s."""
    return list(page.evaluate(_INSIDE_JS, [inner, outer]))


def overlapping(page: Any, selector: str) -> list[str]:
    """Pairs of visible elements matching `selector` whose boxes intersect."""
    return list(page.evaluate(_OVERLAPS_JS, [selector]))


def theme_loaded(page: Any) -> None:
    """JupyterLab covers the whole page with its splash while a theme loads, and fades it out after the theme is
    applied: until it is gone, everything under it reads as covered."""
    page.wait_for_selector("#jupyterlab-splash", state="detached", timeout=30_000)


# Whether the page's colours are the dark theme's now: its layout colour, as an element painted with it reads. The
# body's data-jp-theme-light flag says which theme was asked for; this, that its stylesheet applies.
PAINTED_DARK_JS = """() => {
    const probe = document.createElement('div');
    probe.style.background = 'var(--jp-layout-color1)';
    document.body.append(probe);
    const [r, g, b] = (getComputedStyle(probe).backgroundColor.match(/\\d+/g) ?? ['255', '255', '255']).map(Number);
    probe.remove();
    return (r + g + b) / 3 < 128;
}"""


def set_theme(page: Any, dark: bool) -> None:
    """Switch JupyterLab (or Notebook 7) to its dark or light theme through the command registry, and wait until its
    colours apply."""
    theme = "JupyterLab Dark" if dark else "JupyterLab Light"
    page.evaluate("theme => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", theme)
    page.wait_for_function(
        "dark => document.body.dataset.jpThemeLight === (dark ? 'false' : 'true')", arg=dark, timeout=30_000)
    page.wait_for_function(f"dark => ({PAINTED_DARK_JS})() === dark", arg=dark, timeout=30_000)
    theme_loaded(page)


def other_looks(page: Any, look: Callable[[str], list[str]]) -> dict[str, list[str]]:
    """From the page as JupyterLab opens it (1400 px wide, light), the three other looks a test checks and shoots:
    `look(name)`'s problems at "1400-dark", "700-dark" and "700-light"; the page is 1400 px and light again after."""
    problems = {}
    set_theme(page, dark=True)
    problems["1400-dark"] = look("1400-dark")
    page.set_viewport_size({"width": 700, "height": 900})
    problems["700-dark"] = look("700-dark")
    set_theme(page, dark=False)
    problems["700-light"] = look("700-light")
    page.set_viewport_size({"width": 1400, "height": 900})
    return problems


HIGH_CONTRAST = "JupyterLab Dark High Contrast"  # JupyterLab's own high-contrast theme


def set_high_contrast(page: Any) -> None:
    """Switch JupyterLab (or Notebook 7) to its dark high-contrast theme, and wait for it."""
    page.evaluate("theme => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", HIGH_CONTRAST)
    page.wait_for_function("name => document.body.dataset.jpThemeName === name", arg=HIGH_CONTRAST, timeout=30_000)
    theme_loaded(page)


def give_the_chart_room(page: Any, variables: float = 0.4) -> None:
    """What a user does to look at the sidebar's chart: drag the handle between its Variables and Live GPU memory
    sections, here to `variables` of the height for the variables (the first split gives them 70%: the sidebar shows
    the variables first, README). A folded GPUs section stays folded."""
    page.evaluate("""variables => {
        const panel = [...window.jupyterapp.shell.widgets('left')].find(w => w.id === 'mgenv-jupyter-sidebar');
        const sizes = panel.content.relativeSizes();
        const rest = sizes.slice(2);
        panel.content.setRelativeSizes([variables, 1 - variables - rest.reduce((a, b) => a + b, 0), ...rest]);
    }""", variables)
    page.wait_for_timeout(100)  # one layout pass: Lumino lays the sections out on the next animation frame

