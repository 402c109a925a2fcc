"""One request of the hub's service to a single-user server (or to the hub's API), bounded: one deadline for the whole
request however the server paces its bytes, a cap on the answer's size, no redirect followed and no proxy of the
environment used; never raises. The kernel's own call to its server is bounded the same way
(memory/_loopback_http.py); here the event loop must go on serving the page meanwhile, so it is tornado's client.

The outcome is a code (`Outcome.code`), which the page labels: ok, timeout (the deadline passed), too_large (more than
the cap), refused (no connection), http (a status other than the expected one: `status`), error (not HTTP, cut off).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Literal

from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.simple_httpclient import HTTPTimeoutError, SimpleAsyncHTTPClient

FetchCode = Literal["ok", "timeout", "too_large", "refused", "http", "error"]


@dataclass(frozen=True)
class Outcome:
    code: FetchCode
    body: bytes = b""
    status: int | None = None


class _TooLarge(Exception):
    pass


_client: SimpleAsyncHTTPClient | None = None


def _the_client() -> SimpleAsyncHTTPClient:
    # One client for the service's loop, with room for every server at once: a slow server must not queue the others
    # behind it (a queued request's wait would count against its own deadline).
    global _client
    if _client is None:
        _client = SimpleAsyncHTTPClient(force_instance=True, max_clients=256)
    return _client


async def request(url: str, token: str, timeout: float, limit: int, method: str = "GET",
                  expect: int = 200) -> Outcome:
    """`method url` with the token in the Authorization header; its outcome within `timeout` seconds, the body read up
    to `limit` bytes."""
    received: list[bytes] = []
    size = 0

    def take(chunk: bytes) -> None:
        nonlocal size
        size += len(chunk)
        if size > limit:
            raise _TooLarge  # tornado closes the connection and fails the fetch with it
        received.append(chunk)

    http_request = HTTPRequest(url, method=method, headers={"Authorization": f"token {token}"},
                               connect_timeout=timeout, request_timeout=timeout, follow_redirects=False,
                               streaming_callback=take, allow_nonstandard_methods=True, decompress_response=False)
    try:
        # tornado's request_timeout bounds the whole request; wait_for is the same deadline again, should it not.
        response = await asyncio.wait_for(_the_client().fetch(http_request, raise_error=False), timeout + 1)
    except (asyncio.TimeoutError, HTTPTimeoutError):
        return Outcome("timeout")
    except _TooLarge:
        return Outcome("too_large")
    except ConnectionRefusedError:
        return Outcome("refused")
    except (OSError, HTTPClientError, ValueError):
        return Outcome("too_large" if size > limit else "error")
    if size > limit:
        return Outcome("too_large")
    if response.code == 599:  # tornado's code for no HTTP answer: the deadline, a refusal, a cut
        error = response.error
        if isinstance(error, HTTPTimeoutError):
            return Outcome("timeout")
        if isinstance(error, _TooLarge):
            return Outcome("too_large")
        if isinstance(error, ConnectionRefusedError):
            return Outcome("refused")
        return Outcome("error")
    if response.code != expect:
        return Outcome("http", status=response.code)
    return Outcome("ok", b"".join(received), response.code)
