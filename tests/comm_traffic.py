"""The comm messages between a page and its kernels, read off the kernel websockets: a test waits for the kernel's
answer to a request of the front end's instead of for a while."""

from __future__ import annotations

import json
import time
import weakref
from typing import Any


class CommTraffic:
    """Every comm message between a page and its kernels, read from the kernel websockets the page opens after this is
    made (Jupyter's v1 websocket protocol, or the JSON one): what the front end asked and what the kernel answered,
    so that a test can wait for the kernel's answer to a request instead of for a while."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        page.on("websocket", self._watch)
        _traffic[page] = self

    @staticmethod
    def of(page: Any) -> CommTraffic:
        """The recorder made for this page (by a fixture that opened it, say)."""
        return _traffic[page]

    def _watch(self, socket: Any) -> None:
        if "/api/kernels/" in socket.url:
            socket.on("framesent", lambda payload: self._record(self.sent, payload))
            socket.on("framereceived", lambda payload: self._record(self.received, payload))

    @staticmethod
    def _record(into: list[dict[str, Any]], payload: str | bytes) -> None:
        content = _ws_content(payload)
        data = content.get("data") if isinstance(content, dict) else None
        if "comm_id" in content and isinstance(data, dict):
            into.append(data)

    def mark(self) -> int:
        """Where the requests sent from now on start (for wait_for_answer)."""
        return len(self.sent)

    def wait_for_answer(self, request: dict[str, Any], after: int, timeout_s: float = 30) -> dict[str, Any]:
        """The kernel's answer to the first request sent since `after` (a mark()) whose fields include `request`'s
        (`{"type": "memory", "on": False}`), once it has arrived."""
        start = after
        deadline = time.monotonic() + timeout_s
        while True:
            asked = [m for m in self.sent[start:] if request.items() <= m.items()]
            answers = [m for m in self.received if asked and m.get("reply_to") == asked[0].get("id")]
            if answers:
                return answers[0]
            assert time.monotonic() < deadline, f"no answer to {request} in {timeout_s:.0f} s (sent: {asked})"
            self.page.wait_for_timeout(50)  # Playwright delivers the socket's frames while it waits


_traffic: weakref.WeakKeyDictionary[Any, CommTraffic] = weakref.WeakKeyDictionary()


def _ws_content(payload: str | bytes) -> Any:
    """A kernel websocket frame's message content: the v1 protocol's binary frame (offsets, then the channel, header,
    parent header, metadata, content and buffers), or the older protocol's JSON message."""
    try:
        if isinstance(payload, str):
            return json.loads(payload).get("content", {})
        count = int.from_bytes(payload[:8], "little")
        offsets = [int.from_bytes(payload[8 * (i + 1):8 * (i + 2)], "little") for i in range(count)]
        return json.loads(payload[offsets[4]:offsets[5]]) if count > 5 else {}
    except (ValueError, AttributeError):  # not a message (a frame of something else)
        return {}
