"""Operator actions and read models: dead-letter handling and queue health.

Requeue and discard apply only to ``dead`` jobs, are single conditional UPDATEs (two operators
clicking at once cannot both succeed), and append an ``AuditEvent`` in the caller's
transaction. The caller commits; a requeued job is sent after that commit like a new one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, update
from sqlalchemy.orm import Session
from sqlmodel import col, select

from benchmax.models import AuditAction, Job, JobState, audit
from benchmax.models._base import as_utc, utcnow
from benchmax.services.errors import Conflict
from benchmax.services.jobs.enqueue import send_after_commit
from benchmax.services.jobs.runner import affected_rows


@dataclass(frozen=True)
class JobCount:
    kind: str
    state: JobState
    count: int


def _act_on_dead(
    session: Session,
    job_id: int,
    action: AuditAction,
    actor_id: str | None,
    reason: str,
    **values: Any,
) -> Job:
    now = utcnow()
    result = session.execute(
        update(Job)
        .where(col(Job.id) == job_id, col(Job.state) == JobState.DEAD)
        .values(updated_at=now, **values)
        .execution_options(synchronize_session=False)
    )
    if affected_rows(result) != 1:
        # The job does not exist or is not in a state that allows the action.
        raise Conflict("job_not_dead", f"job {job_id} is not dead")
    job = session.get(Job, job_id, populate_existing=True)
    assert job is not None
    audit(
        session,
        action,
        ("job", str(job_id)),
        actor_id=actor_id,
        detail={"kind": job.kind, "reason": reason},
    )
    return job


def requeue(session: Session, job_id: int, *, actor_id: str | None, reason: str) -> Job:
    """Give a dead job a fresh set of attempts, due now; sent after the caller commits."""
    now = utcnow()
    job = _act_on_dead(
        session,
        job_id,
        AuditAction.JOB_REQUEUE,
        actor_id,
        reason,
        state=JobState.PENDING,
        attempts=0,
        next_attempt_at=now,
        finished_at=None,
    )
    send_after_commit(session, job_id)
    return job


def discard(session: Session, job_id: int, *, actor_id: str | None, reason: str) -> Job:
    """Give up on a dead job for good; the row stays for the record."""
    return _act_on_dead(
        session, job_id, AuditAction.JOB_DISCARD, actor_id, reason, state=JobState.DISCARDED
    )


def job_counts(session: Session) -> list[JobCount]:
    """How many jobs there are per kind and state, ordered by kind then state."""
    rows = session.execute(
        select(col(Job.kind), col(Job.state), func.count())
        .group_by(col(Job.kind), col(Job.state))
        .order_by(col(Job.kind), col(Job.state))
    )
    return [JobCount(kind, JobState(state), count) for kind, state, count in rows]


def oldest_waiting_age(session: Session, now: datetime | None = None) -> timedelta | None:
    """How long the longest-waiting due job has waited since it fell due; None if none waits."""
    now = now or utcnow()
    oldest = session.scalar(
        select(func.min(col(Job.next_attempt_at))).where(
            col(Job.state) == JobState.PENDING,
            col(Job.next_attempt_at) <= now,
        )
    )
    if oldest is None:
        return None
    oldest = as_utc(oldest)
    return now - oldest


def list_jobs(
    session: Session, *, state: JobState | None = None, kind: str | None = None, limit: int = 100
) -> list[Job]:
    """Jobs newest first, optionally of one state and kind (the dead-letter list is DEAD)."""
    query = select(Job).order_by(col(Job.id).desc()).limit(limit)
    if state is not None:
        query = query.where(col(Job.state) == state)
    if kind is not None:
        query = query.where(col(Job.kind) == kind)
    return list(session.scalars(query))
