"""``GET /api/v1/feeds/tests.atom``: new public Tests as Atom, narrowed by the list API's own
filters. Text about public Tests only, so the app may serve it (no evidence bytes).

An unknown parameter is a 400 naming the ones that work, never a silently unfiltered feed.
Validators and the built body come from ``benchmax.api.http_cache`` like every public read.
"""

from __future__ import annotations

import functools

from sqlmodel import Session
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from benchmax.api.http_cache import Freshness, Rendered, cached_read
from benchmax.api.openapi.operations import FEED_FILTERS as FEED_FILTER_PARAMS
from benchmax.api.openapi.spec import Answer, Operation, documented
from benchmax.api.tests_read import refuse_unknown
from benchmax.context import AppContext
from benchmax.services.atom import FEED_FILTERS, FEED_PATH, feed_subject, tests_feed

ATOM_MEDIA_TYPE = "application/atom+xml; charset=utf-8"


def _feed(ctx: AppContext, query: dict[str, str]) -> Rendered:
    origin = ctx.settings.app_origin
    with ctx.session() as session:
        body = tests_feed(session, origin, feed_subject(session, origin, query))
    return Rendered(body, ATOM_MEDIA_TYPE)


@documented(
    Operation(
        "New public Tests as an Atom feed", "read",
        Answer(200, "The newest 50 public Tests matching the filters (Atom 1.0).",
               media_type="application/atom+xml", schema={"type": "string"}),
        (400, 404), params=tuple(p for p in FEED_FILTER_PARAMS if p.name in FEED_FILTERS),
        cached=True,
        description="Takes the list's filters (not its sort or cursor: always newest first); "
                    "any other parameter is a 400.",
    )
)  # fmt: skip
async def tests_atom(ctx: AppContext, request: Request) -> Response:
    refuse_unknown(request.query_params, FEED_FILTERS)
    query = dict(request.query_params)
    return await cached_read(ctx, request, functools.partial(_feed, ctx, query), freshness=_dated)


def _dated(_session: Session) -> Freshness:
    return Freshness(dated=True)


def feed_routes(ctx: AppContext) -> list[Route]:
    return [Route(FEED_PATH, functools.partial(tests_atom, ctx), methods=["GET"])]
