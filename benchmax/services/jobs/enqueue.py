"""Creating jobs: the row joins the caller's transaction; the message follows its commit.

``enqueue`` only adds a row and remembers its id on the session. A listener on every
SQLAlchemy session hands the remembered ids to the queue of the context that opened the
session (``JobContext.session``, which ``AppContext.session`` uses) after the outermost
transaction commits, and forgets them when it ends any other way — so a rolled-back change
never produces a message, and a committed one is never missing its row. If the send fails, or
the session was not opened by a context (a script's or a test's own session), the committed
row waits for the sweeper; nothing is lost.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import event, select
from sqlalchemy.orm import Session, SessionTransaction
from sqlmodel import col

from benchmax.models import Job, JobState
from benchmax.models._base import utcnow
from benchmax.services.jobs.registry import CONTEXT_KEY, JobContext
from benchmax.settings import Settings

logger = logging.getLogger(__name__)

_PENDING_KEY = "benchmax.jobs.send_after_commit"
_DEFAULT_MAX_ATTEMPTS: int = Settings.model_fields["job_max_attempts"].default


def _context_of(session: Session) -> JobContext | None:
    """The job context that opened ``session``, if one did."""
    return session.info.get(CONTEXT_KEY)


def enqueue(
    session: Session,
    kind: str,
    subject_id: str,
    *,
    delay_seconds: float = 0,
    max_attempts: int | None = None,
    account_id: str = "",
) -> Job:
    """Add a pending job to the caller's transaction; its id is sent once that commits.

    A delayed job is not sent at commit: the sweeper sends it when it falls due.
    ``max_attempts`` defaults to ``job_max_attempts`` from the settings of the context that
    opened ``session`` (the setting's default for a session no context opened). A job with an
    ``account_id`` shares the workers fairly with other accounts' jobs (see ``fairness``).
    """
    if not kind or len(kind) > 64:
        raise ValueError("job kind must be 1-64 characters")
    if not subject_id or len(subject_id) > 64:
        raise ValueError("job subject id must be 1-64 characters")
    if not max_attempts:
        ctx = _context_of(session)
        max_attempts = ctx.settings.job_max_attempts if ctx else _DEFAULT_MAX_ATTEMPTS
    now = utcnow()
    job = Job(
        kind=kind,
        subject_id=subject_id,
        account_id=account_id,
        max_attempts=max_attempts,
        next_attempt_at=now + timedelta(seconds=delay_seconds),
        created_at=now,
        updated_at=now,
    )
    session.add(job)
    session.flush()
    if delay_seconds <= 0:
        send_after_commit(session, job.id)  # type: ignore[arg-type]  # set by the flush
    return job


def enqueue_unless_pending(
    session: Session,
    kind: str,
    subject_id: str,
    *,
    delay_seconds: float,
    max_attempts: int | None = None,
    account_id: str = "",
) -> None:
    """A delayed job for ``subject_id``, unless one of ``kind`` is already waiting for it.

    How a handler defers work it cannot do now (e.g. a daily budget is spent) without piling
    up a new job every time it is asked.
    """
    waiting = session.execute(
        select(col(Job.id)).where(
            col(Job.kind) == kind,
            col(Job.subject_id) == subject_id,
            col(Job.state) == JobState.PENDING,
        )
    ).first()
    if waiting is None:
        enqueue(
            session,
            kind,
            subject_id,
            delay_seconds=delay_seconds,
            max_attempts=max_attempts,
            account_id=account_id,
        )


def send_after_commit(session: Session, job_id: int) -> None:
    """Send ``job_id`` to the session's queue once ``session``'s transaction commits."""
    session.info.setdefault(_PENDING_KEY, []).append(job_id)


@event.listens_for(Session, "after_commit")
def _send_committed(session: Session) -> None:
    job_ids: list[int] = session.info.pop(_PENDING_KEY, [])
    if not job_ids:
        return
    ctx = _context_of(session)
    if ctx is None:
        logger.warning("session opened by no job context; jobs %s wait for the sweeper", job_ids)
        return
    try:
        ctx.queue.send(job_ids)
    except Exception as exc:
        # The transaction has committed; failing the caller now would only mislead it.
        logger.warning(
            "jobs %s not sent (%s); the sweeper will send them", job_ids, type(exc).__name__
        )


@event.listens_for(Session, "after_transaction_end")
def _forget_uncommitted(session: Session, transaction: SessionTransaction) -> None:
    # Runs after after_commit, which has already taken committed ids; anything left belongs
    # to a rolled-back or abandoned transaction.
    if transaction.parent is None:
        session.info.pop(_PENDING_KEY, None)
