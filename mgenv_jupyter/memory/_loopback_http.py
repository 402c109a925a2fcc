"""One GET to a server on this machine's loopback interface, within one deadline, never raising.

The request carries a Jupyter server's token, and it is made while an out-of-memory report waits for it. urllib's
default opener, which did it before, is wrong for both: it sends through the proxy that `http_proxy` or `all_proxy`
names (for 127.0.0.1 too, unless `no_proxy` says otherwise), so a notebook that set a proxy for its downloads handed
the proxy the token; it follows redirects wherever they point, token included; and its timeout bounds each socket
read, not the request, so a server that trickles one byte every half second holds the caller as long as it likes.

Here:
- the socket connects to loopback address literals given by the caller, never to a name that a resolver or a proxy
  could turn into another host;
- http.client writes the request and parses the answer: it knows no proxy and follows no redirect, and anything but
  200 is a failure (a 3xx included);
- every send and receive on the socket shares one deadline (the socket's timeout is set to the time left before
  each), so connecting, sending, the headers and the body together end by it however the server paces its bytes;
- the body is read up to a limit, and a larger one is a failure.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Mapping, Sequence
from typing import Any


class _DeadlineSocket(socket.socket):
    """A socket whose sends and receives all end by one deadline (`time.monotonic()` seconds)."""

    deadline = 0.0

    def arm(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request's deadline has passed")
        self.settimeout(left)

    # http.client reads through socket.makefile(), whose reader calls recv_into; the others are here for completeness.
    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        self.arm()
        return super().recv_into(buffer, nbytes, flags)

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        self.arm()
        return super().recv(bufsize, flags)

    def sendall(self, data: Any, flags: int = 0) -> None:
        self.arm()  # since Python 3.5 a timeout bounds the whole sendall, not each piece of it
        super().sendall(data, flags)

    def send(self, data: Any, flags: int = 0) -> int:
        self.arm()
        return super().send(data, flags)


def get(addresses: Sequence[str], port: int, target: str, headers: Mapping[str, str], timeout: float,
        limit: int) -> bytes | None:
    """The body of a 200 answer to `GET target` from the first of `addresses` (loopback IP literals, each tried in
    turn until one accepts the connection) at `port`, of at most `limit` bytes, all within `timeout` seconds; None
    for anything else: refused, a status other than 200, a larger or cut body, too slow, not HTTP."""
    deadline = time.monotonic() + timeout
    # Imported here, not with the module: http.client brings email's parser, and the out-of-memory report that asks
    # this must come at once.
    import http.client

    for address in addresses:
        try:
            sock = _DeadlineSocket(socket.AF_INET6 if ":" in address else socket.AF_INET, socket.SOCK_STREAM)
        except OSError:  # no IPv6 here
            continue
        sock.deadline = deadline
        try:
            sock.arm()
            sock.connect((address, port))
        except OSError:  # refused, unreachable, too slow: the next address (localhost's ::1 after 127.0.0.1)
            sock.close()
            continue
        connection = http.client.HTTPConnection(address, port)
        connection.sock = sock
        try:
            connection.request("GET", target, headers=dict(headers))
            response = connection.getresponse()
            if response.status != 200:
                return None
            body = response.read(limit + 1)
            # Larger than the limit, or shorter than its Content-Length said (the server closed in the middle).
            return body if len(body) <= limit and not response.length else None
        except (OSError, http.client.HTTPException, ValueError):  # too slow, gone, not HTTP, a bad header
            return None
        finally:
            connection.close()
    return None
