"""Audit events: who did what to which subject. Ids only, never content; never edited."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field


class AuditEvent(SQLModel, table=True):
    __tablename__ = "audit_event"

    id: int | None = Field(default=None, primary_key=True)
    actor_id: str | None = Field(default=None, max_length=16, index=True)
    action: str = Field(max_length=64, index=True)
    subject_type: str = Field(max_length=32)
    subject_id: str = Field(max_length=64)
    detail: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    created_at: datetime = created_field()
