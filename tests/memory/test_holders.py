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
    assert found.too_deep >= 1 and found.max_depth == 3  # data; %memholders says it in a line, a report does not
    from mgenv_jupyter.presentation._freeing import HoldersView

    assert "Objects more than 3 levels below a variable are not looked into." in repr(HoldersView(found, "en"))
    assert "levels below" not in repr(HoldersView(found, "en", limit=10, timing=False))  # as a report shows it
    assert "places" not in repr(HoldersView(found, "en"))  # no count of places nobody can look up


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


def test_a_widget_is_not_an_array_that_holds_the_users_array(ip):
    """Issue 36, point 2: a widget reaches the shell (its comm's kernel, our session link), the shell reaches the
    namespace, the namespace the user's array: `dtr` and its output-cache entry were listed as
    "numpy.ndarray (shares 64 MiB with weights)". What only the namespace itself reaches is nobody's but its name's."""
    ip.run_cell("import numpy as np, mgenv_jupyter", store_history=True)
    ip.run_cell("dtr = mgenv_jupyter.DTRWidget(); dtr", store_history=True)
    try:
        ip.run_cell("weights = np.ones(64 * 1024**2, dtype=np.uint8)", store_history=True)
        holders = ip.run_line_magic("memholders", "").holders.holders
        assert [(h.name, h.bytes, h.shared) for h in holders if "weights" in h.shares_with or h.name == "weights"] == [
            ("weights", 64 << 20, 0)]
        assert not [h for h in holders if h.name == "dtr" or h.output_cache and h.shares_with]
    finally:
        ip.user_ns["dtr"].close()


# ---- whatever the namespace holds (issue 28) ------------------------------------------------------------------------

class Counted:
    """Counts every piece of its own code the walk could run: a `__class__` property, `__getattribute__`,
    `__getattr__`, `__array_interface__`, a container's `__iter__`, `values()`, `items()`, `__getitem__`, `__len__`."""

    runs: dict[str, int] = {}

    @classmethod
    def ran(cls, what: str) -> None:
        cls.runs[what] = cls.runs.get(what, 0) + 1


class ClassProperty:
    def __init__(self) -> None:
        object.__setattr__(self, "payload", np.ones(MiB, dtype=np.uint8))

    @property  # type: ignore[misc]
    def __class__(self):  # noqa: PLE0237  (what a lazy proxy does)
        Counted.ran("__class__")
        return dict

    def __getattribute__(self, name):
        Counted.ran("__getattribute__")
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        Counted.ran("__getattr__")
        raise AttributeError(name)


class Slotted:
    __slots__ = ("weights",)

    def __getattr__(self, name):
        Counted.ran("slots __getattr__")
        raise AttributeError(name)


class Rows(list):
    def __iter__(self):
        Counted.ran("list subclass __iter__")
        return super().__iter__()

    def __len__(self):
        Counted.ran("list subclass __len__")
        return super().__len__()


class ArrayLike:
    """Exports its buffer to NumPy through `__array_interface__` (as many array libraries do); `np.asarray` reads it
    once, and the array's `.base` is this object."""

    def __init__(self) -> None:
        self._data = np.ones(MiB, dtype=np.uint8)

    @property
    def __array_interface__(self):
        Counted.ran("__array_interface__")
        return self._data.__array_interface__


def test_the_walk_runs_none_of_the_objects_code_and_still_finds_what_they_store():
    Counted.runs = {}
    slotted = Slotted()
    slotted.weights = np.ones(2 * MiB, dtype=np.uint8)
    exported = np.asarray(ArrayLike())
    Counted.runs = {}  # np.asarray read the interface once: the user's call, not ours
    found = memory_holders({"proxy": ClassProperty(), "slotted": slotted, "rows": Rows([np.ones(10)]),
                            "exported": exported})
    assert Counted.runs == {}, Counted.runs
    assert found["proxy"].bytes == MiB  # its own attributes, read as the interpreter stores them
    assert found["slotted"].bytes == 2 * MiB
    assert found["exported"].what == "numpy.ndarray"
    assert ("rows", "Rows", True) in found.closed, found.closed


def test_300_slow_objects_cannot_slow_the_walk_and_the_clock_is_read_every_few_objects():
    """300 objects whose every attribute access takes 0.5 ms took 2.5 s against a bound of 0.2 s: the walk ran their
    code, and read the clock once every 1,024 objects. Now their code runs 0 times, and a bound of 0 s stops the walk
    within the first few objects."""
    import time

    class Slow:
        def __getattribute__(self, name):
            Counted.ran("slow")
            time.sleep(0.0005)
            return object.__getattribute__(self, name)

    Counted.runs = {}
    namespace = {f"slow{i}": Slow() for i in range(300)}
    found = memory_holders(namespace, max_seconds=0.2)
    assert Counted.runs == {} and found.complete
    stopped = memory_holders({"rows": [[i] for i in range(5000)]}, max_seconds=0)
    assert not stopped.complete and stopped.visited <= 32, stopped.visited
    assert any("stopped after 0 s (its bound), in rows" in text.en for text in stopped.skipped)


