"""What ``/leaderboard`` and the JSON API read: one snapshot's rows, filtered, a page at a time.

Rows are addressed by their position in the snapshot, and the next page is "positions after
the last one shown", so every page — filtered or not — is a range scan of one of the row
table's ``(snapshot_id, <filter>, position)`` indexes: page 5,000 of a 100,000-row snapshot
costs what page 1 costs. Only the page's own Tests are then read, by primary key, for their
title, contributor and evidence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, and_
from sqlmodel import Session, col, select

from benchmax.models import (
    EvidenceFile,
    EvidenceState,
    LeaderboardRow,
    LeaderboardSupersession,
    Test,
    TestState,
    User,
)
from benchmax.services.feed import clean_param
from benchmax.services.leaderboard.scoring import points_text
from benchmax.services.leaderboard.snapshots import (
    SnapshotSummary,
    current_snapshot,
    published_snapshot,
    summary,
)
from benchmax.services.setup_filters import SetupColumns, setup_conditions

MAX_PAGE_SIZE = 100
_MAX_CURSOR = 10**9
_FILTER_LENGTHS = {"family": 64, "model": 200, "harness": 200, "reasoning": 100}


class InvalidBoardCursorError(ValueError):
    """A cursor this service did not issue."""


@dataclass(frozen=True)
class BoardFilters:
    family: str = ""
    model: str = ""
    harness: str = ""
    reasoning: str = ""
    single_attempt: bool = False

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> BoardFilters:
        values: dict[str, Any] = {
            name: clean_param(query[name], length)
            for name, length in _FILTER_LENGTHS.items()
            if name in query
        }
        single = clean_param(query.get("single", ""), 8).lower()
        return cls(**values, single_attempt=single in ("1", "true", "yes", "on"))

    def to_query(self) -> dict[str, str]:
        query = {name: getattr(self, name) for name in _FILTER_LENGTHS if getattr(self, name)}
        if self.single_attempt:
            query["single"] = "1"
        return query


@dataclass(frozen=True)
class BoardEntry:
    rank: int
    position: int
    test_id: str
    title: str
    contributor_handle: str
    contributor_display_name: str
    model_label: str
    model_version_label: str
    harness_label: str
    reasoning_label: str
    attempts: int | None
    evidence_kinds: list[str]
    thumbnail_evidence_id: str | None
    thumbnail_safe_name: str | None
    score_bp: int
    score: str
    review_count: int
    score_min: int
    score_max: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class BoardPage:
    snapshot: SnapshotSummary | None
    items: list[BoardEntry] = field(default_factory=list)
    next_cursor: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "snapshot": self.snapshot.to_json() if self.snapshot else None,
            "items": [item.to_json() for item in self.items],
            "next_cursor": self.next_cursor,
        }


def decode_cursor(cursor: str) -> int:
    if not cursor.isdigit() or len(cursor) > 9 or not 0 < int(cursor) < _MAX_CURSOR:
        raise InvalidBoardCursorError("malformed cursor")
    return int(cursor)


ROW_SETUP = SetupColumns(
    family_id=LeaderboardRow.family_id,
    catalog_model_id=LeaderboardRow.catalog_model_id,
    model_key=LeaderboardRow.model_key,
    harness_id=LeaderboardRow.harness_id,
    harness_key=LeaderboardRow.harness_key,
    reasoning_key=LeaderboardRow.reasoning_key,
)


def _conditions(session: Session, filters: BoardFilters) -> list[ColumnElement[bool]] | None:
    conditions = setup_conditions(
        session,
        ROW_SETUP,
        family=filters.family,
        model=filters.model,
        harness=filters.harness,
        reasoning=filters.reasoning,
    )
    if conditions is not None and filters.single_attempt:
        conditions.append(col(LeaderboardRow.attempts) == 1)
    return conditions


def _superseded_by(session: Session, snapshot_id: str) -> str | None:
    row = session.get(LeaderboardSupersession, snapshot_id)
    return row.superseded_by_id if row else None


def board_page(
    session: Session,
    snapshot_id: str | None,
    filters: BoardFilters,
    cursor: str | None = None,
    limit: int = 20,
) -> BoardPage:
    """One page of a snapshot (the current one when ``snapshot_id`` is None).

    Raises ``SnapshotNotFoundError`` for an unknown snapshot, ``InvalidBoardCursorError`` for
    a cursor this service did not issue. A ranked Test removed since the snapshot keeps its
    row (snapshots never change) but shows nothing of its content.
    """
    after = decode_cursor(cursor) if cursor else 0
    snapshot = (
        published_snapshot(session, snapshot_id) if snapshot_id else current_snapshot(session)
    )
    if snapshot is None:
        return BoardPage(snapshot=None)
    info = summary(snapshot, _superseded_by(session, snapshot.id))
    conditions = _conditions(session, filters)
    if conditions is None:
        return BoardPage(snapshot=info)
    limit = max(1, min(limit, MAX_PAGE_SIZE))
    rows = session.exec(
        select(LeaderboardRow)
        .where(
            LeaderboardRow.snapshot_id == snapshot.id,
            col(LeaderboardRow.position) > after,
            *conditions,
        )
        .order_by(col(LeaderboardRow.position))
        .limit(limit + 1)
    ).all()
    shown = rows[:limit]
    details = _details(session, [row.test_id for row in shown])
    items = [_entry(row, *details[row.test_id]) for row in shown if row.test_id in details]
    next_cursor = str(shown[-1].position) if len(rows) > limit else None
    return BoardPage(snapshot=info, items=items, next_cursor=next_cursor)


def _details(session: Session, test_ids: list[str]) -> dict[str, tuple[Test, str, str, str | None]]:
    if not test_ids:
        return {}
    rows = session.exec(
        select(Test, User.handle, User.display_name, EvidenceFile.safe_name)
        .join(User, col(User.id) == Test.contributor_id)
        .outerjoin(
            EvidenceFile,
            and_(
                col(EvidenceFile.id) == Test.thumbnail_evidence_id,
                col(EvidenceFile.state) == EvidenceState.APPROVED,
            ),
        )
        .where(col(Test.id).in_(test_ids))
    ).all()
    return {row[0].id: (row[0], row[1], row[2], row[3]) for row in rows}


REMOVED_TITLE = "Removed by moderation after this snapshot"


def _entry(
    row: LeaderboardRow, test: Test, handle: str, display_name: str, thumb: str | None
) -> BoardEntry:
    if test.state != TestState.PUBLIC:
        return _removed_entry(row)
    return BoardEntry(
        rank=row.rank,
        position=row.position,
        test_id=row.test_id,
        title=test.display_title,
        contributor_handle=handle,
        contributor_display_name=display_name,
        model_label=test.model_label,
        model_version_label=test.model_version_label,
        harness_label=test.harness_label,
        reasoning_label=test.reasoning_label,
        attempts=row.attempts,
        evidence_kinds=[kind for kind in test.evidence_kinds.split(",") if kind],
        thumbnail_evidence_id=test.thumbnail_evidence_id if thumb else None,
        thumbnail_safe_name=thumb,
        score_bp=row.score_bp,
        score=points_text(row.score_bp),
        review_count=row.review_count,
        score_min=row.score_min,
        score_max=row.score_max,
    )


def _removed_entry(row: LeaderboardRow) -> BoardEntry:
    return BoardEntry(
        rank=row.rank,
        position=row.position,
        test_id="",
        title=REMOVED_TITLE,
        contributor_handle="",
        contributor_display_name="",
        model_label="",
        model_version_label="",
        harness_label="",
        reasoning_label="",
        attempts=row.attempts,
        evidence_kinds=[],
        thumbnail_evidence_id=None,
        thumbnail_safe_name=None,
        score_bp=row.score_bp,
        score=points_text(row.score_bp),
        review_count=row.review_count,
        score_min=row.score_min,
        score_max=row.score_max,
    )
