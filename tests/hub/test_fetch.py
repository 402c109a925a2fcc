"""One bounded request against real loopback servers: a trickle ends at the deadline, a body without a length is cut
at the cap, a redirect is not followed (nor its token sent on), and the status expected is the only success."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator

import pytest

from mgenv_jupyter.hub._fetch import request

from loopback_servers import Answer, Listener, answering, listening, never_finishing


@pytest.fixture
def listen() -> Iterator[Callable[[Answer], Listener]]:
    yield from listening()


def test_a_server_that_never_finishes_ends_at_the_deadline(listen: Callable[[Answer], Listener]) -> None:
    server = listen(never_finishing)
    started = time.monotonic()
    outcome = asyncio.run(request(f"http://127.0.0.1:{server.port}/x", "t", 0.8, 1 << 20))
    assert outcome.code == "timeout" and time.monotonic() - started < 2.5


def test_a_body_without_a_length_is_cut_at_the_cap(listen: Callable[[Answer], Listener]) -> None:
    def endless(conn, stop) -> None:  # type: ignore[no-untyped-def]
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n")
        while not stop.is_set():
            try:
                conn.sendall(b"x" * 65536)
            except OSError:
                return
    server = listen(endless)
    outcome = asyncio.run(request(f"http://127.0.0.1:{server.port}/x", "t", 5, 100_000))
    assert (outcome.code, outcome.body) == ("too_large", b"")


def test_a_redirect_is_an_answer_not_a_way_elsewhere(listen: Callable[[Answer], Listener]) -> None:
    elsewhere = listen(answering(b"{}"))
    server = listen(answering(b"", status="302 Found", headers=f"Location: http://127.0.0.1:{elsewhere.port}/"))
    outcome = asyncio.run(request(f"http://127.0.0.1:{server.port}/x", "secret", 2, 1 << 20))
    assert (outcome.code, outcome.status) == ("http", 302) and elsewhere.connections == 0


def test_a_delete_succeeds_on_the_status_it_expects_only(listen: Callable[[Answer], Listener]) -> None:
    done = listen(answering(b"", status="204 No Content", headers="X: y"))
    assert asyncio.run(request(f"http://127.0.0.1:{done.port}/k", "t", 2, 1024, "DELETE", 204)).code == "ok"
    ok = listen(answering(b"{}"))
    assert asyncio.run(request(f"http://127.0.0.1:{ok.port}/k", "t", 2, 1024, "DELETE", 204)).status == 200
    assert b"DELETE /k " in done.requests[0]
