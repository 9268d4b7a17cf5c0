"""Per-account rate limits on submissions and uploads, kept in the database so every web
process shares them.

Limits count per **account**, never per token: an account can hold many tokens (and revoke
and recreate them), so a per-token budget would be no budget at all.

Each API submission attempt is a row in ``api_token_use`` (which token made it is kept for
the audit trail); an attempt is allowed while fewer than ``limit`` rows of the account's
tokens, revoked ones included, fall inside the sliding window. Rows older than the window are
pruned as new attempts arrive. Uploads are counted from the evidence rows themselves, as the
moderation limits are: every file an account stored in quarantine in the window.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from benchmax.models import ApiToken, ApiTokenUse, EvidenceFile, Test, User
from benchmax.models._base import as_utc, utcnow
from benchmax.services.errors import RateLimited


def _wait_seconds(oldest: datetime, window_seconds: int, now: datetime) -> int:
    wait = as_utc(oldest) + timedelta(seconds=window_seconds) - now
    return max(1, math.ceil(wait.total_seconds()))


def take_submission_slot(
    session: Session, user_id: str, token_id: str, *, limit: int, window_seconds: int
) -> int | None:
    """Record an attempt by ``token_id`` and return None, or the seconds to wait when the
    account ``user_id`` is over its limit.

    The caller commits. Concurrent attempts by one account are serialised: the DELETE takes
    SQLite's write lock, and the account's row is locked on PostgreSQL.
    """
    now = utcnow()
    window_start = now - timedelta(seconds=window_seconds)
    account_tokens = select(ApiToken.id).where(ApiToken.user_id == user_id)
    session.execute(
        delete(ApiTokenUse).where(
            col(ApiTokenUse.token_id).in_(account_tokens),
            col(ApiTokenUse.created_at) < window_start,
        )
    )
    session.exec(select(User.id).where(User.id == user_id).with_for_update()).first()
    count, oldest = session.exec(
        select(func.count(), func.min(ApiTokenUse.created_at)).where(
            col(ApiTokenUse.token_id).in_(account_tokens)
        )
    ).one()
    if count >= limit and oldest is not None:
        return _wait_seconds(oldest, window_seconds, now)
    session.add(ApiTokenUse(token_id=token_id, created_at=now))
    session.flush()
    return None


def rate_limited(wait: int) -> RateLimited:
    return RateLimited(
        "rate_limited",
        f"This account has made too many submissions recently; try again in {wait} seconds.",
        retry_after=wait,
    )


def recent_submissions_wait(
    session: Session, user_id: str, *, limit: int, window_seconds: int
) -> int | None:
    """None while the account submitted fewer than ``limit`` Tests in the window (by any
    path), else the seconds until the oldest of them leaves it. The wizard's batches are held
    to it: a page has no token, so its submissions are counted from the Tests themselves."""
    now = utcnow()
    count, oldest = session.exec(
        select(func.count(), func.min(Test.submitted_at)).where(
            Test.contributor_id == user_id,
            col(Test.submitted_at) >= now - timedelta(seconds=window_seconds),
        )
    ).one()
    if count >= limit and oldest is not None:
        return _wait_seconds(oldest, window_seconds, now)
    return None


def upload_wait(session: Session, user_id: str, *, limit: int, window_seconds: int) -> int | None:
    """None while the account stored fewer than ``limit`` files in the window, else the
    seconds until the oldest of them leaves it. Checked before an upload's body is read."""
    now = utcnow()
    count, oldest = session.exec(
        select(func.count(), func.min(EvidenceFile.created_at))
        .join(Test, col(Test.id) == col(EvidenceFile.test_id))
        .where(
            col(Test.contributor_id) == user_id,
            col(EvidenceFile.created_at) >= now - timedelta(seconds=window_seconds),
        )
    ).one()
    if count >= limit and oldest is not None:
        return _wait_seconds(oldest, window_seconds, now)
    return None
