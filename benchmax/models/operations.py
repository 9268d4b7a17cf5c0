"""Operations records: metric samples taken by the scheduler and the history of backups.

Both are operator bookkeeping rather than site content: a backup snapshots them like any
table, but its manifest does not pin their contents (they change every minute).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Index
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field, id_field, time_field
from benchmax.models.job import Job

# Counting live (pending/running/dead) jobs per kind and listing the dead-letter queue must
# not scan a table that keeps every finished job; this index turns both into range scans.
# It is declared here, beside the operations code that needs it, and attaches to ``job``.
JOB_STATE_KIND_INDEX = Index("ix_job_state_kind", Job.__table__.c.state, Job.__table__.c.kind)  # type: ignore[attr-defined]


class MetricSample(SQLModel, table=True):
    """One scheduler tick: queue depths, time-to-public and the storage inventory."""

    __tablename__ = "metric_sample"
    __table_args__ = (Index("ix_metric_sample_taken_at", "taken_at"),)

    id: int | None = Field(default=None, primary_key=True)
    taken_at: datetime = created_field()
    ttp_p50_seconds: float | None = None
    ttp_p95_seconds: float | None = None
    published_24h: int = Field(default=0, ge=0)
    oldest_waiting_seconds: float | None = None
    queue: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    storage: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)


class BackupRecord(SQLModel, table=True):
    """Where a backup's manifest lives, what it holds, and whether it last verified."""

    __tablename__ = "backup_record"
    __table_args__ = (Index("ix_backup_record_created_at", "created_at"),)

    id: str = id_field()
    created_at: datetime = created_field()
    manifest_key: str = Field(max_length=300)
    manifest_sha256: str = Field(max_length=64)
    snapshot_format: str = Field(max_length=32)
    schema_revision: str = Field(default="", max_length=64)
    object_count: int = Field(default=0, ge=0)
    object_bytes: int = Field(default=0, ge=0, sa_type=BigInteger)
    duration_seconds: float = Field(default=0.0, ge=0)
    created_by: str = Field(default="", max_length=32)
    verified_at: datetime | None = time_field()
    verify_ok: bool | None = None
    verify_differences: int = Field(default=0, ge=0)


class RedactionDay(SQLModel, table=True):
    """How many credentials were removed from derived text on one UTC day, per source
    ("preview": what a previewed page printed or showed; "judge": what an AI judge wrote).

    Only counts: the removed text itself is never written anywhere."""

    __tablename__ = "redaction_day"

    day: str = Field(primary_key=True, max_length=10)  # YYYY-MM-DD
    source: str = Field(primary_key=True, max_length=16)
    count: int = Field(default=0, ge=0)
