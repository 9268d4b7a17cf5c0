"""Reports, disputes, holds and the append-only record of every moderation decision."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Index, String, Text, text
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field, id_field, time_field
from benchmax.models._columns import OfTest


class CaseState(StrEnum):
    OPEN = "open"
    RESOLVED = "resolved"
    DISMISSED = "dismissed"


class ReportReason(StrEnum):
    MALWARE = "malware"
    SECRET_OR_PERSONAL_DATA = "secret_or_personal_data"  # noqa: S105 (a reason code, not a secret)
    COPYRIGHT = "copyright"
    HARASSMENT = "harassment"
    SPAM = "spam"
    MISLEADING = "misleading"
    OTHER = "other"


class _Case(OfTest):
    """A case about one Test. Every case waits OPEN until a decision closes it; only the state
    and the time change."""

    id: str = id_field()
    state: CaseState = Field(default=CaseState.OPEN, sa_type=String(16), index=True)
    created_at: datetime = created_field()
    closed_at: datetime | None = time_field()


class Report(_Case, table=True):
    reporter_id: str = Field(foreign_key="user.id", index=True, max_length=16)
    evidence_id: str | None = Field(default=None, foreign_key="evidence_file.id", max_length=16)
    reason: ReportReason = Field(sa_type=String(32))
    details: str = Field(default="", sa_type=Text)


# OPEN is the only undecided state, so it is the only one the partial indexes below cover.
_IS_OPEN = f"state = '{CaseState.OPEN.value}'"


def _one_open(name: str, column: str) -> Index:
    """A partial unique index: at most one open case per ``column``; closed ones may pile up."""
    return Index(
        name, column, unique=True, sqlite_where=text(_IS_OPEN), postgresql_where=text(_IS_OPEN)
    )


class Dispute(_Case, table=True):
    """A contributor contesting one review; at most one per review is open at a time."""

    # The database keeps "one open dispute per review" even for a path that skips the
    # service's check or its row lock (SQLite has no FOR UPDATE).
    __table_args__ = (_one_open("uq_dispute_open_review", "review_id"),)

    review_id: str = Field(foreign_key="review.id", index=True, max_length=16)
    contributor_id: str = Field(foreign_key="user.id", max_length=16)
    reason: str = Field(sa_type=Text)


class Appeal(_Case, table=True):
    """A contributor asking for their removed Test back; at most one per Test is open.

    The removal it contests (``removal_id``) is never touched: a moderator's answer is a new
    ``ModerationDecision`` about the appeal, and granting one restores the Test by its own
    restore decision.
    """

    __table_args__ = (_one_open("uq_appeal_open_test", "test_id"),)

    contributor_id: str = Field(foreign_key="user.id", index=True, max_length=16)
    removal_id: str = Field(foreign_key="moderation_decision.id", max_length=16)
    reason: str = Field(sa_type=Text)


class ModerationHold(_Case, table=True):
    """Keeps a public Test out of rankings (for example after injection signals)."""

    __tablename__ = "moderation_hold"

    reason_code: str = Field(max_length=64)


class ModerationAction(StrEnum):
    """Every decision a moderator can record: ``ModerationDecision.action`` holds one."""

    TEST_REMOVE = "test.remove"
    TEST_RESTORE = "test.restore"
    EVIDENCE_BLOCK = "evidence.block"
    REPORT_RESOLVE = "report.resolve"
    REPORT_DISMISS = "report.dismiss"
    DISPUTE_UPHOLD = "dispute.uphold"
    DISPUTE_OVERTURN = "dispute.overturn"
    HOLD_KEEP = "hold.keep"
    HOLD_CLEAR = "hold.clear"
    LABEL_MAP = "label.map"
    LABEL_LEAVE = "label.leave"
    USER_ROLE = "user.role"
    USER_SUSPEND = "user.suspend"
    USER_REINSTATE = "user.reinstate"
    PROMPT_ALIAS = "prompt.alias"  # two prompt keys are one comparison group
    APPEAL_GRANT = "appeal.grant"  # the removal is reversed: the Test is restored
    APPEAL_REJECT = "appeal.reject"  # the removal stands

    @property
    def verb(self) -> str:
        """The action without its subject ("remove"), as the page's element ids use it."""
        return self.value.partition(".")[2]


class ModerationDecision(SQLModel, table=True):
    """Never updated or deleted: the database refuses both."""

    __tablename__ = "moderation_decision"

    id: str = id_field()
    moderator_id: str = Field(foreign_key="user.id", index=True, max_length=16)
    action: str = Field(max_length=64)  # a ModerationAction
    target_type: str = Field(max_length=32)
    target_id: str = Field(max_length=64, index=True)
    reason: str = Field(sa_type=Text)
    previous_state: str = Field(default="", max_length=64)
    next_state: str = Field(default="", max_length=64)
    report_id: str | None = Field(default=None, foreign_key="report.id", max_length=16)
    dispute_id: str | None = Field(default=None, foreign_key="dispute.id", max_length=16)
    created_at: datetime = created_field(index=True)  # a cache validator: one seek
