"""``GET /api/v1/feeds/tests.atom``: new public Tests as Atom, optionally one family's or one
contributor's. Text about public Tests only, so the app may serve it (no evidence bytes)."""

from __future__ import annotations

import functools

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from benchmax.api.openapi.spec import Answer, Operation, Param, documented
from benchmax.context import AppContext
from benchmax.services.atom import FEED_PATH, feed_subject, tests_feed


def _feed(ctx: AppContext, family: str, contributor: str) -> bytes:
    origin = ctx.settings.app_origin
    with ctx.session() as session:
        return tests_feed(session, origin, feed_subject(session, origin, family, contributor))


@documented(
    Operation(
        "New public Tests as an Atom feed", "read",
        Answer(200, "The newest 50 public Tests (Atom 1.0).",
               media_type="application/atom+xml", schema={"type": "string"}),
        (404,),
        params=(Param("family", description="Only this model family's Tests (its slug).",
                      max_length=64),
                Param("contributor", description="Only this contributor's Tests (a handle).",
                      max_length=32)),
    )
)  # fmt: skip
async def tests_atom(ctx: AppContext, request: Request) -> Response:
    params = request.query_params
    body = await run_in_threadpool(
        _feed, ctx, params.get("family", ""), params.get("contributor", "")
    )
    return Response(
        body,
        media_type="application/atom+xml; charset=utf-8",
        headers={"Cache-Control": "public, max-age=300"},
    )


def feed_routes(ctx: AppContext) -> list[Route]:
    return [Route(FEED_PATH, functools.partial(tests_atom, ctx), methods=["GET"])]
