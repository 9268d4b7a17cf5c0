"""How new the public data is, read in one cheap statement: the newest stamp of each table
whose rows the public reads show. The API's cache validators (ETag, Last-Modified) come from
it, so a read can answer 304 without building the body it would otherwise send.

Every stamp is a column with an index (migration 0020), so each maximum is one index seek
whatever the size of the table. ``Test.updated_at`` is stamped by every update of a Test
(``models/_columns.Stamped``), reviews and moderation decisions are append-only, and the
small leaderboard and judge tables are read whole. A change therefore moves the version;
what the version cannot see (a transaction that stamped earlier but commits later) is handled
by the API, which sends no validator until the newest stamp has settled.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Mapped
from sqlmodel import Session, col

from benchmax.models import (
    EvidenceFile,
    JudgeCalibrationRun,
    LeaderboardSnapshot,
    LeaderboardSupersession,
    ModerationDecision,
    PromptAlias,
    Review,
    Test,
    TestState,
)
from benchmax.models._base import as_utc

_STAMPS: tuple[Mapped[datetime], ...] = (
    col(Test.updated_at),
    col(Review.created_at),
    col(ModerationDecision.created_at),
    col(LeaderboardSnapshot.created_at),
    col(LeaderboardSupersession.created_at),
    col(JudgeCalibrationRun.created_at),
    col(PromptAlias.created_at),
)


@dataclass(frozen=True)
class DataVersion:
    """The newest stamp of each table (None for an empty one)."""

    stamps: tuple[datetime | None, ...]

    @property
    def newest(self) -> datetime | None:
        known = [stamp for stamp in self.stamps if stamp is not None]
        return max(known) if known else None

    def token(self) -> str:
        """The version as text, for a validator."""
        return "|".join(as_utc(s).isoformat() if s else "-" for s in self.stamps)


def data_version(session: Session) -> DataVersion:
    """Every stamp in one statement (a scalar subquery each)."""
    row = session.execute(
        select(*(select(func.max(stamp)).scalar_subquery() for stamp in _STAMPS))
    ).one()
    return DataVersion(tuple(as_utc(value) if value else None for value in row))


def test_page_changed_at(session: Session, test_id: str) -> datetime | None:
    """When one public Test's page last changed: its row, its reviews, its files (None when
    no public Test has the id, so nothing about another Test is told). Its Last-Modified."""
    row = session.execute(
        select(
            col(Test.updated_at),
            select(func.max(Review.created_at))
            .where(col(Review.test_id) == test_id)
            .scalar_subquery(),
            select(func.max(EvidenceFile.updated_at))
            .where(col(EvidenceFile.test_id) == test_id)
            .scalar_subquery(),
        ).where(col(Test.id) == test_id, col(Test.state) == TestState.PUBLIC)
    ).first()
    if row is None:
        return None
    return max(as_utc(value) for value in row if value is not None)
