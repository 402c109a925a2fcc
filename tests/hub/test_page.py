"""The page's HTML: what a server or the hub names is escaped, each problem code is labelled, and only an admin gets
the shutdown buttons and the confirmation."""

from __future__ import annotations

import json
import re

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
    assert "20 GiB" in page and "1 min" in page and "2026-12-02T03:00:00Z" in page
    assert "data-xsrf='xsrf&#x27;token'" in page and page.count("class='shutdown") == 1


def test_only_an_admin_gets_the_shutdown() -> None:
    page = render(rows(), "ada", False, "x")
    assert "class='shutdown" not in page and "<dialog" not in page and "20 GiB" in page


def test_every_problem_code_of_a_fetch_has_words() -> None:
    from typing import get_args

    from mgenv_jupyter.hub._fetch import FetchCode
    assert set(get_args(FetchCode)) - {"ok"} | {"bad_view"} == set(PROBLEM_WORDS)


def view_on(host: object, kernel: str, used: int, device_used: int) -> bytes:
    view = json.loads(json.dumps(GOOD_VIEW))
    view["host"] = host
    view["kernels"][0]["id"] = kernel
    view["devices"][0]["shares"][0].update(kernel_id=kernel, used=used)
    view["devices"][0]["used"] = device_used
    return json.dumps(view).encode()


def test_servers_on_one_machine_are_one_node_and_the_device_adds_up() -> None:
    here = {"hostname": "gpu-node-1", "id": "11111111-1111-4111-8111-111111111111"}
    there = {"hostname": "<i>gpu-node-2</i>", "id": "22222222-2222-4222-8222-222222222222"}
    container = {**here, "hostname": "c0ffee"}  # a container on the first machine, with a host name of its own
    page = render([Row(Server("ada", "", "/user/ada/"), read_view(view_on(here, "a", 20 << 30, 27 << 30))),
                   Row(Server("bob", "", "/user/bob/"), read_view(view_on(container, "b", 6 << 30, 27 << 30))),
                   Row(Server("cy", "", "/user/cy/"), read_view(view_on(there, "c", 1 << 30, 2 << 30))),
                   Row(Server("dee", "", "/user/dee/"), read_view(view_on(None, "d", 1 << 30, 1 << 30)))],
                  "ada", True, "x")
    nodes = re.findall(r"<h2 class='node' data-node='([^']*)'[^>]*>Node ([^<]*)</h2>(.*?)(?=<h2)", page, re.S)
    assert [(node, name) for node, name, _ in nodes] == [
        (here["id"], "gpu-node-1, c0ffee"), (there["id"], "&lt;i&gt;gpu-node-2&lt;/i&gt;"), ("", "dee’s server")]
    first = nodes[0][2]
    assert first.count("<h3>") == 1 and re.findall(r"class='holder' data-kernel='(\w)'", first) == ["a", "b"]
    held = [int(n) for n in re.findall(r"<tr class='(?:holder|rest)'[^>]*data-bytes='(\d+)'", first)]
    assert held == [20 << 30, 6 << 30, 1 << 30] and sum(held) == int(re.findall(r"data-used='(\d+)'", first)[0])
    assert "1 GiB</td>" in first  # the rest: what no notebook of the page holds
