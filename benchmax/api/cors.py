"""Cross-origin reads: open data for every site, credentials for the app's own origin only.

An anonymous ``GET`` or ``HEAD`` of the API (no ``Authorization``, no session cookie) answers
``Access-Control-Allow-Origin: *`` with no ``Allow-Credentials``, so another site's page can
read the public Tests but a browser never attaches a visitor's cookie to such a read. A request
from the app's own origin is answered as Reflex's own CORS did (that origin reflected, with
credentials), so the app's front end in development (another port) keeps working. Anything
else — a credential sent from another site, or a write — gets no CORS header at all, and the
browser keeps the answer from the page.

In the app this middleware wraps Reflex's own CORS (``benchmax.py``), whose answer to any
cross-origin request carries ``Access-Control-Allow-Credentials: true``: the headers this
policy does not grant are removed on the way out, so the policy above is what a browser sees.
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from benchmax.adapters.auth import SESSION_COOKIE

_READS = frozenset({"GET", "HEAD"})
_CORS_HEADERS = (
    "access-control-allow-origin",
    "access-control-allow-credentials",
    "access-control-expose-headers",
)
EXPOSED = "ETag, Last-Modified, Link, RateLimit, RateLimit-Policy, Retry-After, Location"
_PREFLIGHT_MAX_AGE = "86400"


def _credentialed(headers: Headers) -> bool:
    cookies = headers.get("cookie", "")
    return bool(headers.get("authorization", "").strip()) or f"{SESSION_COOKIE}=" in cookies


class CorsPolicy:
    def __init__(self, app: ASGIApp, app_origin: str, open_prefix: str = "/api/") -> None:
        self.app = app
        self.app_origin = app_origin
        self.open_prefix = open_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if origin is None:
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        wanted = headers.get("access-control-request-method")
        if method == "OPTIONS" and wanted is not None:
            await self._preflight(origin, wanted, headers)(scope, receive, send)
            return
        added = self._simple(origin, method, scope["path"], headers)

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                response_headers = MutableHeaders(scope=message)
                for name in _CORS_HEADERS:
                    del response_headers[name]
                for name, value in added.items():
                    response_headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_cors)

    def _simple(self, origin: str, method: str, path: str, headers: Headers) -> dict[str, str]:
        if origin == self.app_origin:
            return {
                "Access-Control-Allow-Origin": origin,
                "Access-Control-Allow-Credentials": "true",
                "Access-Control-Expose-Headers": EXPOSED,
                "Vary": "Origin",
            }
        if method in _READS and path.startswith(self.open_prefix) and not _credentialed(headers):
            return {"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": EXPOSED}
        return {}

    def _preflight(self, origin: str, wanted: str, headers: Headers) -> Response:
        if origin == self.app_origin:
            allowed = {
                "Access-Control-Allow-Origin": origin,
                "Access-Control-Allow-Credentials": "true",
                "Access-Control-Allow-Methods": "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT",
                "Access-Control-Allow-Headers": headers.get("access-control-request-headers", ""),
                "Access-Control-Max-Age": _PREFLIGHT_MAX_AGE,
                "Vary": "Origin",
            }
            return Response(status_code=204, headers=allowed)
        if wanted.upper() in _READS:
            return Response(
                status_code=204,
                headers={
                    "Access-Control-Allow-Origin": "*",
                    "Access-Control-Allow-Methods": "GET, HEAD",
                    "Access-Control-Allow-Headers": "If-None-Match, If-Modified-Since",
                    "Access-Control-Max-Age": _PREFLIGHT_MAX_AGE,
                },
            )
        return Response(status_code=204)  # no CORS headers: the browser refuses the request
