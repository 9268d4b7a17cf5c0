"""Old evidence paths on the app origin: they only ever redirect to the user-content origin.

The app never reads or streams an object. These routes do not even ask the database: the
name in a user-content URL is cosmetic, so redirecting with the name the client asked for
(or a placeholder) is enough, and a lookup would only tell a stranger whether an id exists.
The user-content service decides, and refuses with its one 404.
"""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from benchmax.services.evidence_urls import (
    PLACEHOLDER_NAME,
    evidence_url,
    usercontent_origin_problem,
)
from benchmax.settings import CoreSettings

logger = logging.getLogger(__name__)


def compat_routes(settings: CoreSettings) -> list[Route]:
    """``/evidence/{id}`` and ``/evidence/{id}/{name}``, answering 307 (or 503 if misconfigured)."""

    async def redirect(request: Request) -> Response:
        problem = usercontent_origin_problem(settings)
        if problem is not None:
            logger.error("evidence redirect refused: %s", problem)
            return PlainTextResponse(
                "Evidence is temporarily unavailable.\n",
                status_code=503,
                headers={"Cache-Control": "no-store"},
            )
        name = request.path_params.get("name") or PLACEHOLDER_NAME
        target = evidence_url(settings.usercontent_origin, request.path_params["evidence_id"], name)
        return RedirectResponse(target, status_code=307, headers={"Cache-Control": "no-store"})

    return [
        Route("/evidence/{evidence_id}", redirect, methods=["GET", "HEAD"]),
        Route("/evidence/{evidence_id}/{name:path}", redirect, methods=["GET", "HEAD"]),
    ]
