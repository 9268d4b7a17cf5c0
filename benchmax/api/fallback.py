"""Unknown ``/api/v1`` paths and methods answer in the API's JSON error shape.

Reflex mounts its own app behind ours at "", so without this route a mistyped API URL (or a
POST to a read-only route) would fall through to the front end and come back as HTML.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.datastructures import URLPath
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Match, NoMatchFound, Route, get_route_path
from starlette.types import Receive, Scope, Send

from benchmax.api.errors import error_response

_PREFIX = "/api/v1/"


class ApiFallback(BaseRoute):
    """Matches every ``/api/v1/...`` request the routes before it did not take: 405 when one
    of them has the path under another method, else 404. Not a ``Route``, so the OpenAPI
    document (which walks Routes) does not list it as an operation."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self.routes = routes

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        path = get_route_path(scope)
        if scope["type"] == "http" and (path + "/").startswith(_PREFIX):
            return Match.FULL, {}
        return Match.NONE, {}

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        raise NoMatchFound(name, path_params)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = self._answer(Request(scope, receive))
        await response(scope, receive, send)

    def _answer(self, request: Request) -> JSONResponse:
        allowed: set[str] = set()
        for route in self.routes:
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
