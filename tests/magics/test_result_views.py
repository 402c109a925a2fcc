"""One way to show a result (mgenv_jupyter/base/_display.py, magics/_result_views.py): every result object of the
package shows itself as its presentation view, through its own `_repr_mimebundle_`, text and HTML always and the
labextension renderer's data where there is one; its repr is the view's text. Nothing is registered with IPython."""

from __future__ import annotations

import importlib
import pkgutil

from IPython.core.formatters import DisplayFormatter
from oom_reports import report as oom_report

import mgenv_jupyter
from mgenv_jupyter.base._display import _VIEWS, Shown
from mgenv_jupyter.cluster._seen import AT_START, Seen
from mgenv_jupyter.cluster._verify_report import ClusterReport
from mgenv_jupyter.memory._holders import Holders
from mgenv_jupyter.oom._free import FreeResult, Reading
from mgenv_jupyter.presentation._changes import SetReportView
from mgenv_jupyter.presentation._freeing import FreeView, HoldersView
from mgenv_jupyter.presentation._verify import VerifyView
from mgenv_jupyter.presentation.oom import OomView
from mgenv_jupyter.protocol._freeing import FREE_MIME
from mgenv_jupyter.protocol._oom import OOM_MIME


def test_every_kind_of_result_in_the_package_has_its_view():
    for module in pkgutil.walk_packages(mgenv_jupyter.__path__, "mgenv_jupyter."):
        if not module.name.startswith("mgenv_jupyter.server"):
            importlib.import_module(module.name)
    kinds = {cls.display_kind for cls in _subclasses(Shown)}
    assert kinds == {"set_report", "oom_report", "free_result", "holders", "cluster_report", "sweep_result",
                     "sweep_applied", "sweep_point"}
    assert kinds <= set(_VIEWS)


def test_each_result_shows_as_its_view_text_html_and_renderer_data(fresh_session):
    reading = Reading(1.0, 800 * 1024**2, {}, {})
    results = [
        (fresh_session.set({"MY_SETTING": "on"}), SetReportView, None),
        (oom_report(), OomView, OOM_MIME),
        (FreeResult(reading, reading, (), (), (), 0, None), FreeView, FREE_MIME),
        (Holders((), 12, 0.001), HoldersView, None),
        (ClusterReport([], [Seen("node_a", "A", "1", "1", True, AT_START)]), VerifyView, None),
    ]
    formatter = DisplayFormatter()  # a notebook's: every type
    for result, view_type, renderer in results:
        view = result.view()
        assert type(view) is view_type
        bundle, _ = formatter.format(result)
        assert bundle["text/plain"] == repr(view) == repr(result) and repr(result).strip()
        assert bundle["text/html"] == view._repr_html_() == result._repr_html_()
        assert set(bundle) == {"text/plain", "text/html", *([renderer] if renderer else [])}
        assert result.lines() == view.lines()


def _subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        if sub.__module__.startswith("mgenv_jupyter."):
            found.add(sub)
        found |= _subclasses(sub)
    return found
