"""The survey against real loopback HTTP servers standing in for single-user servers: one answers a real GPU view,
the others slowly, hugely, with garbage or not at all. Every row comes back within the deadline and says what went
wrong; the good server's view is read in full whatever the others do."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator

import pytest
from hub_server import GOOD_VIEW

from mgenv_jupyter.hub import _survey
from mgenv_jupyter.hub._survey import Hub, Server, servers_of, survey

from loopback_servers import Answer, Listener, answering, listening, silent, trickling


@pytest.fixture
def listen() -> Iterator[Callable[[Answer], Listener]]:
    yield from listening()


def hub_for(listener: Listener) -> Hub:
    return Hub(api_url="http://127.0.0.1:1/hub/api/", proxy_url=f"http://127.0.0.1:{listener.port}", token="t0k")


def test_slow_huge_garbled_and_silent_servers_each_get_their_row_and_none_holds_the_page(
        listen: Callable[[Answer], Listener], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_survey, "VIEW_TIMEOUT", 1.0)
    monkeypatch.setattr(_survey, "VIEW_LIMIT", 64 << 10)
    body = json.dumps(GOOD_VIEW).encode()
    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode()
    answers = {
        "good": answering(body),
        "slow": trickling(head, body, 0.2),  # a byte every 0.2 s: minutes for the whole view
        "huge": answering(b"[" + b"0," * (1 << 20) + b"0]"),
        "garbage": answering(b"\xff\xfe not json {{{"),
        "deep": answering(b"[" * 5000 + b"]" * 5000),
        "wrong": answering(json.dumps({**GOOD_VIEW, "devices": [{**GOOD_VIEW["devices"][0], "total": "80GB"}]})
                           .encode()),
        "forbidden": answering(b"{}", status="403 Forbidden"),
        "silent": silent,
    }
    rows = []
    started = time.monotonic()
    for name, answer in answers.items():
        listener = listen(answer)
        rows.append((name, listener, Server(name, "", "/user/x/")))
    results = asyncio.run(_each(rows))
    took = time.monotonic() - started
    problems = {row.server.user: (row.problem, row.status, row.field) for row in results}
    assert problems == {"good": (None, None, None), "slow": ("timeout", None, None),
                        "huge": ("too_large", None, None), "garbage": ("bad_view", None, "(not JSON)"),
                        "deep": ("bad_view", None, "(not JSON)"), "wrong": ("bad_view", None, "devices[0].total"),
                        "forbidden": ("http", 403, None), "silent": ("timeout", None, None)}
    good = next(row for row in results if row.server.user == "good")
    assert good.view is not None and good.view.devices[0].shares[0].used == 20 << 30
    assert good.view.kernels[0].notebooks == ("train.ipynb",)
    assert took < 1.0 + 2.0, took  # every server at once: one deadline, not eight in turn
    for _, listener, _ in rows:  # the service's token went with each request, and only the GPU view was asked
        assert listener.requests and all(b"Authorization: token t0k" in r and b"GET /user/x/mgenv-jupyter/gpus "
                                         in r for r in listener.requests)


async def _each(rows: list[tuple[str, Listener, Server]]) -> list[_survey.Row]:
    found = await asyncio.gather(*(survey(hub_for(listener), [server]) for _, listener, server in rows))
    return [row for rows_of_one in found for row in rows_of_one]


def test_a_refused_connection_is_a_row_too() -> None:
    rows = asyncio.run(survey(Hub("http://127.0.0.1:1/", "http://127.0.0.1:1", "t"), [Server("gone", "", "/u/")]))
    assert [(row.problem, row.view) for row in rows] == [("refused", None)]


def test_the_hubs_user_model_is_read_field_by_field() -> None:
    model = {"name": "ada", "servers": {
        "": {"url": "/user/ada/", "ready": True},
        "gpu": {"url": "/user/ada/gpu/", "ready": False},  # starting: not asked
        "evil": {"url": "//elsewhere.example/x", "ready": True},  # not a path on the proxy: never asked
        "odd": {"url": "/user/ada/odd?x=1", "ready": True},
        "up": {"url": "/user/ada/../../hub/api/", "ready": True},
        "many": "not a server"}}
    assert servers_of(model) == [Server("ada", "", "/user/ada/")]
    assert servers_of({"name": 7}) == [] and servers_of(None) == []
