"""The sweeper: releases what dead workers held and re-sends work whose message may be lost.

It is what makes the queue disposable. Run periodically (the scheduler process every
``sweep_interval_seconds``, or the embedded loop in the web process), it

* expires at once the leases of jobs held by a worker whose heartbeats stopped
  (``liveness``), so a killed worker costs seconds, not a lease;
* marks ``dead`` a job whose worker died during its last attempt (lease expired, no attempts
  left), with the code ``LeaseExpired``, and runs its kind's ``on_dead`` hook;
* re-sends the id of every running job whose lease expired, every pending job that just fell
  due, and every due job left untouched for ``job_resend_seconds`` (a message lost, or never
  sent, say by a CLI with no dispatcher) — whether or not it was ever attempted;
* re-sends the oldest waiting jobs of every account with room under its per-account cap, so
  a contributor never waits behind a job nobody runs (a lost hand-off, a released job).

``updated_at`` records the last send, so a backlog is not re-sent on every sweep. A re-sent
id that turns out to be claimed already is a no-op in ``run_job``.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta

import sqlalchemy
from sqlalchemy import and_, func, literal, or_, update
from sqlalchemy.orm import Session
from sqlmodel import col, select

from benchmax.models import Job, JobState
from benchmax.models._base import utcnow
from benchmax.services.jobs.liveness import release_dead_workers
from benchmax.services.jobs.registry import JobContext, run_dead_hook

LEASE_EXPIRED = "LeaseExpired"


def _account_turns(
    session: Session, now: datetime, cap: int, untouched_before: datetime
) -> list[int]:
    """The oldest waiting jobs of each account, as many as its cap has room for."""
    running = (
        select(col(Job.account_id).label("account_id"), func.count().label("n"))
        .where(
            col(Job.account_id) != "",
            col(Job.state) == JobState.RUNNING,
            col(Job.lease_expires_at) > now,
        )
        .group_by(col(Job.account_id))
        .subquery()
    )
    ranked = (
        sqlalchemy.select(
            col(Job.id).label("id"),
            col(Job.account_id).label("account_id"),
            col(Job.updated_at).label("updated_at"),
            col(Job.next_attempt_at).label("next_attempt_at"),
            func.row_number()
            .over(partition_by=col(Job.account_id), order_by=col(Job.id))
            .label("turn"),
        )
        .where(
            col(Job.account_id) != "",
            col(Job.state) == JobState.PENDING,
            col(Job.next_attempt_at) <= now,
        )
        .subquery()
    )
    query = (
        select(ranked.c.id)
        .select_from(ranked.outerjoin(running, running.c.account_id == ranked.c.account_id))
        .where(
            ranked.c.turn <= literal(cap) - func.coalesce(running.c.n, 0),
            or_(
                ranked.c.updated_at < ranked.c.next_attempt_at,
                ranked.c.updated_at <= untouched_before,
            ),
        )
    )
    return [job_id for job_id in session.scalars(query) if job_id is not None]


def _to_send(
    session: Session, now: datetime, ctx: JobContext, resend_after: float, limit: int
) -> list[int]:
    untouched_before = now - timedelta(seconds=resend_after)
    lease_expired = and_(col(Job.state) == JobState.RUNNING, col(Job.lease_expires_at) <= now)
    resend = or_(
        and_(
            col(Job.account_id) == "",
            col(Job.state) == JobState.PENDING,
            col(Job.next_attempt_at) <= now,
            or_(
                col(Job.updated_at) < col(Job.next_attempt_at),
                col(Job.updated_at) <= untouched_before,
            ),
        ),
        and_(
            lease_expired,
            or_(
                col(Job.updated_at) < col(Job.lease_expires_at),
                col(Job.updated_at) <= untouched_before,
            ),
        ),
    )
    job_ids = [
        job_id
        for job_id in session.scalars(
            select(col(Job.id)).where(resend).order_by(col(Job.id)).limit(limit)
        )
        if job_id is not None
    ]
    # An account's turn comes round at every sweep, not only after job_resend_seconds.
    turn_untouched = now - timedelta(seconds=min(resend_after, ctx.settings.sweep_interval_seconds))
    turns = _account_turns(session, now, ctx.settings.scan_concurrency_per_account, turn_untouched)
    return sorted(set(job_ids) | set(turns))[:limit]


def sweep(
    ctx: JobContext,
    *,
    limit: int = 1000,
    resend_after: float | None = None,
    in_flight: Collection[int] = (),
) -> int:
    """Release dead workers' jobs and re-send due and lease-expired ones (at most ``limit``)
    through ``ctx.queue``; return how many were sent.

    ``resend_after`` overrides ``job_resend_seconds``; a process that knows which ids it is
    already running (the embedded loop) passes them as ``in_flight`` and sweeps with 0.
    """
    if ctx.queue.attached is None:
        # Sending would mark the rows sent and drop the messages: work delayed for nothing.
        raise RuntimeError("sweep needs a job dispatcher; the process's start-up attaches one")
    settings = ctx.settings
    now = utcnow()
    lease_expired = and_(
        col(Job.state) == JobState.RUNNING,
        col(Job.lease_expires_at) <= now,
    )
    exhausted = and_(lease_expired, col(Job.attempts) >= col(Job.max_attempts))
    with ctx.session() as session:
        release_dead_workers(session, now, settings.worker_dead_after_seconds)
        dying = session.execute(
            select(col(Job.id), col(Job.kind), col(Job.subject_id)).where(exhausted)
        ).all()
        session.execute(
            update(Job)
            .where(col(Job.id).in_([row[0] for row in dying]), exhausted)
            .values(
                state=JobState.DEAD,
                last_error_code=LEASE_EXPIRED,
                lease_owner="",
                lease_expires_at=None,
                finished_at=now,
                updated_at=now,
            )
            .execution_options(synchronize_session=False)
        )
        wait = settings.job_resend_seconds if resend_after is None else resend_after
        skip = set(in_flight)
        job_ids = [i for i in _to_send(session, now, ctx, wait, limit) if i not in skip]
        if job_ids:
            session.execute(
                update(Job)
                .where(col(Job.id).in_(job_ids))
                .values(updated_at=now)
                .execution_options(synchronize_session=False)
            )
    for dead_id, kind, subject_id in dying:
        run_dead_hook(ctx, dead_id, kind, subject_id)
    ctx.queue.send(job_ids)
    return len(job_ids)
