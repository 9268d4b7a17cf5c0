"""Unknown ``/api/v1`` paths and methods answer in the API's JSON error shape.

Reflex mounts its own app behind ours at "", so without this route a mistyped API URL (or a
POST to a read-only route) would fall through to the front end and come back as HTML.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Match, Route

from benchmax.api.errors import error_response

_ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def api_fallback_route(routes: Sequence[BaseRoute]) -> Route:
    """A catch-all for ``/api/v1/...`` placed after ``routes``: 405 when one of them has the
    path under another method, else 404."""

    async def fallback(request: Request) -> JSONResponse:
        allowed: set[str] = set()
        for route in routes:
            match, _ = route.matches(request.scope)
            if match == Match.PARTIAL and isinstance(route, Route) and route.methods:
                allowed |= route.methods
        if allowed:
            return error_response(
                405,
                "method_not_allowed",
                f"{request.method} is not allowed here.",
                Allow=", ".join(sorted(allowed)),
            )
        return error_response(404, "not_found", "No API route has this path.")

    return Route("/api/v1/{rest:path}", fallback, methods=_ALL_METHODS)
