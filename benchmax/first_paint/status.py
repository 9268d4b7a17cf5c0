"""The HTTP status of a page about one thing: 404 when the thing is not there for the viewer.

The static server answers every path the app routes with 200 and the app's document; a page
about one thing (``services.page_subjects``) then finds in the browser that its Test, account,
judge, catalog entry or group does not exist and shows the not-found view. This step asks the
same question on the server, as the viewer the session cookie names, and turns that 200 into a
404 with the same document, so the not-found view is also a not-found answer. Every other
response passes through untouched.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from benchmax.adapters.auth import SESSION_COOKIE
from benchmax.context import AppContext
from benchmax.services import accounts
from benchmax.services.page_subjects import Finder, subject_of


class PageStatusMiddleware:
    def __init__(self, app: ASGIApp, ctx: AppContext) -> None:
        self.app = app
        self.ctx = ctx

    def _found(self, finder: Finder, name: str, token: str) -> bool:
        try:
            with self.ctx.session() as session:
                viewer = accounts.session_user(session, self.ctx.verifier, token, self.ctx.settings)
                return finder(session, name, viewer)
        except Exception:
            return True  # a broken database must not make every page a 404; the page says why

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        subject = subject_of(scope.get("path", "")) if scope["type"] == "http" else None
        if subject is None or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        finder, name = subject
        token = HTTPConnection(scope).cookies.get(SESSION_COOKIE, "")

        async def send_with_status(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                content_type = MutableHeaders(scope=message).get("content-type", "")
                if content_type.startswith("text/html") and not await run_in_threadpool(
                    self._found, finder, name, token
                ):
                    message = {**message, "status": 404}
            await send(message)

        await self.app(scope, receive, send_with_status)
