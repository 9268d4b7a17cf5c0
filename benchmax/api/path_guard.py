"""A path with a control character (``%0A``, ``%00``, ``%7F`` ...) is a 404 in the API's JSON.

Routers match such paths in surprising ways: a route pattern's ``$`` also matches before a
trailing newline (``/api/v1/feeds/tests.atom%0A`` served the feed), and a mount's ``.*`` does
not match a newline at all (the outer app answered a bare ``text/plain`` 404 without the
security headers). No real URL holds one, so every such request is refused here, first.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from benchmax.api.errors import error_response


def _has_control(path: str) -> bool:
    return any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in path)


class PathGuard:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _has_control(scope["path"]):
            response = error_response(404, "not_found", "Nothing has this path.")
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
