"""Real TCP servers on 127.0.0.1 that answer HTTP requests each in its own way: as a server should, slowly, never,
with a redirect or a hostile body. For the tests of a kernel's call to its Jupyter server (tests/memory), which must
end by its deadline and send its token nowhere else, whatever the server does."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator

Answer = Callable[[socket.socket, threading.Event], None]


class Listener:
    """A real TCP server on 127.0.0.1: each connection is answered by `answer` on a thread of its own, after the
    request's head is read; every request's head is kept, and every connection counted."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.requests: list[bytes] = []
        self.connections = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:  # close() shut the socket down
                return
            self.connections += 1
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            head = b""
            try:
                while b"\r\n\r\n" not in head and len(head) < 65536:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    head += chunk
                self.requests.append(head)
                self.answer(conn, self.stop)
            except OSError:  # the client gave up: what these servers are for
                pass

    def close(self) -> None:
        self.stop.set()
        self.server.shutdown(socket.SHUT_RDWR)  # wakes the accept() under way
        self.thread.join(5)
        self.server.close()


def listening() -> Iterator[Callable[[Answer], Listener]]:
    """A test's `listen(answer)`: starts a Listener, each closed when the test ends (a fixture's body)."""
    started: list[Listener] = []

    def start(answer: Answer) -> Listener:
        started.append(Listener(answer))
        return started[-1]

    yield start
    for listener in started:
        listener.close()


def answering(body: bytes, status: str = "200 OK", headers: str = "Content-Type: application/json") -> Answer:
    def answer(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(f"HTTP/1.1 {status}\r\n{headers}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
                     .encode() + body)
    return answer


def trickling(head: bytes, body: bytes, every: float) -> Answer:
    """Sends `head` at once, then `body` one byte every `every` seconds (a server that is slow, not silent)."""
    def answer(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(head)
        for byte in body:
            if stop.wait(every):
                return
            conn.sendall(bytes([byte]))
    return answer


def never_finishing(conn: socket.socket, stop: threading.Event) -> None:
    """A 200 without a length, then a space every quarter second until the client leaves."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"owners\": [")
    while not stop.wait(0.25):
        conn.sendall(b" ")


def silent(conn: socket.socket, stop: threading.Event) -> None:
    stop.wait(30)
