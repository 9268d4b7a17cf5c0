"""The sweeper: re-sends work whose message may have been lost.

It is what makes the queue disposable. Run periodically (the scheduler process, or the
embedded loop in the web process), it

* marks ``dead`` a job whose worker died during its last attempt (lease expired, no attempts
  left), with the code ``LeaseExpired``, and runs its kind's ``on_dead`` hook;
* re-sends the id of every pending job that is due and every running job whose lease expired.

To avoid flooding the queue with duplicates of a backlog, a row is re-sent once when it falls
due (or its lease expires) and afterwards only if it has sat untouched for a whole lease
period; ``updated_at`` records the last send. A re-sent id that turns out to be claimed
already is a no-op in ``run_job``.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import and_, or_, update
from sqlmodel import col, select

from benchmax.models import Job, JobState
from benchmax.models._base import utcnow
from benchmax.services.jobs.registry import JobContext, run_dead_hook

LEASE_EXPIRED = "LeaseExpired"


def sweep(ctx: JobContext, *, limit: int = 1000) -> int:
    """Re-send due and lease-expired jobs (at most ``limit``) through ``ctx.queue``; return
    how many were sent."""
    if ctx.queue.attached is None:
        # Sending would mark the rows sent and drop the messages: a lease period lost.
        raise RuntimeError("sweep needs a job dispatcher; the process's start-up attaches one")
    now = utcnow()
    stale = now - timedelta(seconds=ctx.settings.job_lease_seconds)
    lease_expired = and_(
        col(Job.state) == JobState.RUNNING,
        col(Job.lease_expires_at) <= now,
    )
    exhausted = and_(lease_expired, col(Job.attempts) >= col(Job.max_attempts))
    with ctx.session() as session:
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
        resend = or_(
            and_(
                col(Job.state) == JobState.PENDING,
                col(Job.next_attempt_at) <= now,
                or_(col(Job.updated_at) < col(Job.next_attempt_at), col(Job.updated_at) <= stale),
            ),
            and_(
                lease_expired,
                or_(col(Job.updated_at) < col(Job.lease_expires_at), col(Job.updated_at) <= stale),
            ),
        )
        job_ids = list(
            session.scalars(select(col(Job.id)).where(resend).order_by(col(Job.id)).limit(limit))
        )
        if job_ids:
            session.execute(
                update(Job)
                .where(col(Job.id).in_(job_ids))
                .values(updated_at=now)
                .execution_options(synchronize_session=False)
            )
    for dead_id, kind, subject_id in dying:
        run_dead_hook(ctx, dead_id, kind, subject_id)
    ctx.queue.send([job_id for job_id in job_ids if job_id is not None])
    return len(job_ids)
