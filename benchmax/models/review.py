"""Reviews: append-only assessments; a correction is a new row pointing at the one it corrects."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import String, Text
from sqlmodel import Field

from benchmax.models._base import created_field, id_field
from benchmax.models._columns import OfTest


class ReviewerKind(StrEnum):
    AI = "ai"
    ADMIN = "admin"
    HUMAN = "human"


class Review(OfTest, table=True):
    id: str = id_field()
    reviewer_id: str | None = Field(default=None, foreign_key="user.id", max_length=16)
    reviewer_kind: ReviewerKind = Field(sa_type=String(16))
    score: int = Field(ge=0, le=100)
    reasoning: str = Field(sa_type=Text)
    corrects_review_id: str | None = Field(default=None, foreign_key="review.id", max_length=16)
    judge_snapshot_id: str | None = Field(default=None, max_length=16)
    policy_version: str = Field(default="", max_length=32)
    created_at: datetime = created_field(index=True)  # a cache validator: one seek
