"""Every "now:" agrees with its "live:": the value a variable holds and the framework call written out beside it carry
the same value, in the widgets' rows and in `%envget`'s view, for variables set in a cell and then changed while the
widgets are shown, one of them live in a running framework (the issue showed "now: 2048 … live:
paddle.set_flags({'FLAGS_initial_gpu_memory_in_mb': 4096})", the docs' example, as if it were the value).

The value inside a call is read back with `ast`, not with the code that wrote the call."""

from __future__ import annotations

import ast
import html
import re
import sys
from typing import Any

import pytest

from mgenv_jupyter import AllocatorWidget, ConfigWidget, DTRWidget

DEVICE = "MGE_DEFAULT_DEVICE"
THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"
POOL = "FLAGS_initial_gpu_memory_in_mb"
FRACTION = "FLAGS_fraction_of_gpu_memory_to_use"
# A MegEngine stand-in with the two calls the device's live API makes: it reads the variable at import, as MegEngine's
# device.py does, and then holds whatever set_default_device() gives it.
FAKE_MEGENGINE = """import os
_device = os.environ.get("MGE_DEFAULT_DEVICE", "xpux")
def set_default_device(device):
    global _device
    _device = device
def get_default_device():
    return _device
"""


def call_value(call: str) -> Any:
    """The value a framework call sets: `x.y = V`, `f(V)`, `f('key', V)` or `f({'key': V})`."""
    node = ast.parse(call).body[0]
    if isinstance(node, ast.Assign):
        return ast.literal_eval(node.value)
    assert isinstance(node, ast.Expr) and isinstance(node.value, ast.Call), call
    value = node.value.args[-1]
    if isinstance(value, ast.Dict):
        assert len(value.values) == 1, call
        value = value.values[0]
    return ast.literal_eval(value)


def typed(now: str) -> Any:
    """A shown value as the Python value a call would carry: numbers as numbers, anything else as its text."""
    try:
        value = ast.literal_eval(now)
    except (ValueError, SyntaxError):
        return now
    return value if isinstance(value, int | float) else now


def row_pairs(widget: Any) -> dict[str, tuple[str | None, str, bool]]:
    """For each row of `widget` with a live call: (its "now:" value or None when not set, the call, whether the call
    is labelled as an example)."""
    pairs = {}
    for name, row in widget.rows.items():
        facts = html.unescape(getattr(row, "details", None).value if hasattr(row, "details") else "")
        live = re.search(r"· (live(?: \(example[^)]*\))?): <code>(.*?)</code>", facts)
        if live is None:
            continue
        # A size reads as 2 GiB, the value itself (what a call carries) on hover: the value is the title, if any.
        now = re.search(r"now: (<code(?: title='(.*?)')?>(.*?)</code>|[^·]+?) ·", facts)
        assert now is not None, facts
        pairs[name] = (now.group(2) or now.group(3), live.group(2), live.group(1) != "live")
    return pairs


def disagreements(pairs: dict[str, tuple[str | None, str, bool]]) -> list[str]:
    wrong = []
    for name, (now, call, example) in pairs.items():
        if now is None and not example:
            wrong.append(f"{name}: not set, yet its call {call} is not labelled an example")
        elif now is not None and (example or call_value(call) != typed(now)):
            wrong.append(f"{name}: now {now!r}, live {call}" + (" (labelled an example)" if example else ""))
    return wrong


def view_pair(ip: Any, name: str) -> tuple[str, str]:
    """%envget's value ('NAME=...' on its first line; a size's as 'NAME=2 GiB (2147483648)') and its 'live:' line."""
    first, *rest = ip.run_line_magic("envget", name).lines()
    value = re.match(rf"{name}=(?:'(.*?)'|[^(:]* \((.*?)\)):", first)
    live = [line.strip().removeprefix("live: ") for line in rest if line.strip().startswith("live: ")]
    assert value is not None and len(live) == 1, (first, rest)
    return value.group(1) or value.group(2), live[0]


@pytest.fixture
def fake_megengine(tmp_path, monkeypatch):
    (tmp_path / "megengine.py").write_text(FAKE_MEGENGINE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "megengine", raising=False)
    yield
    sys.modules.pop("megengine", None)


def test_now_and_live_agree_in_every_row_and_view_as_values_are_set_then_changed_live(ip, closing, fake_megengine):
    ip.run_line_magic("envset", f"{DEVICE}=cpu1 {THRESHOLD}=2GB {POOL}=2048 {FRACTION}=0.5")
    shown = [DTRWidget(), AllocatorWidget(framework="paddle"), ConfigWidget(names=[DEVICE])]
    for widget in shown:
        closing(widget)

    def check(expected: dict[str, Any]) -> None:
        pairs = {name: pair for widget in shown for name, pair in row_pairs(widget).items()}
        assert {name: typed(pairs[name][0]) for name in expected} == expected
        assert disagreements(pairs) == []
        for name, value in expected.items():
            now, call = view_pair(ip, name)
            assert typed(now) == value and call_value(call) == value, (name, now, call)

    check({DEVICE: "cpu1", THRESHOLD: 2 * 1024**3, POOL: 2048, FRACTION: 0.5})
    ip.run_line_magic("envset", f"{THRESHOLD}=1GB {POOL}=4GB {FRACTION}=0.8")  # changed while the widgets are shown
    ip.run_cell("import megengine")  # reads the device at import; from now on it changes live
    ip.run_line_magic("envset", f"{DEVICE}=gpu0")
    assert sys.modules["megengine"].get_default_device() == "gpu0"  # the value shown is the one in effect
    assert ip.run_line_magic("envget", DEVICE).status.value == "applied_live"
    check({DEVICE: "gpu0", THRESHOLD: 1024**3, POOL: 4096, FRACTION: 0.8})
    ip.run_line_magic("envunset", POOL)  # unset: the call shows the default, labelled as an example
    pool_now, pool_call, pool_example = row_pairs(shown[1])[POOL]
    assert (pool_now, call_value(pool_call), pool_example) == (None, 0, True)


def test_call_value_reads_each_shape_of_call():
    assert call_value("megengine.dtr.eviction_threshold = 5368709120") == 5368709120
    assert call_value("megengine.set_default_device('gpu1:2')") == "gpu1:2"
    assert call_value("paddle.set_flags({'FLAGS_initial_gpu_memory_in_mb': 4096})") == 4096
    assert call_value("jax.config.update('jax_enable_x64', True)") is True
    assert disagreements({"X": ("2048", "paddle.set_flags({'X': 4096})", False)}) == ["X: now '2048', live "
                                                                                       "paddle.set_flags({'X': 4096})"]
