"""The page's HTML: what a server or the hub names is escaped, each problem code is labelled, and only an admin gets
the shutdown buttons and the confirmation."""

from __future__ import annotations

import json

from hub_server import GOOD_VIEW

from mgenv_jupyter.hub._page import PROBLEM_WORDS, render
from mgenv_jupyter.hub._reading import read_view
from mgenv_jupyter.hub._survey import Row, Server

HOSTILE = "<script>alert(1)</script>'.ipynb"


def rows() -> list[Row]:
    view = json.loads(json.dumps(GOOD_VIEW))
    view["kernels"][0]["notebooks"] = [HOSTILE]
    view["kernels"][0]["cull_at"] = "2026-12-02T03:00:00Z"
    return [Row(Server("ada", "", "/user/ada/"), read_view(json.dumps(view).encode())),
            Row(Server("<b>bob</b>", "", "/user/bob/"), None, "http", status=502),
            Row(Server("cy", "gpu", "/user/cy/gpu/"), None, "bad_view", field="devices[0].total")]


def test_names_are_escaped_and_problems_labelled() -> None:
    page = render(rows(), "ada", True, "xsrf'token")
    assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;&#x27;.ipynb" in page
    assert "<b>bob</b>" not in page and "answered HTTP 502" in page
    assert "not a GPU view (at devices[0].total)" in page
    assert "20.0 GiB" in page and "1 min" in page and "2026-12-02T03:00:00Z" in page
    assert "data-xsrf='xsrf&#x27;token'" in page and page.count("class='shutdown") == 1


def test_only_an_admin_gets_the_shutdown() -> None:
    page = render(rows(), "ada", False, "x")
    assert "class='shutdown" not in page and "<dialog" not in page and "20.0 GiB" in page


def test_every_problem_code_of_a_fetch_has_words() -> None:
    from typing import get_args

    from mgenv_jupyter.hub._fetch import FetchCode
    assert set(get_args(FetchCode)) - {"ok"} | {"bad_view"} == set(PROBLEM_WORDS)
