"""Automated previews: one evaluation per (Test, source ZIP, evaluator template), its artifacts,
and the counters that bound how many run per day and how often a contributor may retry.

An evaluation row is the preview's whole state. Its ``result_json`` is the evaluator's own
versioned result (content the contributor's site produced: console messages are shown only as
escaped text). ``error_code`` is technical detail for owners on /operations; readers see only
``reader_reason``.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Index, Text
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field, id_field, time_field
from benchmax.models._columns import ContributorDayCount, DayCount, OfTest


class PreviewState(StrEnum):
    PENDING = "pending"
    """Queued (or deferred to the next day's budget); nothing shown yet."""
    DONE = "done"
    FAILED = "failed"
    NOT_APPLICABLE = "not_applicable"
    """The ZIP has no root index.html, or cannot be previewed at all (too large, unsafe)."""


class PreviewArtifactKind(StrEnum):
    SCREENSHOT = "screenshot"
    VIDEO = "video"
    RESULT = "result"


class PreviewEvaluation(OfTest, table=True):
    __tablename__ = "preview_evaluation"
    __table_args__ = (
        Index(
            "uq_preview_evaluation_input",
            "test_id",
            "zip_sha256",
            "template_hash",
            unique=True,
        ),
    )

    id: str = id_field()
    evidence_id: str = Field(max_length=16)
    zip_sha256: str = Field(max_length=64)
    template: str = Field(max_length=32)
    template_hash: str = Field(max_length=64)
    sandbox: str = Field(default="", max_length=16)
    state: str = Field(default=PreviewState.PENDING, max_length=16, index=True)
    reader_reason: str = Field(default="", max_length=200)
    error_code: str = Field(default="", max_length=64)
    result_json: str = Field(default="", sa_type=Text)
    load_ms: int | None = None
    console_error_count: int | None = None
    axe_violation_count: int | None = None
    duration_ms: int | None = None
    attempts: int = 0
    created_at: datetime = created_field()
    finished_at: datetime | None = time_field()


class PreviewArtifact(SQLModel, table=True):
    __tablename__ = "preview_artifact"

    id: str = id_field()
    evaluation_id: str = Field(foreign_key="preview_evaluation.id", index=True, max_length=16)
    kind: str = Field(max_length=16)
    storage_key: str = Field(max_length=200)
    content_type: str = Field(max_length=64)
    size_bytes: int
    sha256: str = Field(max_length=64)
    created_at: datetime = created_field()


class PreviewBudgetDay(DayCount, table=True):
    """Evaluations started on one UTC day."""

    __tablename__ = "preview_budget_day"


class PreviewRetryDay(ContributorDayCount, table=True):
    """Retries one contributor asked for on one UTC day."""

    __tablename__ = "preview_retry_day"


class PreviewAccountDay(ContributorDayCount, table=True):
    """Evaluations one contributor's Tests started on one UTC day (their share of the budget)."""

    __tablename__ = "preview_account_day"
