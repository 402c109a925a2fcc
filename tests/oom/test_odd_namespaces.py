"""The out-of-memory report and `%memholders` whatever the namespace holds (issue 28), in a real IPython shell showing
HTML as a notebook does: 100,000 arrays, Django's `settings` before it is configured (a lazy proxy whose class lookup
raises), a mapping that imports modules when touched, an object whose `__class__` and `__getattribute__` are its own.
Each time the report appears under the traceback, nothing of the user's objects runs, and `%debug`, `%tb` and
`sys.last_*` still open the user's error in the user's frame. (A real PyTorch model of 18,432 parameter tensors:
tests/frameworks/test_big_model_real.py.)"""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest
from IPython.utils.capture import capture_output

import mgenv_jupyter
from mgenv_jupyter.memory._holders import MAX_VISITS

FAILING = """
def step():
    where_am_i = "in the user's step()"
    raise MemoryError("stand-in: the next allocation failed")
step()
"""

# Django's LazySettings, reduced to what matters here: before `settings.configure()`, looking up anything on it,
# its class included, runs the factory, which raises.
LAZY_SETTINGS = """
class ImproperlyConfigured(Exception):
    pass

_factory_runs = []

class LazySettings:
    def _setup(self):
        _factory_runs.append(1)
        raise ImproperlyConfigured("Requested settings, but settings are not configured.")

    def __getattr__(self, name):
        self._setup()

    @property
    def __class__(self):
        self._setup()

settings = LazySettings()
"""


@pytest.fixture
def notebook_like(ip, monkeypatch):
    """The shell shows HTML too, as a notebook's kernel does: the report's text, HTML and renderer data are all made
    (each a place where an exception inside IPython's formatters would print a traceback of its own)."""
    monkeypatch.setattr(ip.display_formatter.formatters["text/html"], "enabled", True)
    added: list[str] = []
    yield ip, added
    for name in added:
        ip.user_ns.pop(name, None)


def _fail(ip) -> tuple[object, str, list]:
    """Run the failing cell: (its error, what the user saw as text, the displays under it)."""
    with capture_output() as captured:
        result = ip.run_cell(FAILING)
    return result.error_in_exec, captured.stdout + captured.stderr, captured.outputs


def _assert_the_users_error_is_the_last(ip, error) -> None:
    """`sys.last_*` and IPython's formatter keep the user's error, and `%debug` opens the user's frame."""
    assert sys.last_value is error and sys.last_type is MemoryError
    if hasattr(sys, "last_exc"):
        assert sys.last_exc is error
    tb = sys.last_traceback
    while tb.tb_next is not None:
        tb = tb.tb_next
    assert tb.tb_frame.f_code.co_name == "step"
    # %debug, as a user types it: the debugger reads its commands from stdin. (IPython keeps one debugger, bound to
    # the streams of its first use: an earlier test's captured ones.)
    ip.InteractiveTB.pdb = None
    stdin = sys.stdin
    sys.stdin = io.StringIO("p where_am_i\nq\n")
    try:
        with capture_output() as debugged:
            ip.run_line_magic("debug", "")
    finally:
        sys.stdin = stdin
    assert "in the user's step()" in debugged.stdout, debugged.stdout


def test_100000_arrays_as_globals(notebook_like):
    ip, added = notebook_like
    arrays = {f"a{i}": np.ones(1) for i in range(100_000)}
    ip.user_ns.update(arrays)
    added.extend(arrays)
    error, shown, outputs = _fail(ip)
    assert isinstance(error, MemoryError)
    assert shown.count("Traceback") == 1, shown  # the user's, and nothing of ours
    (report_display,) = outputs
    text = report_display.data["text/plain"]
    assert "What holds memory now" in text and "mgenv-holders" in report_display.data["text/html"]
    holders = mgenv_jupyter.last_oom().holders
    assert holders.visited <= MAX_VISITS
    if not holders.complete:  # its time bound came first on this machine: it says so, and names what it left out
        assert "s (its bound)" in text and "Not looked at: the variables a" in text
    _assert_the_users_error_is_the_last(ip, error)