def test_the_bound_never_escapes_even_among_the_variables_that_are_arrays():
    """`memory_holders(ns, max_visits=10)` raised the walk's private limit exception: the variables that are an
    array themselves were measured outside the code that catches it."""
    namespace = {f"a{i}": np.ones(1) for i in range(100)}
    found = memory_holders(namespace, max_visits=10)
    assert not found.complete and found.visited <= 10
    said = [text.en for text in found.skipped]
    assert any("stopped after 10 objects" in s for s in said), said
    assert found.left_out and all(name.startswith("a") for name in found.left_out)  # named, not silently left
    assert len(found.holders) < 100


def test_a_proxy_whose_class_lookup_raises_is_left_alone():
    """Django's `settings` before it is configured: a LazyObject whose `__class__` and `__getattr__` run a factory
    that raises. `isinstance` asks `__class__`; the walk asks `type()` only."""

    class ImproperlyConfigured(Exception):
        pass

    class LazySettings:
        _wrapped = None

        def _setup(self):
            Counted.ran("factory")
            raise ImproperlyConfigured("Requested settings, but settings are not configured.")

        def __getattr__(self, name):
            self._setup()

        @property  # type: ignore[misc]
        def __class__(self):  # noqa: PLE0237
            self._setup()

    Counted.runs = {}
    found = memory_holders({"settings": LazySettings(), "weights": np.ones(MiB, dtype=np.uint8)})
    assert Counted.runs == {}
    assert found["weights"].bytes == MiB and found.complete


def test_a_mapping_that_imports_on_access_imports_nothing_and_is_named(tmp_path, monkeypatch):
    """transformers' lazy mappings import a model's module when touched; a dict subclass stands for one, importing a
    real module from disk."""
    import importlib

    (tmp_path / "heavy_model_module.py").write_text("import numpy\nWEIGHTS = numpy.ones(8)\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    class LazyMapping(dict):
        def __getitem__(self, key):
            return importlib.import_module("heavy_model_module").WEIGHTS

        def values(self):
            return [self[key] for key in self]

        def items(self):
            return [(key, self[key]) for key in self]

        def __iter__(self):
            importlib.import_module("heavy_model_module")
            return super().__iter__()

    mapping = LazyMapping(bert="heavy_model_module")
    found = memory_holders({"MODEL_MAPPING": mapping, "cache": {"nested": [mapping]}})
    assert "heavy_model_module" not in sys.modules
    assert set(found.closed) == {("MODEL_MAPPING", "LazyMapping", True), ("cache", "LazyMapping", False)}


def test_what_a_function_or_method_holds_is_found_and_an_exceptions_traceback_too():
    def make():
        kept = np.ones(MiB, dtype=np.uint8)
        return lambda: kept

    class Trainer:
        def __init__(self) -> None:
            self.batch = np.ones(2 * MiB, dtype=np.uint8)

        def step(self) -> None:
            pass

    def failing():
        big = np.ones(3 * MiB, dtype=np.uint8)  # noqa: F841  (held by the frame)
        raise MemoryError("stand-in")

    try:
        failing()
    except MemoryError as exc:
        error = exc
    found = memory_holders({"closure": make(), "step": Trainer().step, "err": error})
    assert found["closure"].bytes == MiB and found["step"].bytes == 2 * MiB
    assert found["err"].bytes == 3 * MiB  # through its traceback's frames: what `del err` gives back


def test_rows_past_the_first_thousand_are_summed_and_none_is_dropped_in_silence():
    from mgenv_jupyter.memory._holders import MAX_ROWS
    from mgenv_jupyter.presentation._freeing import HoldersView

    namespace = {f"a{i}": np.ones(1, dtype=np.uint8) for i in range(MAX_ROWS + 500)}
    namespace["big"] = np.ones(MiB, dtype=np.uint8)
    found = memory_holders(namespace)
    assert len(found.holders) == MAX_ROWS and found.unlisted == 501 and found.holders[0].name == "big"
    assert found.totals == {"host": MiB + MAX_ROWS + 500}
    said = repr(HoldersView(found, "en"))
    assert f"{MAX_ROWS + 501 - 20:,} more variables hold host" in said, said


def test_the_variable_a_bound_stopped_in_says_it_holds_at_least_that():
    found = memory_holders({"rows": [np.ones(8) for _ in range(100)]}, max_visits=50)
    (row,) = found.holders
    assert row.partial and row.to_json()["partial"]
    from mgenv_jupyter.presentation._freeing import HoldersView

    assert "at least: the walk stopped inside it" in repr(HoldersView(found, "en"))
    assert "已查看的变量" not in repr(HoldersView(found, "zh"))  # it found one: no "none found" sentence
