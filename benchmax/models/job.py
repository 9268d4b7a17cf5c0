"""Durable jobs: the database row is the source of truth; the broker only carries its id."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Index, String
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field, time_field
from benchmax.models._columns import Stamped


class JobState(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    DEAD = "dead"
    DISCARDED = "discarded"


class Job(Stamped, table=True):
    __table_args__ = (
        Index("ix_job_due", "state", "next_attempt_at"),
        Index("ix_job_kind_state", "kind", "state"),
        Index("ix_job_subject", "kind", "subject_id"),
        # Claims count an account's running jobs and hand its next waiting one on.
        Index("ix_job_account_state", "account_id", "state"),
    )

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=64)
    subject_id: str = Field(max_length=64)
    # The account whose work this is, for jobs shared fairly between accounts (safety
    # scans); empty for jobs that are not capped per account.
    account_id: str = Field(default="", max_length=16)
    state: JobState = Field(default=JobState.PENDING, sa_type=String(16))
    attempts: int = Field(default=0, ge=0)
    max_attempts: int = Field(default=5, ge=1)
    next_attempt_at: datetime = created_field()
    lease_owner: str = Field(default="", max_length=100)
    lease_expires_at: datetime | None = time_field()
    last_error_code: str = Field(default="", max_length=64)
    finished_at: datetime | None = time_field()


class WorkerBeat(SQLModel, table=True):
    """A process that runs jobs, and when it last said it was alive.

    ``worker_id`` is the prefix of its leases (``host:pid``), so the sweeper can tell whose
    running jobs to release once the heartbeats stop, instead of waiting for each lease.
    """

    __tablename__ = "worker_beat"

    worker_id: str = Field(primary_key=True, max_length=90)
    seen_at: datetime = created_field()
