"""Read-only JSON for Tests: the same filters, cursor and visibility rules as the feed pages."""

from __future__ import annotations

import functools

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from benchmax.api.errors import error_response
from benchmax.context import AppContext
from benchmax.services import detail_view, feed
from benchmax.services.evidence_urls import evidence_url

MAX_LIMIT = 100


async def list_tests(ctx: AppContext, request: Request) -> JSONResponse:
    params = request.query_params
    raw_limit = params.get("limit", str(ctx.settings.feed_page_size))
    if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= MAX_LIMIT:
        return error_response(
            400, "invalid_limit", f"limit must be between 1 and {MAX_LIMIT}", "limit"
        )
    try:
        filters = feed.FeedFilters.from_query(dict(params))
        with ctx.session() as session:
            page = feed.list_feed(session, filters, params.get("cursor") or None, int(raw_limit))
    except feed.InvalidCursorError:
        return error_response(
            400, "invalid_cursor", "The cursor is malformed or expired.", "cursor"
        )
    except ValueError as exc:
        return error_response(400, "invalid_filter", str(exc))
    return JSONResponse(page.to_json())


async def get_test(ctx: AppContext, request: Request) -> JSONResponse:
    test_id = request.path_params["test_id"]
    with ctx.session() as session:
        view = detail_view.get_test_view(session, test_id, None)
    if view is None:
        return error_response(404, "not_found", "No public Test has this id.")
    origin = ctx.settings.usercontent_origin
    body = view.to_json()
    for item in body["evidence"]:
        item["url"] = evidence_url(origin, item["id"], item["safe_name"])
    return JSONResponse(body)


def tests_read_routes(ctx: AppContext) -> list[Route]:
    return [
        Route("/api/v1/tests", functools.partial(list_tests, ctx), methods=["GET"]),
        Route("/api/v1/tests/{test_id}", functools.partial(get_test, ctx), methods=["GET"]),
    ]
