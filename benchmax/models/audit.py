"""Audit events: who did what to which subject. Ids only, never content; never edited.

Every event is written through ``audit()``, named by an ``AuditAction`` or, for a moderation
decision, ``moderation.<ModerationAction>``, so the set of names is a closed list.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON
from sqlalchemy.orm import Session
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field
from benchmax.models.moderation import ModerationAction


class AuditAction(StrEnum):
    USER_ROLE_GRANTED = "user.role_granted"
    API_TOKEN_CREATED = "api_token.created"  # noqa: S105 (an event name, not a secret)
    API_TOKEN_REVOKED = "api_token.revoked"  # noqa: S105 (an event name, not a secret)
    JOB_REQUEUE = "job.requeue"
    JOB_DISCARD = "job.discard"
    TEST_RETRY_PROCESSING = "test.retry_processing"
    REVIEW_ADDED = "review.added"
    REVIEW_CORRECTED = "review.corrected"
    DISPUTE_OPENED = "dispute.opened"
    APPEAL_OPENED = "appeal.opened"
    REPORT_CREATED = "report.created"
    TEST_DRAFT_EXPIRED = "test.draft_expired"
    REVIEW_AI_ADDED = "review.ai_added"
    HOLD_PLACED = "hold.placed"
    JUDGE_SNAPSHOT_CREATED = "judge.snapshot_created"
    JUDGE_CALIBRATED = "judge.calibrated"
    JUDGE_ACTIVATED = "judge.activated"
    JUDGE_DEACTIVATED = "judge.deactivated"


class AuditEvent(SQLModel, table=True):
    __tablename__ = "audit_event"

    id: int | None = Field(default=None, primary_key=True)
    actor_id: str | None = Field(default=None, max_length=16, index=True)
    action: str = Field(max_length=64, index=True)
    subject_type: str = Field(max_length=32)
    subject_id: str = Field(max_length=64)
    detail: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    created_at: datetime = created_field()


def audit(
    session: Session,
    action: AuditAction | ModerationAction,
    subject: tuple[str, str],
    *,
    actor_id: str | None,
    detail: Mapping[str, Any] | None = None,
) -> AuditEvent:
    """Add one event about ``subject`` (type, id); ``detail`` holds ids and codes only."""
    name = f"moderation.{action}" if isinstance(action, ModerationAction) else str(action)
    event = AuditEvent(
        actor_id=actor_id,
        action=name,
        subject_type=subject[0],
        subject_id=subject[1],
        detail=dict(detail or {}),
    )
    session.add(event)
    return event
