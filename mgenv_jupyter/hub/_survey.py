"""Every running single-user server's GPU view, asked of all of them at once: the hub's API lists the users and their
ready servers (with the service's token), then each server is asked for `<server_url>mgenv-jupyter/gpus` through the
hub's proxy, each request bounded (_fetch.py) so that one slow, huge or garbled answer costs its own row and never
the page. The attribution is each server's own (its kernels, its notebooks), so a container's pid namespace does not
matter here.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from urllib.parse import quote

from ..base._bounded_json import loads
from ..protocol._gpus import GPUS_PATH
from ._fetch import Outcome, request
from ._reading import ServerView, ViewError, read_view

VIEW_TIMEOUT = 3.0  # seconds for one server's whole answer
VIEW_LIMIT = 4 << 20  # bytes of one server's answer: 256 kernels with 16 notebook paths each fit
HUB_TIMEOUT = 10.0
HUB_LIMIT = 64 << 20  # the hub's user list: 10,000 users with their servers fit
_HUB_DEPTH = 8
# A server's URL path as the hub gives it (`/user/<name>/<server>/`, names URL-quoted): segments of path characters,
# none empty (`//host` would name another host), none `.` or `..`, no query.
_SERVER_PATH = re.compile(r"(?:/[A-Za-z0-9._~!$&'()*+,;=:@%-]{1,255}){1,16}/?")
_DOTS = {".", ".."}
_KERNEL_ID = re.compile(r"[A-Za-z0-9-]{1,64}")


@dataclass(frozen=True)
class Server:
    """One ready single-user server: its user, its name ("" for the default one) and its URL path on the proxy."""

    user: str
    name: str
    path: str


@dataclass(frozen=True)
class Row:
    """One server's answer: `problem` is None with a view, else a code: a fetch code (_fetch.py), "http" with
    `status`, or "bad_view" with the first bad field (`field`)."""

    server: Server
    view: ServerView | None
    problem: str | None = None
    status: int | None = None
    field: str | None = None


class HubError(Exception):
    """The hub's API did not answer as expected: the outcome's code and status."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.code, outcome.status)
        self.outcome = outcome


@dataclass(frozen=True)
class Hub:
    """Where the hub's API and proxy answer, and the service's token (never shown: not in repr)."""

    api_url: str  # ends in "/"
    proxy_url: str  # no "/" at the end
    token: str = ""

    def __repr__(self) -> str:
        return f"Hub({self.api_url!r}, {self.proxy_url!r})"


async def hub_user(hub: Hub, name: str) -> dict[str, object] | None:
    """The hub's model of user `name` (with its servers), or None when there is no such user. HubError when the hub's
    API fails."""
    outcome = await request(f"{hub.api_url}users/{quote(name, safe='')}", hub.token, HUB_TIMEOUT, HUB_LIMIT)
    if outcome.code == "http" and outcome.status == 404:
        return None
    model = _hub_json(outcome)
    return model if isinstance(model, dict) else None


async def ready_servers(hub: Hub, only: str | None) -> list[Server]:
    """The ready servers of every user, or of user `only`, sorted by user and server name."""
    if only is not None:
        model = await hub_user(hub, only)
        users = [] if model is None else [model]
    else:
        listed = _hub_json(await request(f"{hub.api_url}users?state=ready", hub.token, HUB_TIMEOUT, HUB_LIMIT))
        users = listed if isinstance(listed, list) else []
    found = []
    for user in users:
        found.extend(servers_of(user))
    return sorted(found, key=lambda s: (s.user, s.name))


def servers_of(user: object) -> list[Server]:
    """The ready servers in one user model of the hub's API, read field by field."""
    if not isinstance(user, dict) or not isinstance(name := user.get("name"), str):
        return []
    servers = user.get("servers")
    found = []
    for server_name, server in (servers.items() if isinstance(servers, dict) else ()):
        path = server.get("url") if isinstance(server, dict) else None
        if (isinstance(server_name, str) and isinstance(path, str) and server.get("ready") is True
                and _SERVER_PATH.fullmatch(path) and not _DOTS & set(path.split("/"))):
            found.append(Server(name, server_name, path if path.endswith("/") else path + "/"))
    return found


async def survey(hub: Hub, servers: list[Server]) -> list[Row]:
    """Every server's row, asked all at once; within VIEW_TIMEOUT (and a little) whatever the servers do."""
    return list(await asyncio.gather(*(_row(hub, server) for server in servers)))


async def _row(hub: Hub, server: Server) -> Row:
    outcome = await request(f"{hub.proxy_url}{server.path}{GPUS_PATH}", hub.token, VIEW_TIMEOUT, VIEW_LIMIT)
    if outcome.code != "ok":
        return Row(server, None, outcome.code, outcome.status)
    try:
        return Row(server, read_view(outcome.body))
    except ViewError as error:
        return Row(server, None, "bad_view", field=error.field)


async def shut_down(hub: Hub, server: Server, kernel_id: str) -> Outcome:
    """`DELETE <server>api/kernels/<kernel_id>` through the proxy with the service's token (204 when done)."""
    if not _KERNEL_ID.fullmatch(kernel_id):
        return Outcome("http", status=400)
    return await request(f"{hub.proxy_url}{server.path}api/kernels/{kernel_id}", hub.token, HUB_TIMEOUT, 1 << 16,
                         method="DELETE", expect=204)


def _hub_json(outcome: Outcome) -> object:
    if outcome.code != "ok":
        raise HubError(outcome)
    try:
        return loads(outcome.body, _HUB_DEPTH)
    except (ValueError, UnicodeDecodeError) as error:
        raise HubError(Outcome("error")) from error

