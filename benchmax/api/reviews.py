"""``/api/v1/tests/{id}/reviews`` and ``/reports``, ``/api/v1/reviews/{id}/disputes``."""

from __future__ import annotations

import functools
from typing import Any

from sqlmodel import Session
from starlette.routing import Route

from benchmax.api.actions import endpoint, optional_id, text
from benchmax.context import AppContext
from benchmax.models import User
from benchmax.services.moderation import disputes, reports, reviews
from benchmax.settings import Settings


def _list_reviews(
    session: Session, _user: User | None, path: dict[str, Any], _body: dict[str, Any]
) -> dict[str, Any]:
    entries = reviews.review_history(session, path["test_id"])
    return {"items": [entry.to_json() for entry in entries]}


def _add_review(
    session: Session, user: User | None, path: dict[str, Any], body: dict[str, Any]
) -> dict[str, Any]:
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


def _report(
    session: Session,
    user: User | None,
    path: dict[str, Any],
    body: dict[str, Any],
    *,
    settings: Settings,
) -> dict[str, Any]:
    report = reports.create_report(
        session,
        user,
        path["test_id"],
        body.get("reason"),
        body.get("details", ""),
        optional_id(body, "evidence_id"),
        per_hour=settings.report_rate_limit_per_hour,
    )
    return {"report": {"id": report.id, "state": str(report.state)}}


def _dispute(
    session: Session,
    user: User | None,
    path: dict[str, Any],
    body: dict[str, Any],
    *,
    settings: Settings,
) -> dict[str, Any]:
    dispute = disputes.open_dispute(
        session,
        user,
        path["review_id"],
        text(body, "reason"),
        per_hour=settings.dispute_rate_limit_per_hour,
    )
    return {"dispute": {"id": dispute.id, "review_id": dispute.review_id, "state": "open"}}


def review_routes(ctx: AppContext) -> list[Route]:
    report = functools.partial(_report, settings=ctx.settings)
    dispute = functools.partial(_dispute, settings=ctx.settings)
    return [
        Route("/api/v1/tests/{test_id}/reviews", endpoint(ctx, _list_reviews), methods=["GET"]),
        Route("/api/v1/tests/{test_id}/reviews", endpoint(ctx, _add_review, 201), methods=["POST"]),
        Route("/api/v1/tests/{test_id}/reports", endpoint(ctx, report, 201), methods=["POST"]),
        Route(
            "/api/v1/reviews/{review_id}/disputes", endpoint(ctx, dispute, 201), methods=["POST"]
        ),
    ]
