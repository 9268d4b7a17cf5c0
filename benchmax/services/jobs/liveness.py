"""Worker liveness: a dead worker's running jobs are released when it falls silent.

A lease only says how long a job may run; waiting for it to expire after a worker is killed
costs the contributor minutes (and, with one scan per account at a time, holds their next
scans too). So every process that runs jobs writes a heartbeat row (``WorkerBeat``) every few
seconds, keyed by the prefix of its leases (``host:pid``). The sweeper treats a worker silent
for ``worker_dead_after_seconds`` as dead: it expires the leases of that worker's running jobs
at once, so the usual lease-expired path re-sends them (or marks dead one with no attempts
left), and forgets the worker.

A worker with no heartbeat row at all (a script calling ``run_job`` directly) is left to its
leases. A live worker wrongly taken for dead (its heartbeats delayed past the limit) loses
nothing either: its later updates are conditional on the lease it no longer holds, and
handlers are idempotent.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, update
from sqlalchemy.orm import Session
from sqlmodel import col, select

from benchmax.models import Job, JobState, WorkerBeat
from benchmax.models._base import utcnow
from benchmax.services.jobs.runner import affected_rows

LONG_AGO = datetime(2000, 1, 1, tzinfo=utcnow().tzinfo)


def worker_of(lease_owner: str) -> str:
    """The worker that holds a lease: its owner less the per-claim suffix."""
    return lease_owner.rsplit(":", 1)[0]


def beat(session: Session, worker_id: str, now: datetime | None = None) -> None:
    """Say ``worker_id`` is alive now (each worker writes only its own row)."""
    now = now or utcnow()
    result = session.execute(
        update(WorkerBeat)
        .where(col(WorkerBeat.worker_id) == worker_id)
        .values(seen_at=now)
        .execution_options(synchronize_session=False)
    )
    if affected_rows(result) == 0:
        session.add(WorkerBeat(worker_id=worker_id, seen_at=now))


def retire(session: Session, worker_id: str) -> None:
    """A worker stopping: whatever it leaves running is released by the next sweep."""
    session.execute(
        update(WorkerBeat)
        .where(col(WorkerBeat.worker_id) == worker_id)
        .values(seen_at=LONG_AGO)
        .execution_options(synchronize_session=False)
    )


def release_dead_workers(session: Session, now: datetime, dead_after_seconds: float) -> list[int]:
    """Expire the leases of jobs held by silent workers; the ids released."""
    quiet = col(WorkerBeat.seen_at) < now - timedelta(seconds=dead_after_seconds)
    silent = set(session.scalars(select(col(WorkerBeat.worker_id)).where(quiet)))
    if not silent:
        return []
    held = session.execute(
        select(col(Job.id), col(Job.lease_owner)).where(
            col(Job.state) == JobState.RUNNING, col(Job.lease_expires_at) > now
        )
    ).all()
    released: list[int] = []
    for job_id, owner in held:
        if job_id is None or worker_of(owner) not in silent:
            continue
        result = session.execute(
            update(Job)
            .where(
                col(Job.id) == job_id,
                col(Job.state) == JobState.RUNNING,
                col(Job.lease_owner) == owner,
            )
            .values(lease_expires_at=now)
            .execution_options(synchronize_session=False)
        )
        if affected_rows(result) == 1:
            released.append(job_id)
    session.execute(delete(WorkerBeat).where(col(WorkerBeat.worker_id).in_(silent), quiet))
    return released
