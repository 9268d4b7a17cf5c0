"""Per-account rate limits on submissions and uploads, kept in the database so every web
process shares them.

Limits count per **account**, never per token: an account can hold many tokens (and revoke
and recreate them), so a per-token budget would be no budget at all.

Each API submission the service accepts is a row in ``api_token_use`` (which token made it
is kept for the audit trail), written in the transaction that creates the Test: a refused
request rolls it back with everything else, so a mistake never uses up a submission. A
refused request instead writes a ``refused`` row of its own, counted against a separate,
larger limit, so a client stuck in a loop of bad requests is still slowed down. Rows older
than the window are pruned as new ones arrive. Uploads are counted from the evidence rows
themselves, as the moderation limits are: every file an account stored in the window.

Each check answers an ``Allowance``: what is left and when the window frees a slot, the
figures the API's ``RateLimit`` headers carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from benchmax.models import ApiToken, ApiTokenUse, EvidenceFile, Test
from benchmax.models._base import utcnow
from benchmax.services.dates import seconds_until
from benchmax.services.errors import RateLimited
from benchmax.services.submissions.account_limits import lock_account


@dataclass(frozen=True)
class Rate:
    """At most ``limit`` events per ``window_seconds``; ``name`` is the policy's name."""

    name: str
    limit: int
    window_seconds: int


@dataclass(frozen=True)
class Allowance:
    """Where an account stands against a ``Rate``: events left in the window, and seconds
    until the oldest counted one leaves it (the whole window when none is counted)."""

    rate: Rate
    remaining: int
    reset_seconds: int


_WHAT = {
    "submissions": "made too many submissions",
    "refusals": "sent too many submissions that were refused",
    "uploads": "uploaded many files",
}


def refuse(allowance: Allowance, field: str | None = None) -> RateLimited:
    """The 429 for an allowance that is used up."""
    wait = allowance.reset_seconds
    return RateLimited(
        "rate_limited",
        f"This account has {_WHAT[allowance.rate.name]} recently; try again in {wait} seconds.",
        field,
        retry_after=wait,
    )


def _allowance(rate: Rate, count: int, oldest: datetime | None, now: datetime) -> Allowance:
    window = timedelta(seconds=rate.window_seconds)
    reset = seconds_until(oldest + window, now) if oldest is not None else rate.window_seconds
    return Allowance(rate, max(0, rate.limit - count), reset)


def _account_uses(user_id: str, refused: bool, since: datetime) -> tuple[object, ...]:
    account_tokens = select(ApiToken.id).where(ApiToken.user_id == user_id)
    return (
        col(ApiTokenUse.token_id).in_(account_tokens),
        col(ApiTokenUse.refused).is_(refused),
        col(ApiTokenUse.created_at) >= since,
    )


def submission_allowance(
    session: Session, user_id: str, rate: Rate, *, refused: bool = False
) -> Allowance:
    """The account's allowance of accepted (or, with ``refused``, refused) submissions.
    A read: checked before a request's body is read, and taken for good by ``take_slot``."""
    now = utcnow()
    since = now - timedelta(seconds=rate.window_seconds)
    count, oldest = session.exec(
        select(func.count(), func.min(ApiTokenUse.created_at)).where(
            *_account_uses(user_id, refused, since)  # type: ignore[arg-type]
        )
    ).one()
    return _allowance(rate, count, oldest, now)


def _record(
    session: Session, user_id: str, token_id: str, rate: Rate, refused: bool
) -> tuple[Allowance, bool]:
    """Under the account's lock (taken first, so every writer of the account's rows waits in
    the same order): prune, count, and add this use unless the allowance is spent. Answers
    the allowance left and whether the use was counted."""
    lock_account(session, user_id)
    now = utcnow()
    account_tokens = select(ApiToken.id).where(ApiToken.user_id == user_id)
    session.execute(
        delete(ApiTokenUse).where(
            col(ApiTokenUse.token_id).in_(account_tokens),
            col(ApiTokenUse.refused).is_(refused),
            col(ApiTokenUse.created_at) < now - timedelta(seconds=rate.window_seconds),
        )
    )
    allowance = submission_allowance(session, user_id, rate, refused=refused)
    if allowance.remaining <= 0:
        return allowance, False
    session.add(ApiTokenUse(token_id=token_id, created_at=now, refused=refused))
    session.flush()
    return Allowance(rate, allowance.remaining - 1, allowance.reset_seconds), True


def take_slot(session: Session, user_id: str, token_id: str, rate: Rate) -> Allowance:
    """Count one accepted submission in the caller's transaction (which creates the Test and
    commits); ``RateLimited`` when the account has none left. Concurrent submissions of one
    account are decided one after the other."""
    allowance, counted = _record(session, user_id, token_id, rate, refused=False)
    if not counted:
        raise refuse(allowance)
    return allowance


def record_refusal(session: Session, user_id: str, token_id: str, rate: Rate) -> Allowance:
    """Count one refused submission (the caller commits it on its own)."""
    return _record(session, user_id, token_id, rate, refused=True)[0]


def rate_limited(wait: int) -> RateLimited:
    return refuse(Allowance(Rate("submissions", 0, wait), 0, wait))


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
        return seconds_until(oldest + timedelta(seconds=window_seconds), now)
    return None


def upload_allowance(session: Session, user_id: str, rate: Rate) -> Allowance:
    """Files the account may still store in the window; checked before an upload's body."""
    now = utcnow()
    count, oldest = session.exec(
        select(func.count(), func.min(EvidenceFile.created_at))
        .join(Test, col(Test.id) == col(EvidenceFile.test_id))
        .where(
            col(Test.contributor_id) == user_id,
            col(EvidenceFile.created_at) >= now - timedelta(seconds=rate.window_seconds),
        )
    ).one()
    return _allowance(rate, count, oldest, now)
