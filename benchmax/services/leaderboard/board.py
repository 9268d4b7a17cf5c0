"""What ``/leaderboard`` and the JSON API read: one snapshot's rows, filtered, a page at a time.

Rows are addressed by their position in the snapshot, and the next page is "positions after
the last one shown", so every page — filtered or not — is a range scan of one of the row
table's ``(snapshot_id, <filter>, position)`` indexes: page 5,000 of a 100,000-row snapshot
costs what page 1 costs. Only the page's own Tests are then read, by primary key, for their
title, contributor and evidence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, func
from sqlmodel import Session, col, select

from benchmax.models import (
    CatalogModel,
    Harness,
    LeaderboardRow,
    LeaderboardSupersession,
    TestState,
)
from benchmax.services.dates import JsonReady
from benchmax.services.dto import from_row
from benchmax.services.errors import Invalid
from benchmax.services.feed import clean_param
from benchmax.services.leaderboard.intervals import band_text
from benchmax.services.leaderboard.scoring import points_text
from benchmax.services.leaderboard.snapshots import (
    SnapshotSummary,
    current_snapshot,
    published_snapshot,
    summary,
)
from benchmax.services.setup_filters import SetupColumns, SetupFilters, setup_conditions
from benchmax.services.summaries import TestSummary, summaries_by_id, summarise

MAX_PAGE_SIZE = 100
_MAX_CURSOR = 10**9
_FILTER_LENGTHS = {"family": 64, "model": 200, "harness": 200, "reasoning": 100}


class InvalidBoardCursorError(Invalid):
    """A cursor this service did not issue."""

    def __init__(self) -> None:
        super().__init__("invalid_cursor", "The cursor is malformed.", "cursor")


@dataclass(frozen=True)
class BoardFilters(SetupFilters):
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
class BoardEntry(JsonReady):
    """One ranked row; ``test`` is None when the Test was removed after the snapshot."""

    rank: int
    position: int
    test: TestSummary | None
    attempts: int | None
    score_bp: int
    score: str
    review_count: int
    score_min: int
    score_max: int
    # The 95% interval and rank band sealed with the row (0 in snapshots from before 0017).
    score_low_bp: int
    score_high_bp: int
    score_low: str
    score_high: str
    band_first: int
    band_last: int
    band: str
    # The catalog's names for the declared model and harness ("" when the label matched none).
    model_name: str = ""
    harness_name: str = ""


# How a reader may order a snapshot's rows. Every order ends on the position, so it is total
# and every sort shows the same sealed rows with the same ranks and bands.
SORTS = ("rank", "score", "reviews", "model")


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
        raise InvalidBoardCursorError()
    return int(cursor)


ROW_SETUP = SetupColumns.of(LeaderboardRow)


def _conditions(session: Session, filters: BoardFilters) -> list[ColumnElement[bool]] | None:
    conditions = setup_conditions(session, ROW_SETUP, filters)
    if conditions is not None and filters.single_attempt:
        conditions.append(col(LeaderboardRow.attempts) == 1)
    return conditions


def _superseded_by(session: Session, snapshot_id: str) -> str | None:
    row = session.get(LeaderboardSupersession, snapshot_id)
    return row.superseded_by_id if row else None


def _still_public(details: dict[str, Any], row: LeaderboardRow) -> bool:
    found = details.get(row.test_id)
    return found is not None and found[0].state == TestState.PUBLIC


def _catalog_names(session: Session, rows: list[LeaderboardRow]) -> dict[str, str]:
    """Catalog model and harness names by id (ids are unique across tables), for one page."""
    model_ids = {row.catalog_model_id for row in rows if row.catalog_model_id}
    harness_ids = {row.harness_id for row in rows if row.harness_id}
    names = dict(
        session.exec(
            select(CatalogModel.id, CatalogModel.name).where(col(CatalogModel.id).in_(model_ids))
        ).all()
    )
    names.update(
        session.exec(select(Harness.id, Harness.name).where(col(Harness.id).in_(harness_ids))).all()
    )
    return names


def _sorted_rows(
    session: Session,
    snapshot_id: str,
    conditions: list[ColumnElement[bool]],
    sort: str,
    after: int,
    limit: int,
) -> list[LeaderboardRow]:
    """``limit`` rows after the cursor: a position for the rank order (an index range scan),
    an offset for the others, which only readers sorting by hand ask for."""
    query = select(LeaderboardRow).where(LeaderboardRow.snapshot_id == snapshot_id, *conditions)
    position = col(LeaderboardRow.position)
    if sort == "rank":
        return list(session.exec(query.where(position > after).order_by(position).limit(limit)))
    if sort == "model":
        name = func.lower(func.coalesce(CatalogModel.name, LeaderboardRow.model_key))
        query = query.outerjoin(
            CatalogModel, col(CatalogModel.id) == LeaderboardRow.catalog_model_id
        ).order_by(name, position)
    elif sort == "reviews":
        query = query.order_by(col(LeaderboardRow.review_count).desc(), position)
    else:
        query = query.order_by(col(LeaderboardRow.score_bp), position.desc())
    return list(session.exec(query.offset(after).limit(limit)))


def board_page(
    session: Session,
    snapshot_id: str | None,
    filters: BoardFilters,
    cursor: str | None = None,
    limit: int = 20,
    sort: str = "rank",
) -> BoardPage:
    """One page of a snapshot (the current one when ``snapshot_id`` is None), in one of
    ``SORTS`` (an unknown one reads as the rank order).

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
    sort = sort if sort in SORTS else "rank"
    rows = _sorted_rows(session, snapshot.id, conditions, sort, after, limit + 1)
    shown = rows[:limit]
    details = summaries_by_id(session, (row.test_id for row in shown))
    names = _catalog_names(session, shown)
    items = [
        _entry(
            row,
            summarise(details[row.test_id]) if _still_public(details, row) else None,
            names,
        )
        for row in shown
    ]
    next_cursor = None
    if len(rows) > limit:
        next_cursor = str(shown[-1].position if sort == "rank" else after + limit)
    return BoardPage(snapshot=info, items=items, next_cursor=next_cursor)


def _entry(row: LeaderboardRow, summary: TestSummary | None, names: dict[str, str]) -> BoardEntry:
    return from_row(
        BoardEntry,
        row,
        test=summary,
        model_name=names.get(row.catalog_model_id, "") if summary else "",
        harness_name=names.get(row.harness_id, "") if summary else "",
        score=points_text(row.score_bp),
        score_low=points_text(row.score_low_bp),
        score_high=points_text(row.score_high_bp),
        band=band_text(row.band_first, row.band_last) if row.band_first else "",
    )
