"""Handing back the jobs a stopping process still runs, so nobody waits out their leases.

A process asked to stop (SIGTERM, SIGINT) gives its running jobs a grace period; what is
still running after it is released here: the row goes back to ``pending`` and due now, with
the interrupted attempt not counted (stopping a process is not the job's failure, and must
never dead-letter it). ``updated_at`` keeps the claim's time, which is before the new
``next_attempt_at``, so the sweeper re-sends the row at its next pass — exactly once, as for
any row that falls due. The update is conditional on the lease owner, so a job that finished
(or was taken over) meanwhile is left alone; a handler thread that is still running then
finds its lease gone and cannot record an outcome over the next attempt's.
"""

from __future__ import annotations

from sqlalchemy import case, update
from sqlalchemy.orm import Session
from sqlmodel import col

from benchmax.models import Job, JobState
from benchmax.models._base import utcnow
from benchmax.services.jobs.runner import affected_rows


def release_leases(session: Session, worker_id: str) -> int:
    """Release every running job whose lease ``worker_id`` (``host:pid``) holds; how many.

    Lease owners are ``<worker_id>:<token>`` (``run_job``), so the prefix with its colon
    matches this process's claims and never another pid that merely starts with the same
    digits.
    """
    prefix = f"{worker_id[:90]}:"
    now = utcnow()
    result = session.execute(
        update(Job)
        .where(
            col(Job.state) == JobState.RUNNING,
            col(Job.lease_owner).startswith(prefix, autoescape=True),
        )
        .values(
            state=JobState.PENDING,
            attempts=case((col(Job.attempts) > 0, col(Job.attempts) - 1), else_=0),
            lease_owner="",
            lease_expires_at=None,
            next_attempt_at=now,
        )
        .execution_options(synchronize_session=False)
    )
    return affected_rows(result)
