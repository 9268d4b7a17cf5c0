"""Read-only JSON for Tests: the same filters, cursor and visibility rules as the feed pages.

The reads are synchronous SQL, so each runs in the thread pool rather than on the event loop.
"""

from __future__ import annotations

import functools
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from benchmax.context import AppContext
from benchmax.services import detail_view, feed
from benchmax.services.errors import Invalid, NotFound
from benchmax.services.evidence_urls import evidence_url

MAX_LIMIT = 100


def _feed_page(ctx: AppContext, params: dict[str, str]) -> dict[str, Any]:
    raw_limit = params.get("limit", str(ctx.settings.feed_page_size))
    if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= MAX_LIMIT:
        raise Invalid("invalid_limit", f"limit must be between 1 and {MAX_LIMIT}", "limit")
    filters = feed.FeedFilters.from_query(params)
    with ctx.session() as session:
        page = feed.list_feed(session, filters, params.get("cursor") or None, int(raw_limit))
    return page.to_json()


async def list_tests(ctx: AppContext, request: Request) -> JSONResponse:
    return JSONResponse(await run_in_threadpool(_feed_page, ctx, dict(request.query_params)))


def _public_test(ctx: AppContext, test_id: str) -> dict[str, Any]:
    with ctx.session() as session:
        view = detail_view.get_test_view(session, test_id, None)
    if view is None:
        raise NotFound("not_found", "No public Test has this id.")
    origin = ctx.settings.usercontent_origin
    body = view.to_json()
    for item in body["evidence"]:
        item["url"] = evidence_url(origin, item["id"], item["safe_name"])
    return body


async def get_test(ctx: AppContext, request: Request) -> JSONResponse:
    return JSONResponse(await run_in_threadpool(_public_test, ctx, request.path_params["test_id"]))


def tests_read_routes(ctx: AppContext) -> list[Route]:
    return [
        Route("/api/v1/tests", functools.partial(list_tests, ctx), methods=["GET"]),
        Route("/api/v1/tests/{test_id}", functools.partial(get_test, ctx), methods=["GET"]),
    ]
