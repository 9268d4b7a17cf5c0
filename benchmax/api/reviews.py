"""``/api/v1/tests/{id}/reviews`` and ``/reports``, ``/api/v1/reviews/{id}/disputes``."""

from __future__ import annotations

import functools
from typing import Any

from sqlmodel import Session
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from benchmax.api.actions import endpoint, optional_id, text
from benchmax.api.http_cache import PUBLIC_ITEM, Rendered, cached_read, json_body
from benchmax.context import AppContext
from benchmax.models import User
from benchmax.services.moderation import disputes, reports, reviews

Params = dict[str, Any]


def _list_reviews(ctx: AppContext, test_id: str) -> Rendered:
    with ctx.session() as session:
        entries = reviews.review_history(session, test_id)
        return json_body({"items": [entry.to_json() for entry in entries]})


async def list_reviews(ctx: AppContext, request: Request) -> Response:
    """A public read: every review is public once its Test is."""
    test_id = request.path_params["test_id"]
    return await cached_read(
        ctx, request, functools.partial(_list_reviews, ctx, test_id), public=PUBLIC_ITEM
    )


def _add_review(session: Session, user: User | None, path: Params, body: Params) -> Params:
    review = reviews.add_review(
        session,
        user,
        path["test_id"],
        body.get("score"),
        body.get("reasoning"),
        optional_id(body, "corrects_review_id"),
    )
    entry = next(e for e in reviews.review_history(session, review.test_id) if e.id == review.id)
    return {"review": entry.to_json()}


def _report(limit: int, session: Session, user: User | None, path: Params, body: Params) -> Params:
    report = reports.create_report(
        session,
        user,
        path["test_id"],
        body.get("reason"),
        body.get("details", ""),
        optional_id(body, "evidence_id"),
        per_hour=limit,
    )
    return {"report": {"id": report.id, "state": str(report.state)}}


def _dispute(limit: int, session: Session, user: User | None, path: Params, body: Params) -> Params:
    dispute = disputes.open_dispute(
        session,
        user,
        path["review_id"],
        text(body, "reason"),
        per_hour=limit,
    )
    return {"dispute": {"id": dispute.id, "review_id": dispute.review_id, "state": "open"}}


def review_routes(ctx: AppContext) -> list[Route]:
    # Each filing route is bound to its kind's hourly cap per account.
    report = functools.partial(_report, ctx.settings.report_rate_limit_per_hour)
    dispute = functools.partial(_dispute, ctx.settings.dispute_rate_limit_per_hour)
    return [
        Route(
            "/api/v1/tests/{test_id}/reviews",
            functools.partial(list_reviews, ctx),
            methods=["GET"],
        ),
        Route("/api/v1/tests/{test_id}/reviews", endpoint(ctx, _add_review, 201), methods=["POST"]),
        Route("/api/v1/tests/{test_id}/reports", endpoint(ctx, report, 201), methods=["POST"]),
        Route(
            "/api/v1/reviews/{review_id}/disputes", endpoint(ctx, dispute, 201), methods=["POST"]
        ),
    ]
