"""Running one job: claim it with a lease, run its handler, record the outcome.

Lifecycle of a row::

    pending ──claim──▶ running ──handler returns──▶ done
       ▲                  │
       └── backoff ◀──────┤ handler raises, attempts < max_attempts
                          └──────────────────────▶ dead  (attempts exhausted)
    dead ──requeue──▶ pending        dead ──discard──▶ discarded

A claim is one conditional UPDATE — the row must be pending and due, or running with an
expired lease — so of any number of workers holding the same id exactly one wins, on SQLite
and PostgreSQL alike; the others get ``SKIPPED`` and the duplicate message is harmless. The
claim commits before the handler starts, so the attempt and the lease survive a killed
worker: once the sweeper sees the worker's heartbeats stop (``liveness``), or the lease
expires, it re-sends the id and another worker claims it.
Every later update is conditional on still holding the lease, so a worker that outlived its
lease cannot overwrite the outcome of the one that took over.

A job with an ``account_id`` (a safety scan) is claimed only while its account has fewer
than ``scan_concurrency_per_account`` jobs running; otherwise it is ``DEFERRED`` and sent
again when one of them finishes (see ``fairness``).

A retry is not sent by the failing worker: the row is left pending with ``next_attempt_at``
in the future and the sweeper sends it when due, so the effective delay is the backoff
rounded up to the next sweep.
"""

from __future__ import annotations

import logging
import random
import secrets
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import select, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlmodel import col

from benchmax.models import Job, JobState
from benchmax.models._base import utcnow
from benchmax.services.jobs.fairness import (
    account_has_room,
    claimable,
    hand_off,
    lock_account_of,
)
from benchmax.services.jobs.registry import (
    JobContext,
    JobError,
    error_code,
    get_handler,
    run_dead_hook,
)
from benchmax.settings import Settings

logger = logging.getLogger(__name__)


class JobOutcome(StrEnum):
    DONE = "done"
    RETRY = "retry"
    DEAD = "dead"
    SKIPPED = "skipped"
    """Not claimable: missing, finished, not yet due, or leased by another worker."""
    DEFERRED = "deferred"
    """Due, but its account already runs as many jobs as it may; sent again later."""
    LEASE_LOST = "lease_lost"
    """The handler ran, but the lease expired and another worker took the job over."""


@dataclass(frozen=True)
class ClaimedJob:
    id: int
    kind: str
    subject_id: str
    attempts: int
    max_attempts: int
    lease_owner: str
    account_id: str = ""


def backoff_seconds(attempt: int, *, base: float, cap: float, jitter: float | None = None) -> float:
    """Delay before retrying after failed attempt number ``attempt`` (1-based).

    Doubles from ``base`` and never exceeds ``cap``; ``jitter`` in [0, 1) scales it into
    [50%, 100%) so jobs that failed together do not all retry at the same instant.
    """
    if jitter is None:
        jitter = random.random()  # noqa: S311 - spreading retries, not security
    ceiling = min(cap, base * 2.0 ** max(attempt - 1, 0))
    return ceiling * (0.5 + jitter / 2)


def affected_rows(result: Any) -> int:
    assert isinstance(result, CursorResult)
    return result.rowcount


def claim_job(
    session: Session,
    job_id: int,
    owner: str,
    *,
    lease_seconds: int,
    account_cap: int | None = None,
) -> ClaimedJob | None:
    """Atomically take ``job_id`` for ``owner`` and count the attempt; None if not claimable.

    With ``account_cap``, a job of an account that already runs that many jobs is not
    claimable either. The caller commits; until then the claim is invisible and holds the
    row's write lock.
    """
    now = utcnow()
    conditions = [col(Job.id) == job_id]
    if account_cap is not None:
        lock_account_of(session, job_id)
        conditions.append(account_has_room(now, account_cap))
    result = session.execute(
        update(Job)
        .where(*conditions, claimable(now))
        .values(
            state=JobState.RUNNING,
            attempts=col(Job.attempts) + 1,
            lease_owner=owner,
            lease_expires_at=now + timedelta(seconds=lease_seconds),
            updated_at=now,
        )
        .execution_options(synchronize_session=False)
    )
    if affected_rows(result) != 1:
        return None
    kind, subject_id, attempts, max_attempts, account_id = session.execute(
        select(
            col(Job.kind),
            col(Job.subject_id),
            col(Job.attempts),
            col(Job.max_attempts),
            col(Job.account_id),
        ).where(col(Job.id) == job_id)
    ).one()
    return ClaimedJob(job_id, kind, subject_id, attempts, max_attempts, owner, account_id)


def _defer_if_waiting(session: Session, job_id: int) -> bool:
    """Whether an unclaimed job is only waiting for its account's turn; if so, note the try.

    ``updated_at`` records it, so the sweeper leaves the row to the account's hand-offs for
    a lease period instead of re-sending it every sweep. That includes a job whose worker
    died: released, it loses the claim to a younger job of its account, and is handed the
    next turn rather than left for the sweeper's long resend.
    """
    now = utcnow()
    result = session.execute(
        update(Job)
        .where(col(Job.id) == job_id, col(Job.account_id) != "", claimable(now))
        .values(updated_at=now)
        .execution_options(synchronize_session=False)
    )
    return affected_rows(result) == 1


