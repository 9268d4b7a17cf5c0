"""The /operations read model: everything an owner needs to see at a glance, in one call.

Every figure is an aggregate over an index so the whole load stays well under 200 ms with a
million job rows (``bench/operations.py``). Two things are deliberately *not* live:

* finished jobs (``done``, ``discarded``) grow without bound, so their counts come from the
  latest metric sample while pending, running and dead are counted live;
* the storage inventory needs a full listing, so it is the one the scheduler last recorded
  (taken live only while no sample exists yet, as on a brand-new install).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlalchemy.orm import Session
from sqlmodel import col, select

from benchmax.adapters.storage import ObjectStorage
from benchmax.models import (
    AuditEvent,
    BackupRecord,
    CaseState,
    Dispute,
    Job,
    JobState,
    ModerationHold,
    Report,
    User,
)
from benchmax.models._base import as_utc, utcnow
from benchmax.services.dto import from_row
from benchmax.services.jobs import JobCount, list_jobs, oldest_waiting_age
from benchmax.services.judge.snapshots import active_snapshot
from benchmax.services.operations.access import require_owner
from benchmax.services.operations.inventory import Inventory, take_inventory
from benchmax.services.operations.metrics import (
    SeriesPoint,
    TimeToPublic,
    latest_sample,
    time_to_public,
    ttp_series,
)

LIVE_JOB_STATES = (JobState.PENDING, JobState.RUNNING, JobState.DEAD)
DEAD_LIST_LIMIT = 100
AUDIT_LIMIT = 20


@dataclass(frozen=True)
class DeadJob:
    id: int
    kind: str
    subject_id: str
    attempts: int
    last_error_code: str
    updated_at: datetime


@dataclass(frozen=True)
class BackupSummary:
    id: str
    created_at: datetime
    manifest_key: str
    object_count: int
    object_bytes: int
    verified_at: datetime | None
    verify_ok: bool | None
    verify_differences: int


@dataclass(frozen=True)
class AuditSummary:
    """Ids and actions only: an audit event's detail can carry an operator's free text."""

    id: int
    action: str
    actor_id: str | None
    subject_type: str
    subject_id: str
    created_at: datetime


@dataclass(frozen=True)
class Dashboard:
    generated_at: datetime
    job_counts: tuple[JobCount, ...]
    finished_counts_at: datetime | None
    oldest_waiting_seconds: float | None
    dead_jobs: tuple[DeadJob, ...]
    time_to_public: TimeToPublic
    ttp_series: tuple[SeriesPoint, ...]
    open_reports: int
    open_disputes: int
    open_holds: int
    ai_review: str
    inventory: Inventory
    last_backup: BackupSummary | None
    recent_audit: tuple[AuditSummary, ...]


def _open_count(
    session: Session, model: type[Report] | type[Dispute] | type[ModerationHold]
) -> int:
    return int(session.scalar(select(func.count()).where(col(model.state) == CaseState.OPEN)) or 0)


def _job_counts(session: Session, finished: dict[str, dict[str, int]]) -> list[JobCount]:
    """Live states counted now (ix_job_state_kind); finished ones as of the latest sample."""
    rows = session.execute(
        select(col(Job.kind), col(Job.state), func.count())
        .where(col(Job.state).in_([state.value for state in LIVE_JOB_STATES]))
        .group_by(col(Job.kind), col(Job.state))
    )
    counts = [JobCount(kind, JobState(state), count) for kind, state, count in rows]
    for kind, states in finished.items():
        counts.extend(
            JobCount(kind, JobState(state), count)
            for state, count in states.items()
            if JobState(state) not in LIVE_JOB_STATES
        )
    return sorted(counts, key=lambda count: (count.kind, count.state.value))


def _last_backup(session: Session) -> BackupSummary | None:
    record = session.scalars(
        select(BackupRecord).order_by(col(BackupRecord.created_at).desc()).limit(1)
    ).first()
    if record is None:
        return None
    return BackupSummary(
        id=record.id,
        created_at=as_utc(record.created_at),
        manifest_key=record.manifest_key,
        object_count=record.object_count,
        object_bytes=record.object_bytes,
        verified_at=as_utc(record.verified_at) if record.verified_at else None,
        verify_ok=record.verify_ok,
        verify_differences=record.verify_differences,
    )


def dashboard(session: Session, storage: ObjectStorage, now: datetime | None = None) -> Dashboard:
    """Everything /operations shows, read in a handful of indexed queries."""
    now = now or utcnow()
    sample = latest_sample(session)
    waiting = oldest_waiting_age(session, now)
    dead = list_jobs(session, state=JobState.DEAD, limit=DEAD_LIST_LIMIT)
    audit = session.scalars(
        select(AuditEvent).order_by(col(AuditEvent.id).desc()).limit(AUDIT_LIMIT)
    )
    return Dashboard(
        generated_at=now,
        job_counts=tuple(_job_counts(session, sample.queue if sample else {})),
        finished_counts_at=as_utc(sample.taken_at) if sample else None,
        oldest_waiting_seconds=waiting.total_seconds() if waiting is not None else None,
        dead_jobs=tuple(from_row(DeadJob, job, id=job.id or 0) for job in dead),
        time_to_public=time_to_public(session, now),
        ttp_series=tuple(ttp_series(session, now)),
        open_reports=_open_count(session, Report),
        open_disputes=_open_count(session, Dispute),
        open_holds=_open_count(session, ModerationHold),
        ai_review="on" if active_snapshot(session) is not None else "off",
        inventory=(
            Inventory.from_json(sample.storage)
            if sample and sample.storage
            else take_inventory(session, storage, now)
        ),
        last_backup=_last_backup(session),
        recent_audit=tuple(from_row(AuditSummary, event, id=event.id or 0) for event in audit),
    )


def owner_dashboard(
    session: Session, storage: ObjectStorage, viewer: User | None, now: datetime | None = None
) -> Dashboard:
    """``dashboard`` for an active owner; anyone else gets ``Forbidden`` and no data."""
    require_owner(viewer)
    return dashboard(session, storage, now)
