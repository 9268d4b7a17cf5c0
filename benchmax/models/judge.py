"""The AI judge: pinned snapshots, their calibration runs, every sample, and the daily budget.

A snapshot's pinned columns (everything but its state) are refused by database triggers once
any sample references it, so a score can always be traced to exactly what produced it.
Calibration runs, samples and the links between an AI review and its samples are append-only
like reviews. Budget rows are counters, changed only by conditional UPDATEs.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Index, String, Text, text
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field, id_field, time_field
from benchmax.models._columns import ContributorDayCount, DayCount


class JudgeState(StrEnum):
    DRAFT = "draft"
    """Created, not (yet) passed calibration."""
    ACTIVE = "active"
    """Passed its latest calibration; reviews new Tests. At most one at a time."""
    INACTIVE = "inactive"
    """Switched off by an owner or by a failed re-calibration."""


class SampleStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"


class SamplePurpose(StrEnum):
    REVIEW = "review"
    CALIBRATION = "calibration"


_IS_ACTIVE = f"state = '{JudgeState.ACTIVE.value}'"

# The columns that describe what a snapshot *is*; only ``state`` and the bookkeeping of its
# latest calibration may change after a sample points at it (migration 0010's triggers).
PINNED_SNAPSHOT_COLUMNS = (
    "id",
    "name",
    "provider_label",
    "base_url_host",
    "model_ids",
    "panel",
    "panel_seats",
    "prompt_template",
    "prompt_template_sha256",
    "output_schema_sha256",
    "rubric_version",
    "samples_per_review",
    "temperature",
    "seed",
    "max_output_tokens",
    "blinding_version",
    "evidence_bounds",
    "calibration_sha256",
    "source_sha256",
    "created_at",
)


class JudgeSnapshot(SQLModel, table=True):
    __tablename__ = "judge_snapshot"
    __table_args__ = (
        # The database keeps "at most one active snapshot", whatever path changes a state.
        Index(
            "uq_judge_snapshot_active",
            "state",
            unique=True,
            sqlite_where=text(_IS_ACTIVE),
            postgresql_where=text(_IS_ACTIVE),
        ),
    )

    id: str = id_field()
    name: str = Field(max_length=100)
    provider_label: str = Field(max_length=100)
    base_url_host: str = Field(max_length=255)
    model_ids: list[str] = Field(default_factory=list, sa_type=JSON)
    # A panel gateway answers one request with every seat's answer (``bench.seats[]``).
    panel: bool = False
    panel_seats: int = Field(default=1, ge=1, le=16)
    prompt_template: str = Field(sa_type=Text)
    prompt_template_sha256: str = Field(max_length=64)
    output_schema_sha256: str = Field(max_length=64)
    rubric_version: str = Field(max_length=64)
    samples_per_review: int = Field(ge=1, le=9)
    temperature: float = 0.0
    seed: int = 0
    max_output_tokens: int = Field(default=600, ge=16)
    blinding_version: str = Field(max_length=32)
    evidence_bounds: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    calibration_sha256: str = Field(max_length=64)
    # SHA-256 of the snapshot file it was created from.
    source_sha256: str = Field(max_length=64)
    state: JudgeState = Field(default=JudgeState.DRAFT, sa_type=String(16))
    last_calibration_id: str | None = Field(default=None, max_length=16)
    state_changed_at: datetime | None = time_field()
    created_at: datetime = created_field()


class JudgeCalibrationRun(SQLModel, table=True):
    """One calibration of a snapshot against the private set: its metrics, never its items."""

    __tablename__ = "judge_calibration_run"

    id: str = id_field()
    snapshot_id: str = Field(foreign_key="judge_snapshot.id", index=True, max_length=16)
    set_sha256: str = Field(max_length=64)
    item_count: int = 0
    mae: float | None = None
    spearman: float | None = None
    median_spread: float | None = None
    twins: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    failures: list[str] = Field(default_factory=list, sa_type=JSON)
    passed: bool = False
    samples_used: int = 0
    actor_id: str | None = Field(default=None, max_length=16)
    created_at: datetime = created_field()


class JudgeSample(SQLModel, table=True):
    """One answer from one judge model: what was asked of whom, and what came back."""

    __tablename__ = "judge_sample"
    __table_args__ = (Index("ix_judge_sample_test", "test_id", "snapshot_id"),)

    id: str = id_field()
    snapshot_id: str = Field(foreign_key="judge_snapshot.id", index=True, max_length=16)
    purpose: SamplePurpose = Field(sa_type=String(16))
    test_id: str | None = Field(default=None, foreign_key="test.id", max_length=16)
    calibration_run_id: str | None = Field(default=None, max_length=16)
    # Which of the review's k rounds and which requested model (or panel seat) this answers.
    round: int = 0
    requested_model: str = Field(max_length=200)
    seat: str = Field(default="", max_length=200)
    reported_model: str = Field(default="", max_length=200)
    system_fingerprint: str = Field(default="", max_length=200)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_ms: int = 0
    status: SampleStatus = Field(sa_type=String(16))
    error_code: str = Field(default="", max_length=64)
    score: int | None = None
    reasoning: str = Field(default="", sa_type=Text)
    injection_suspected: bool = False
    created_at: datetime = created_field()


class JudgeReviewSample(SQLModel, table=True):
    """Which samples an AI review's median was taken over."""

    __tablename__ = "judge_review_sample"

    review_id: str = Field(foreign_key="review.id", primary_key=True, max_length=16)
    sample_id: str = Field(foreign_key="judge_sample.id", primary_key=True, max_length=16)


class JudgeBudgetDay(DayCount, table=True):
    """Samples reserved (sent, not yet settled) and used on one UTC day."""

    __tablename__ = "judge_budget_day"

    reserved: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    metered_samples: int = 0


class JudgeContributorDay(ContributorDayCount, table=True):
    """The same per contributor, so one prolific account cannot spend the whole day."""

    __tablename__ = "judge_contributor_day"

    reserved: int = 0


JUDGE_APPEND_ONLY_TABLES = ("judge_calibration_run", "judge_sample", "judge_review_sample")