def test_a_lazy_proxy_whose_class_lookup_raises(notebook_like):
    ip, added = notebook_like
    ip.run_cell(LAZY_SETTINGS)
    added.extend(["settings", "LazySettings", "ImproperlyConfigured", "_factory_runs"])
    error, shown, outputs = _fail(ip)
    assert shown.count("Traceback") == 1 and "ImproperlyConfigured" not in shown, shown
    assert len(outputs) == 1 and "What holds memory now" in outputs[0].data["text/plain"]
    view = ip.run_line_magic("memholders", "")
    assert "What holds memory now" in repr(view)
    assert ip.user_ns["_factory_runs"] == []
    _assert_the_users_error_is_the_last(ip, error)


def test_a_mapping_that_imports_modules_when_touched(notebook_like, tmp_path, monkeypatch):
    """transformers' lazy mappings (`_LazyAutoMapping`, an OrderedDict subclass) import a model's module when their
    items are read; here a dict subclass imports a real module from disk."""
    ip, added = notebook_like
    (tmp_path / "heavy_model_module.py").write_text("WEIGHTS = [0.0] * 8\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    ip.run_cell("import importlib\n"
                "class LazyMapping(dict):\n"
                "    def __getitem__(self, key):\n"
                "        return importlib.import_module(dict.__getitem__(self, key)).WEIGHTS\n"
                "    def values(self):\n"
                "        return [self[key] for key in dict.keys(self)]\n"
                "    def items(self):\n"
                "        return [(key, self[key]) for key in dict.keys(self)]\n"
                "    def __iter__(self):\n"
                "        importlib.import_module('heavy_model_module')\n"
                "        return dict.__iter__(self)\n"
                "MODEL_MAPPING = LazyMapping(bert='heavy_model_module')\n"
                "weights = np.ones(1 << 20, dtype=np.uint8) if 'np' in dir() else None\n")
    added.extend(["LazyMapping", "MODEL_MAPPING", "weights", "importlib"])
    error, shown, outputs = _fail(ip)
    assert "heavy_model_module" not in sys.modules
    text = outputs[0].data["text/plain"]
    assert "MODEL_MAPPING (LazyMapping)" in text and "only its own code could say" in text, text
    assert "MODEL_MAPPING (LazyMapping)" in repr(ip.run_line_magic("memholders", ""))
    assert "heavy_model_module" not in sys.modules
    _assert_the_users_error_is_the_last(ip, error)


def test_an_objects_own_class_and_attribute_lookups_run_zero_times(notebook_like):
    """Counted in the report (its holders and its free offer, which looks at the failed call's locals) and in
    %memholders: a `__class__` property ran 16 times and a `__getattribute__` override 17 times for one object."""
    ip, added = notebook_like
    ip.run_cell("runs = {'__class__': 0, '__getattribute__': 0}\n"
                "class Odd:\n"
                "    @property\n"
                "    def __class__(self):\n"
                "        runs['__class__'] += 1\n"
                "        return dict\n"
                "    def __getattribute__(self, name):\n"
                "        runs['__getattribute__'] += 1\n"
                "        return object.__getattribute__(self, name)\n"
                "odd = Odd()\n"
                "def step():\n"
                "    local_odd = odd\n"
                "    where_am_i = \"in the user's step()\"\n"
                "    raise MemoryError('stand-in')\n")
    added.extend(["runs", "Odd", "odd", "step"])
    with capture_output() as captured:
        result = ip.run_cell("step()")
    assert len(captured.outputs) == 1
    ip.run_line_magic("memholders", "")
    assert ip.user_ns["runs"] == {"__class__": 0, "__getattribute__": 0}
    _assert_the_users_error_is_the_last(ip, result.error_in_exec)


def test_a_view_failing_inside_ipythons_formatters_leaves_the_users_error_the_last(notebook_like, monkeypatch):
    """Whatever fails while the report is shown, IPython's formatters print it with a traceback of its own and make
    it the last error; the hook puts the user's back, so `%debug` and `%tb` still open the user's frame."""
    from mgenv_jupyter.presentation.oom import OomView

    ip, _ = notebook_like

    def broken(self):
        raise RuntimeError("a view's own bug")

    monkeypatch.setattr(OomView, "_repr_html_", broken)
    error, shown, _ = _fail(ip)
    assert "a view's own bug" in shown  # IPython shows what failed; it is not hidden
    _assert_the_users_error_is_the_last(ip, error)
