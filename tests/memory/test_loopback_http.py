"""One GET to a server on loopback (_loopback_http.py), against real TCP servers on 127.0.0.1: the body of a 200
within its limit; anything else None, never an exception; the whole request within one deadline however the server
paces its bytes. (The call as the kernel makes it, token, proxy and runtime file included: test_server_owners.py.)"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator

import pytest

from mgenv_jupyter.memory._loopback_http import get

from loopback_servers import Answer, Listener, answering, listening, never_finishing, silent, trickling


@pytest.fixture
def listen() -> Iterator[Callable[[Answer], Listener]]:
    yield from listening()


def fetch(listener: Listener, limit: int = 1024, timeout: float = 1.0,
          addresses: tuple[str, ...] = ("127.0.0.1",)) -> bytes | None:
    return get(addresses, listener.port, "/x?pid=1", {"Authorization": "token t"}, timeout, limit)


def test_a_200_gives_its_body_and_the_request_is_plain(listen):
    server = listen(answering(b'{"ok": true}'))
    assert fetch(server) == b'{"ok": true}'
    (request,) = server.requests
    assert request.startswith(b"GET /x?pid=1 HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"\r\nAuthorization: token t\r\n" in request


def test_a_chunked_answer_is_read_whole(listen):
    def chunked(conn: socket.socket, stop: object) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")

    assert fetch(listen(chunked)) == b"hello world"


@pytest.mark.parametrize("status", ["204 No Content", "302 Found", "403 Forbidden", "404 Not Found",
                                    "500 Internal Server Error"])
def test_any_status_but_200_is_none(listen, status):
    assert fetch(listen(answering(b"{}", status=status, headers="Location: http://127.0.0.1:9/"))) is None


def test_a_body_is_read_up_to_its_limit(listen):
    assert fetch(listen(answering(b"x" * 1024))) == b"x" * 1024
    assert fetch(listen(answering(b"x" * 1025))) is None


def test_a_flood_without_a_length_stops_at_the_limit(listen):
    def flood(conn: socket.socket, stop: object) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
        while True:
            conn.sendall(b"x" * 65536)

    started = time.monotonic()
    assert fetch(listen(flood), limit=1 << 20) is None
    assert time.monotonic() - started < 1.5


@pytest.mark.parametrize("answer", [
    trickling(b"", b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", 0.1),
    trickling(b"HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n", b" " * 40, 0.1),
    never_finishing,
    silent,
], ids=["head trickled", "body trickled", "never finishes", "never answers"])
def test_the_whole_request_ends_by_its_deadline(listen, answer):
    server = listen(answer)
    started = time.monotonic()
    assert fetch(server, timeout=0.25) is None
    took = time.monotonic() - started
    assert 0.2 < took < 0.75, f"{took:.2f} s"  # the server would have taken 4 s or forever


def test_the_next_address_is_tried_when_one_refuses(listen):
    server = listen(answering(b"{}"))
    with socket.create_server(("127.0.0.1", 0)) as taken:
        closed = taken.getsockname()[1]
    assert get(("127.0.0.1",), closed, "/", {}, 1.0, 10) is None
    # ::1 at the server's port: refused (or no IPv6 here); then 127.0.0.1 answers.
    assert fetch(server, addresses=("::1", "127.0.0.1")) == b"{}"


def test_what_is_not_http_is_none(listen):
    def garbage(conn: socket.socket, stop: object) -> None:
        conn.sendall(b"\x00\xff" * 1000 + b"\r\n\r\n")

    def too_many_headers(conn: socket.socket, stop: object) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 200 + b"\r\n{}")

    def short(conn: socket.socket, stop: object) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{}")

    for answer in (garbage, too_many_headers, short):
        assert fetch(listen(answer)) is None
