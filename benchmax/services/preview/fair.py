"""Fair previews: each account has at most ``preview_queue_per_account`` previews running or
waiting in the worker queue; the rest of its previews wait their turn in the database.

The worker queue is first come, first served, and a preview holds one of the process's few
preview slots (``preview_slots``) for up to a couple of minutes, so twenty ZIPs from one
account, all queued, would put everyone else's preview behind twenty of theirs. With the cap
below the number of slots, a slot is always left for another account. Instead a preview job of an
account that is at its cap is *parked*: a pending row whose next attempt lies so far ahead
that neither the sweeper nor a claim touches it. Each time one of the account's previews
ends (done, failed, deferred to tomorrow or dead), its oldest parked preview is let into the
queue, behind whatever other accounts queued meanwhile, so one account's flood delays only
itself. Its share of the daily budget is counted apart (``budget``).

Letting a parked job in is a single conditional UPDATE per job; two previews of one account
ending at the same moment may let in one job too many for a while, never lose one.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import or_, update
from sqlmodel import Session, col, func, select

from benchmax.models import Job, JobState
from benchmax.models._base import utcnow
from benchmax.services.jobs import enqueue, send_after_commit
from benchmax.services.jobs.runner import affected_rows
from benchmax.settings import Settings

PREVIEW_EVALUATE = "preview_evaluate"
MAX_ATTEMPTS = 3
# A parked job's next attempt is this far ahead; anything past half of it is parked.
PARK_SECONDS = 100 * 365 * 24 * 3600


def _parked_after() -> object:
    return utcnow() + timedelta(seconds=PARK_SECONDS / 2)


def active_previews(session: Session, account_id: str, *, besides: str = "") -> int:
    """The account's previews running or let into the queue (``besides``: a Test id whose
    job is ending and no longer counts)."""
    return session.exec(
        select(func.count())
        .select_from(Job)
        .where(
            col(Job.kind) == PREVIEW_EVALUATE,
            col(Job.account_id) == account_id,
            col(Job.subject_id) != besides,
            or_(
                col(Job.state) == JobState.RUNNING,
                (col(Job.state) == JobState.PENDING) & (col(Job.next_attempt_at) < _parked_after()),
            ),
        )
    ).one()


def enqueue_preview(
    session: Session, settings: Settings, test_id: str, account_id: str, *, delay_seconds: float = 0
) -> Job:
    """A preview job for ``test_id`` of ``account_id``: queued if the account has room, else
    parked until one of its previews ends."""
    full = active_previews(session, account_id) >= settings.preview_queue_per_account
    return enqueue(
        session,
        PREVIEW_EVALUATE,
        test_id,
        delay_seconds=PARK_SECONDS if full else delay_seconds,
        max_attempts=MAX_ATTEMPTS,
        account_id=account_id,
    )


def let_in_next(session: Session, settings: Settings, account_id: str, ending: str) -> list[int]:
    """As the preview of Test ``ending`` ends: queue the account's oldest parked previews
    while it has room; the ids let in (sent once the caller commits)."""
    room = settings.preview_queue_per_account - active_previews(session, account_id, besides=ending)
    if room <= 0:
        return []
    parked = session.exec(
        select(col(Job.id))
        .where(
            col(Job.kind) == PREVIEW_EVALUATE,
            col(Job.account_id) == account_id,
            col(Job.state) == JobState.PENDING,
            col(Job.next_attempt_at) >= _parked_after(),
        )
        .order_by(col(Job.id))
        .limit(room)
    ).all()
    let_in: list[int] = []
    now = utcnow()
    for job_id in parked:
        moved = session.execute(
            update(Job)
            .where(
                col(Job.id) == job_id,
                col(Job.state) == JobState.PENDING,
                col(Job.next_attempt_at) >= _parked_after(),
            )
            .values(next_attempt_at=now, updated_at=now)
            .execution_options(synchronize_session=False)
        )
        if affected_rows(moved) == 1 and job_id is not None:
            send_after_commit(session, job_id)
            let_in.append(job_id)
    return let_in
