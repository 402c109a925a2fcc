"""What holds memory, by name (memory/_holders.py), with NumPy here and in a real IPython shell; the frameworks' own
tensors and modules in their venvs (tests/frameworks/test_free_real.py)."""

from __future__ import annotations

import sys

import numpy as np

import mgenv_jupyter
from mgenv_jupyter.memory._holders import memory_holders

MiB = 1 << 20


def test_sizes_largest_first_and_a_view_counted_once_for_its_owner():
    base = np.ones(4 * MiB, dtype=np.uint8)
    found = memory_holders({"view": base[::2], "small": np.ones(MiB, dtype=np.uint8), "base": base,
                            "nested": {"a": [np.ones(2 * MiB, dtype=np.uint8)]}, "name": "text", "n": 3})
    assert [h.name for h in found.holders] == ["base", "nested", "small", "view"]
    assert found["base"].devices == (("host", 4 * MiB),)
    assert found["view"].bytes == 0 and found["view"].shared == 4 * MiB and found["view"].shares_with == ("base",)
    assert found["nested"].bytes == 2 * MiB
    assert found.totals == {"host": 7 * MiB}
    assert not found.skipped


def test_the_bounds_say_what_they_left_out_and_never_hide_a_variable_that_is_an_array():
    namespace = {f"rows{i}": [[j] for j in range(100)] for i in range(50)}
    namespace["later"] = [np.ones(10)]
    namespace["direct"] = np.ones(MiB, dtype=np.uint8)
    found = memory_holders(namespace, max_visits=500, max_items=50)
    assert found["direct"].bytes == MiB
    said = [text.en for text in found.skipped]
    assert any("stopped after 500 objects" in s for s in said), said
    assert any("only the first 50 of its 100 items" in s for s in said), said
    assert "later" not in {h.name for h in found.holders}
    assert any("之后的容器未查看" in text.zh for text in found.skipped)


def test_depth_is_bounded_and_said():
    deep: list = [np.ones(8)]
    for _ in range(10):
        deep = [deep]
    found = memory_holders({"deep": deep}, max_depth=3)
    assert not found.holders
    assert any("more than 3 levels" in text.en for text in found.skipped)


def test_no_framework_is_imported_to_look(monkeypatch):
    monkeypatch.delitem(sys.modules, "numpy")
    found = memory_holders({"x": [1, 2]})
    assert found.frameworks == () and "numpy" not in sys.modules


def test_in_a_shell_the_output_cache_is_named_and_ipythons_own_names_are_not(ip):
    ip.run_cell("import numpy as np\nweights = np.ones(2 << 20, dtype=np.uint8)")
    ip.run_cell("np.ones(3 << 20, dtype=np.uint8)")  # kept only by the output cache
    view = ip.run_line_magic("memholders", "")
    names = [h.name for h in view.holders.holders]
    out = next(h for h in view.holders.holders if h.output_cache)
    assert out.name.startswith("Out[") and out.bytes == 3 << 20
    assert "weights" in names and not {"_", "__", "_oh", "Out", "In", "np"} & set(names)
    said = repr(view)
    assert "weights  2 MiB  numpy.ndarray  [host 2 MiB]" in said and "output cache" in said
    assert mgenv_jupyter.memory_holders().to_json()["holders"] == view.to_json()["holders"]
