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
    Appeal,
    AuditEvent,
    BackupRecord,
    CaseState,
    Dispute,
    Job,
    JobState,
    ModerationHold,
    Report,
    Test,
    User,
)
from benchmax.models._base import as_utc, utcnow
from benchmax.services.derived_text import RedactionCounts, redaction_counts
from benchmax.services.dto import from_row
from benchmax.services.jobs import JobCount, list_jobs, oldest_waiting_age
from benchmax.services.judge.snapshots import active_snapshot
from benchmax.services.operations.access import require_owner
from benchmax.services.operations.inventory import Inventory, take_inventory
from benchmax.services.operations.metrics import (
    JobStatePoint,
    SeriesPoint,
    TimeToPublic,
    job_state_series,
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
    """Ids and actions, with the names people recognise: the actor's handle, and the title of
    the Test the event concerns (its subject, or the Test its detail names). Nothing else
    from the detail is read: it can carry an operator's free text."""

    id: int
    action: str
    actor_id: str | None
    subject_type: str
    subject_id: str
    created_at: datetime
    actor_handle: str = ""
    subject_handle: str = ""  # the subject is an account
    test_id: str = ""
    test_title: str = ""


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
    open_appeals: int
    redactions: RedactionCounts
    job_series: tuple[JobStatePoint, ...]
    inventory: Inventory
    last_backup: BackupSummary | None
    recent_audit: tuple[AuditSummary, ...]


def _open_count(
    session: Session, model: type[Report] | type[Dispute] | type[Appeal] | type[ModerationHold]
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


def _audit_rows(session: Session, events: list[AuditEvent]) -> tuple[AuditSummary, ...]:
    """Events with their actor's handle and their Test's title, in two lookups."""

    def about_test(event: AuditEvent) -> str:
        if event.subject_type == "test":
            return event.subject_id
        named = event.detail.get("test_id") if isinstance(event.detail, dict) else None
        return named if isinstance(named, str) else ""

    user_ids = {e.actor_id for e in events if e.actor_id} | {
        e.subject_id for e in events if e.subject_type == "user"
    }
    rows = session.execute(
        select(col(User.id), col(User.handle)).where(col(User.id).in_(user_ids))
    ).all()
    handles: dict[str, str] = {row[0]: row[1] for row in rows}
    test_ids = {about_test(e) for e in events} - {""}
    titles = {
        test.id: test.display_title
        for test in session.scalars(select(Test).where(col(Test.id).in_(test_ids)))
    }
    summaries = []
    for event in events:
        test_id = about_test(event)
        summaries.append(
            AuditSummary(
                id=event.id or 0,
                action=event.action,
                actor_id=event.actor_id,
                subject_type=event.subject_type,
                subject_id=event.subject_id,
                created_at=as_utc(event.created_at),
                actor_handle=handles.get(event.actor_id or "", ""),
                subject_handle=handles.get(event.subject_id, "")
                if event.subject_type == "user"
                else "",
                test_id=test_id if test_id in titles else "",
                test_title=titles.get(test_id, ""),
            )
        )
    return tuple(summaries)


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
        open_appeals=_open_count(session, Appeal),
        job_series=tuple(job_state_series(session, now)),
        ai_review="on" if active_snapshot(session) is not None else "off: no active judge snapshot",
        redactions=redaction_counts(session),
        inventory=(
            Inventory.from_json(sample.storage)
            if sample and sample.storage
            else take_inventory(session, storage, now)
        ),
        last_backup=_last_backup(session),
        recent_audit=_audit_rows(session, list(audit)),
    )


def owner_dashboard(
    session: Session, storage: ObjectStorage, viewer: User | None, now: datetime | None = None
) -> Dashboard:
    """``dashboard`` for an active owner; anyone else gets ``Forbidden`` and no data."""
    require_owner(viewer)
    return dashboard(session, storage, now)
