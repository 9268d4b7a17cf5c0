"""Sharing the workers fairly between accounts: a cap on each account's running jobs.

A job enqueued with an ``account_id`` (every safety scan, every preview) may be claimed only
while fewer than ``cap`` jobs of the same account and kind are running with a live lease (a
contributor's preview never holds up their scans). The check is part of
the claim's one conditional UPDATE, so it holds across any number of workers and queues:
SQLite runs the statement under its database write lock, and on PostgreSQL the claim first
takes a transaction-scoped advisory lock on the account, so two claims for one account are
decided one after the other.

A job refused for that reason is *deferred*: it stays waiting (pending and due, or running on
a lease that expired because its worker died), and the worker moves on to the next message,
so an account with a thousand queued scans holds ``cap`` workers and everyone else's scans go
ahead. Whenever one of the account's jobs finishes, the finishing worker sends the ids of the
account's oldest waiting jobs again (``hand_off``), so the account's own queue drains in order
at its full share; the sweeper re-sends anything left after a lease period, should a hand-off
be lost.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, and_, func, literal, or_, select, text
from sqlalchemy.orm import Session, aliased
from sqlmodel import col

from benchmax.models import Job, JobState
from benchmax.models._base import utcnow
from benchmax.services.jobs.enqueue import send_after_commit


def claimable(now: datetime) -> ColumnElement[bool]:
    """A job some worker may take now: pending and due, or running on an expired lease (its
    worker died or overran) with attempts left. Both wait alike for their account's turn."""
    return or_(
        and_(col(Job.state) == JobState.PENDING, col(Job.next_attempt_at) <= now),
        and_(
            col(Job.state) == JobState.RUNNING,
            col(Job.lease_expires_at) <= now,
            col(Job.attempts) < col(Job.max_attempts),
        ),
    )


def account_has_room(now: datetime, cap: int) -> ColumnElement[bool]:
    """A claim condition: the job is uncapped, or its account runs fewer than ``cap`` jobs."""
    other = aliased(Job)
    # The ignores below: SQLModel types an aliased model's attributes as plain values, not
    # columns, so comparing them reads as a bool to mypy.
    running = (
        select(func.count())
        .select_from(other)
        .where(
            other.account_id == Job.account_id,  # type: ignore[arg-type]
            other.kind == Job.kind,  # type: ignore[arg-type]
            other.state == JobState.RUNNING,  # type: ignore[arg-type]
            other.lease_expires_at > now,  # type: ignore[arg-type, operator]
        )
        .scalar_subquery()
    )
    return or_(col(Job.account_id) == literal(""), running < cap)


def lock_account_of(session: Session, job_id: int) -> None:
    """Serialise claims of one account's jobs on PostgreSQL (SQLite serialises all writes)."""
    bind = session.get_bind()
    if bind.dialect.name != "postgresql":
        return
    session.execute(
        text(
            "SELECT pg_advisory_xact_lock(hashtext('benchmax.job.account:' || account_id)) "
            "FROM job WHERE id = :job_id AND account_id <> ''"
        ),
        {"job_id": job_id},
    )


def hand_off(session: Session, account_id: str, cap: int) -> list[int]:
    """Send the account's ``cap`` oldest waiting jobs again, after the caller commits.

    More than one is sent because two of the account's jobs may finish at once and pick the
    same successor; a duplicate is skipped or deferred again in a single UPDATE.
    """
    if not account_id:
        return []
    job_ids = [
        job_id
        for job_id in session.scalars(
            select(col(Job.id))
            .where(col(Job.account_id) == account_id, claimable(utcnow()))
            .order_by(col(Job.id))
            .limit(cap)
        )
        if job_id is not None
    ]
    for job_id in job_ids:
        send_after_commit(session, job_id)
    return job_ids
