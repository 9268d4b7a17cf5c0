"""Read-only JSON for Tests: the same filters, cursor and visibility rules as the feed pages.

Both are public reads with validators (``benchmax.api.http_cache``): a revalidation costs
one small query and never builds the body. The reads are synchronous SQL, so each runs in the
thread pool rather than on the event loop.
"""

from __future__ import annotations

import functools
from typing import Any

from sqlmodel import Session
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from benchmax.api.http_cache import (
    PUBLIC_ITEM,
    Freshness,
    Rendered,
    cached_read,
    json_body,
    next_link,
)
from benchmax.context import AppContext
from benchmax.services import detail_view, feed
from benchmax.services.data_version import test_page_changed_at
from benchmax.services.errors import Invalid, NotFound
from benchmax.services.evidence_urls import evidence_url

MAX_LIMIT = 100
LIST_PARAMS = feed.FILTER_NAMES | {"cursor", "limit"}


def refuse_unknown(params: Any, known: frozenset[str]) -> None:
    """A clear 400 for a parameter the route does not take, rather than silently ignoring a
    misspelt filter and answering with everything."""
    for name in params:
        if name not in known:
            allowed = ", ".join(sorted(known))
            raise Invalid("unknown_parameter", f"Unknown parameter {name}; use: {allowed}.", name)


def _feed_page(ctx: AppContext, request: Request) -> Rendered:
    params = dict(request.query_params)
    raw_limit = params.get("limit", str(ctx.settings.feed_page_size))
    if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= MAX_LIMIT:
        raise Invalid("invalid_limit", f"limit must be between 1 and {MAX_LIMIT}", "limit")
    filters = feed.FeedFilters.from_query(params)
    with ctx.session() as session:
        page = feed.list_feed(session, filters, params.get("cursor") or None, int(raw_limit))
    return json_body(page.to_json(), next_link(ctx, request, page.next_cursor))


async def list_tests(ctx: AppContext, request: Request) -> Response:
    refuse_unknown(request.query_params, LIST_PARAMS)
    return await cached_read(ctx, request, functools.partial(_feed_page, ctx, request))


def _public_test(ctx: AppContext, test_id: str) -> Rendered:
    with ctx.session() as session:
        view = detail_view.get_test_view(session, test_id, None)
    if view is None:
        raise NotFound("not_found", "No public Test has this id.")
    origin = ctx.settings.usercontent_origin
    body = view.to_json()
    for item in body["evidence"]:
        item["url"] = evidence_url(origin, item["id"], item["safe_name"])
    return json_body(body)


async def get_test(ctx: AppContext, request: Request) -> Response:
    test_id = request.path_params["test_id"]

    def freshness(session: Session) -> Freshness:
        return Freshness(last_modified=test_page_changed_at(session, test_id))

    return await cached_read(
        ctx,
        request,
        functools.partial(_public_test, ctx, test_id),
        public=PUBLIC_ITEM,
        freshness=freshness,
    )


def tests_read_routes(ctx: AppContext) -> list[Route]:
    return [
        Route("/api/v1/tests", functools.partial(list_tests, ctx), methods=["GET"]),
        Route("/api/v1/tests/{test_id}", functools.partial(get_test, ctx), methods=["GET"]),
    ]
