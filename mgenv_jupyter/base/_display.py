"""One way to show a result in a notebook: a result object (`SetReport`, `OomReport`, `FreeResult`, `ClusterReport`) is
data its domain collected, and it shows itself as the view presentation writes for it: `Shown` gives it the view's
`_repr_mimebundle_` (text, HTML and, where the labextension has a renderer, its own type), its text as `repr` and
`lines()`, its HTML as `_repr_html_`. IPython, nbconvert and every front end read the bundle; nothing is registered
with IPython, so a result shows the same whether or not `%load_ext` ran, as the last line of a cell or through
`display()`.

The domains sit below presentation and never import it: which view shows which kind of result is told once, when the
package loads, by the front end (`magics/_result_views.py`), and the view is imported only when a result is first shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Protocol


class View(Protocol):
    """What presentation writes for a result: the whole bundle, and the text it starts from."""

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]: ...

    def lines(self) -> list[str]: ...


_VIEWS: dict[str, Callable[[Any], View]] = {}


def show_with(kind: str, view: Callable[[Any], View]) -> None:
    """Show results of `kind` (`Shown.display_kind`) as `view(result)` from now on."""
    _VIEWS[kind] = view


def view_for(kind: str, result: Any) -> View | None:
    """The view of `kind` for `result` (None while no front end said which)."""
    make = _VIEWS.get(kind)
    return make(result) if make is not None else None


class Shown:
    """A result object shown through its view. A subclass names its `display_kind`; a dataclass takes `repr=False`,
    so that its repr is the view's text rather than its fields."""

    display_kind: ClassVar[str]

    def view(self) -> View | None:
        """The view presentation writes for this result (None only while no front end said which: the package's own
        import does, before any result exists)."""
        return view_for(self.display_kind, self)

    def lines(self) -> list[str]:
        view = self.view()
        return view.lines() if view is not None else [object.__repr__(self)]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        view = self.view()
        if view is None:
            return {"text/plain": object.__repr__(self)}
        return view._repr_mimebundle_(include, exclude)

    def _repr_html_(self) -> str | None:
        html = self._repr_mimebundle_().get("text/html")
        return html if isinstance(html, str) else None

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def __repr__(self) -> str:
        view = self.view()
        return repr(view) if view is not None else object.__repr__(self)


def text_and_html(view: Any) -> dict[str, Any]:
    """The bundle of a view with `lines()` and `_repr_html_()`: its text (`repr`) and HTML, what every front end can
    show; a view with a renderer of its own adds its type beside them."""
    return {"text/plain": repr(view), "text/html": view._repr_html_()}


class Verbatim(str):
    """Text made to be pasted somewhere else (`%envexport`'s shell lines, a dotenv file): still a `str` for code, but
    shown as it is, one line under another, rather than as Python's quoted repr with `\\n` escapes."""

    __slots__ = ()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {"text/plain": str(self)}

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))
