"""Per-user hourly limits, counted from the rows themselves: no extra table, no cache.

Reports, disputes and appeals carry their author and creation time, so "how many in the last hour"
is one indexed count and is right across any number of web replicas.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func
from sqlmodel import Session, col, select

from benchmax.models import Appeal, Dispute, Report
from benchmax.models._base import as_utc, utcnow
from benchmax.services.dates import seconds_until
from benchmax.services.errors import RateLimited
from benchmax.services.moderation.cases import KINDS

WINDOW = timedelta(hours=1)


def check_hourly_limit(
    session: Session,
    model: type[Report] | type[Dispute] | type[Appeal],
    user_id: str,
    per_hour: int,
    noun: str,
) -> None:
    """Refuse with 429 when ``user_id`` already made ``per_hour`` rows of ``model`` this hour."""
    author = KINDS[model].author
    now = utcnow()
    recent, oldest = session.exec(
        select(func.count(), func.min(model.created_at))
        .select_from(model)
        .where(col(author) == user_id, col(model.created_at) >= now - WINDOW)
    ).one()
    if recent >= per_hour and oldest is not None:
        wait = seconds_until(as_utc(oldest) + WINDOW, now)
        raise RateLimited(
            "rate_limited",
            f"You can send at most {per_hour} {noun} an hour. Try again in {wait} seconds.",
            retry_after=wait,
        )
