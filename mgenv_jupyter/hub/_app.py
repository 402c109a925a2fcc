"""The service's tornado app: the page (`<service prefix>`), the shutdown (`POST <prefix>api/shutdown`) and the
OAuth callback, started by the hub from `c.JupyterHub.services` (`python -m mgenv_jupyter.hub`; README.md).

Who may see what is decided here, not on the page: every visitor is identified through the hub (HubOAuth); an admin
of the hub sees every user's servers (`?user=<name>`: one user's) and may shut a kernel down; anyone else sees only
their own servers, and asking for another user's (`?user=`) or for a shutdown gets 403. The service's own token
(JUPYTERHUB_API_TOKEN, its role's scopes) is what asks the hub and the single-user servers; the visitor's never is.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any
from urllib.parse import urlsplit

from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated
from jupyterhub.utils import url_path_join
from tornado import ioloop, log, web

from ._page import render
from ._survey import Hub, HubError, hub_user, ready_servers, servers_of, shut_down, survey

HUB_SETTING = "mgenv_hub"


class _Base(HubOAuthenticated, web.RequestHandler):  # type: ignore[misc]
    @property
    def hub(self) -> Hub:
        return self.settings[HUB_SETTING]  # type: ignore[no-any-return]

    async def visitor(self) -> tuple[str, bool]:
        """The visitor's name and whether the hub says they are an admin (asked with the service's token)."""
        user: dict[str, Any] = self.current_user
        name = user["name"]
        try:
            model = await hub_user(self.hub, name)
        except HubError as error:
            raise web.HTTPError(502, f"the hub's API failed: {error.outcome.code}") from error
        return name, bool(model and model.get("admin") is True)


class PageHandler(_Base):
    @web.authenticated
    async def get(self) -> None:
        name, admin = await self.visitor()
        wanted = self.get_argument("user", None)
        if wanted is not None and wanted != name and not admin:
            raise web.HTTPError(403, "only an admin of the hub sees another user's servers")
        only = wanted if wanted is not None else (None if admin else name)
        try:
            rows = await survey(self.hub, await ready_servers(self.hub, only))
        except HubError as error:
            raise web.HTTPError(502, f"the hub's API failed: {error.outcome.code}") from error
        self.set_header("Cache-Control", "no-store")
        self.finish(render(rows, name, admin, self.xsrf_token.decode("ascii")))


class ShutdownHandler(_Base):
    def check_xsrf_cookie(self) -> None:
        # tornado checks before the visitor is known; HubOAuth exempts a request made with a token (a script's), which
        # it can tell only once it has identified the visitor. A browser's request still needs the page's XSRF token.
        if "Authorization" in self.request.headers:
            _ = self.current_user
        super().check_xsrf_cookie()

    @web.authenticated
    async def post(self) -> None:
        _, admin = await self.visitor()
        if not admin:
            raise web.HTTPError(403, "only an admin of the hub shuts other users' kernels down")
        try:
            body = json.loads(self.request.body[:4096])
        except ValueError as error:
            raise web.HTTPError(400, "the body must be JSON: {user, server, kernel}") from error
        user, server, kernel = (body.get(k) if isinstance(body, dict) else None for k in ("user", "server", "kernel"))
        if not (isinstance(user, str) and isinstance(server, str) and isinstance(kernel, str)):
            raise web.HTTPError(400, "the body must be JSON: {user, server, kernel}, each a string")
        try:
            model = await hub_user(self.hub, user)
        except HubError as error:
            raise web.HTTPError(502, f"the hub's API failed: {error.outcome.code}") from error
        # The server's URL is the hub's, never the page's: the request names a user and a server, nothing more.
        found = [s for s in servers_of(model) if s.name == server] if model else []
        if not found:
            raise web.HTTPError(404, "that user has no such running server")
        outcome = await shut_down(self.hub, found[0], kernel)
        if outcome.code != "ok":
            raise web.HTTPError(502 if outcome.status != 404 else 404,
                                f"the server answered: {outcome.code} {outcome.status or ''}".strip())
        self.set_status(204)
        self.finish()


def make_app(hub: Hub, prefix: str) -> web.Application:
    return web.Application([
        (prefix, PageHandler),
        (url_path_join(prefix, "api/shutdown"), ShutdownHandler),
        (url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler),
    ], cookie_secret=os.urandom(32), xsrf_cookies=True, mgenv_hub=hub)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m mgenv_jupyter.hub", description=__doc__.split("\n\n")[0])
    parser.add_argument("--proxy-url", default=os.environ.get("JUPYTERHUB_PUBLIC_URL") or "http://127.0.0.1:8000",
                        help="where the hub's proxy answers for the single-user servers (default: "
                             "$JUPYTERHUB_PUBLIC_URL, else http://127.0.0.1:8000)")
    args = parser.parse_args(argv)
    log.enable_pretty_logging()  # its requests in the hub's log, as the hub's own are
    service_url = urlsplit(os.environ["JUPYTERHUB_SERVICE_URL"])
    hub = Hub(api_url=os.environ["JUPYTERHUB_API_URL"].rstrip("/") + "/", proxy_url=args.proxy_url.rstrip("/"),
              token=os.environ["JUPYTERHUB_API_TOKEN"])
    app = make_app(hub, os.environ["JUPYTERHUB_SERVICE_PREFIX"])
    app.listen(service_url.port or 80, service_url.hostname or "127.0.0.1")
    try:
        ioloop.IOLoop.current().start()
    except KeyboardInterrupt:  # the hub stops its services with SIGINT
        pass
