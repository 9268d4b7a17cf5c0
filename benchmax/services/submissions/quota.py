"""The per-token submission rate limit, kept in the database so every web process shares it.

Each attempt through a token is a row in ``api_token_use``; an attempt is allowed while fewer
than ``limit`` rows fall inside the sliding window. Rows older than the window are pruned as
new attempts arrive, so the table stays at most ``limit`` rows per token.
"""

from __future__ import annotations

import math
from datetime import timedelta

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from benchmax.models import ApiToken, ApiTokenUse
from benchmax.models._base import as_utc, utcnow


def take_submission_slot(
    session: Session, token_id: str, *, limit: int, window_seconds: int
) -> int | None:
    """Record an attempt and return None, or return the seconds to wait when over the limit.

    The caller commits. Concurrent attempts with one token are serialised: the DELETE takes
    SQLite's write lock, and the token row is locked on PostgreSQL.
    """
    now = utcnow()
    window_start = now - timedelta(seconds=window_seconds)
    session.execute(
        delete(ApiTokenUse).where(
            col(ApiTokenUse.token_id) == token_id, col(ApiTokenUse.created_at) < window_start
        )
    )
    session.exec(select(ApiToken.id).where(ApiToken.id == token_id).with_for_update()).first()
    count, oldest = session.exec(
        select(func.count(), func.min(ApiTokenUse.created_at)).where(
            ApiTokenUse.token_id == token_id
        )
    ).one()
    if count >= limit and oldest is not None:
        wait = as_utc(oldest) + timedelta(seconds=window_seconds) - now
        return max(1, math.ceil(wait.total_seconds()))
    session.add(ApiTokenUse(token_id=token_id, created_at=now))
    session.flush()
    return None