def _finish(session: Session, claimed: ClaimedJob, **values: Any) -> bool:
    """Apply ``values`` only while ``claimed`` still holds the lease."""
    now = utcnow()
    result = session.execute(
        update(Job)
        .where(
            col(Job.id) == claimed.id,
            col(Job.state) == JobState.RUNNING,
            col(Job.lease_owner) == claimed.lease_owner,
        )
        .values(lease_owner="", lease_expires_at=None, updated_at=now, **values)
        .execution_options(synchronize_session=False)
    )
    return affected_rows(result) == 1


def _record_failure(
    session: Session, claimed: ClaimedJob, code: str, settings: Settings
) -> JobOutcome:
    now = utcnow()
    if claimed.attempts >= claimed.max_attempts:
        outcome = JobOutcome.DEAD
        values: dict[str, Any] = {"state": JobState.DEAD, "finished_at": now}
    else:
        outcome = JobOutcome.RETRY
        delay = backoff_seconds(
            claimed.attempts,
            base=settings.job_backoff_base_seconds,
            cap=settings.job_backoff_max_seconds,
        )
        values = {"state": JobState.PENDING, "next_attempt_at": now + timedelta(seconds=delay)}
    if not _finish(session, claimed, last_error_code=code, **values):
        return JobOutcome.LEASE_LOST
    return outcome


def _where(exc: BaseException) -> str:
    """Where the exception was raised — code location only, for debugging without content."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "unknown"
    frame = frames[-1]
    return f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"


def run_job(
    job_id: int,
    ctx: JobContext,
    worker_id: str,
    on_claimed: Callable[[], None] | None = None,
) -> JobOutcome:
    """Claim ``job_id``, run its handler and record the outcome. Never raises for a handler.

    ``worker_id`` names the process in the lease (e.g. ``host:pid``); each claim adds a random
    suffix so that even the same worker re-claiming its own expired job holds a new lease.
    ``on_claimed`` runs once the claim's transaction has committed (whether it took the job,
    deferred it or found nothing to do): that is when a queue message may be acknowledged. A
    claim that fails (the database unreachable, the connection cut) raises before it, so the
    message stays unacknowledged and is delivered again.
    """
    owner = f"{worker_id[:90]}:{secrets.token_hex(4)}"
    cap = ctx.settings.scan_concurrency_per_account
    with ctx.session() as session:
        claimed = claim_job(
            session, job_id, owner, lease_seconds=ctx.settings.job_lease_seconds, account_cap=cap
        )
        deferred = claimed is None and _defer_if_waiting(session, job_id)
    if on_claimed is not None:
        _quietly(on_claimed, job_id)
    if deferred:
        logger.debug("job %s waits for its account's turn", job_id)
        return JobOutcome.DEFERRED
    if claimed is None:
        logger.debug("job %s not claimable; message ignored", job_id)
        return JobOutcome.SKIPPED
    try:
        return _run_claimed(claimed, ctx)
    finally:
        if claimed.account_id:
            _hand_off_quietly(ctx, claimed.account_id, cap)


def _quietly(on_claimed: Callable[[], None], job_id: int) -> None:
    """A lost acknowledgement only means the message comes again and is skipped."""
    try:
        on_claimed()
    except Exception as exc:
        logger.warning("job %s: acknowledging its message failed with %s", job_id, error_code(exc))


def _hand_off_quietly(ctx: JobContext, account_id: str, cap: int) -> None:
    """A lost hand-off only delays the account's next job until the sweeper re-sends it."""
    try:
        with ctx.session() as session:
            hand_off(session, account_id, cap)
    except Exception as exc:
        logger.warning("hand-off to the next waiting job failed with %s", error_code(exc))


_OUTCOME_TRIES = 5
_T = TypeVar("_T")


def _written(ctx: JobContext, write: Callable[[Session], _T]) -> _T:
    """Record a job's outcome, trying again when the database connection drops: the work is
    done, and a lost write would leave the job *running* under a live worker until its lease
    runs out (the sweeper only frees jobs of dead workers early)."""
    attempt = 1
    while True:
        try:
            with ctx.session() as session:
                return write(session)
        except DBAPIError as exc:
            if not exc.connection_invalidated or attempt >= _OUTCOME_TRIES:
                raise
            time.sleep(0.1 * attempt)
            attempt += 1


def _run_claimed(claimed: ClaimedJob, ctx: JobContext) -> JobOutcome:
    job_id = claimed.id
    handler = get_handler(claimed.kind)
    try:
        if handler is None:
            raise JobError("unknown_kind")
        handler(ctx, claimed.subject_id)
    except Exception as exc:
        code = error_code(exc)
        outcome = _written(
            ctx, lambda session: _record_failure(session, claimed, code, ctx.settings)
        )
        logger.warning(
            "job %s (%s) attempt %d/%d failed with %s at %s: %s",
            job_id,
            claimed.kind,
            claimed.attempts,
            claimed.max_attempts,
            code,
            _where(exc),
            outcome,
        )
        if outcome == JobOutcome.DEAD:
            run_dead_hook(ctx, job_id, claimed.kind, claimed.subject_id)
        return outcome

    # The error of an earlier attempt no longer describes a job that succeeded.
    finished = _written(
        ctx,
        lambda session: _finish(
            session, claimed, state=JobState.DONE, finished_at=utcnow(), last_error_code=""
        ),
    )
    outcome = JobOutcome.DONE if finished else JobOutcome.LEASE_LOST
    logger.info("job %s (%s) attempt %d: %s", job_id, claimed.kind, claimed.attempts, outcome)
    return outcome
