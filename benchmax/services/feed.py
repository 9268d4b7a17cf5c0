"""The public feed: filtered, newest first, keyset-paginated.

Pages are addressed by an opaque cursor holding the last row's ``(published_at, id)``, and the
next page is "rows strictly older than that pair" — a range scan of ``ix_test_feed`` (or
``ix_test_contributor_feed`` on a contributor's page). The database never counts past rows,
so page 1,000 costs what page 1 costs. The cursor only carries public values, so it needs no
signature; it is validated strictly so a mangled one is a clear 400, never a 500.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, false, or_, tuple_
from sqlmodel import Session, col, select

from benchmax.models import (
    EvidenceFile,
    EvidenceState,
    ModelFamily,
    ReviewState,
    Test,
    TestState,
    User,
)
from benchmax.models._base import as_utc, is_public_id
from benchmax.services.dates import json_ready
from benchmax.services.labels import label_key, resolve_harness_id, resolve_model_id

MAX_PAGE_SIZE = 100
_MAX_CURSOR_LENGTH = 120
_MAX_SEARCH_WORDS = 6
_FILTER_LENGTHS = {
    "family": 64,
    "model": 200,
    "harness": 200,
    "reasoning": 100,
    "contributor": 32,
    "status": 16,
    "q": 200,
}


class InvalidCursorError(ValueError):
    """The cursor was not one this service issued; the API answers 400."""


class InvalidFilterError(ValueError):
    """A filter value outside its allowed set; the API answers 400."""


def _clean(value: object, max_length: int) -> str:
    """First value of a multi-valued parameter, control characters dropped, trimmed, capped."""
    if isinstance(value, list | tuple):
        value = value[0] if value else ""
    text = "".join(ch for ch in str(value) if unicodedata.category(ch)[0] != "C")
    return text.strip()[:max_length].strip()


@dataclass(frozen=True)
class FeedFilters:
    """What the visitor narrowed the feed to; empty strings mean "any"."""

    family: str = ""
    model: str = ""
    harness: str = ""
    reasoning: str = ""
    contributor: str = ""
    status: str = ""
    q: str = ""

    def __post_init__(self) -> None:
        if self.status and self.status not in set(ReviewState):
            allowed = ", ".join(state.value for state in ReviewState)
            raise InvalidFilterError(f"status must be one of: {allowed}")

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> FeedFilters:
        """Filters from URL query parameters; unknown keys are ignored, values cut to size."""
        values = {
            name: _clean(query[name], length)
            for name, length in _FILTER_LENGTHS.items()
            if name in query
        }
        values["contributor"] = values.get("contributor", "").removeprefix("@")
        values["status"] = values.get("status", "").lower()
        return cls(**values)

    def to_query(self) -> dict[str, str]:
        """The non-empty filters, for links that keep them (next page, API ``next`` URLs)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name)}


@dataclass(frozen=True)
class FeedCard:
    id: str
    title: str
    contributor_handle: str
    contributor_display_name: str
    model_label: str
    model_version_label: str
    harness_label: str
    reasoning_label: str
    attempts: int | None
    review_state: str
    evidence_kinds: list[str]
    thumbnail_evidence_id: str | None
    thumbnail_safe_name: str | None
    is_sample: bool
    published_at: datetime

    def to_json(self) -> dict[str, Any]:
        return json_ready(self)


@dataclass(frozen=True)
class FeedPage:
    items: list[FeedCard] = field(default_factory=list)
    next_cursor: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"items": [card.to_json() for card in self.items], "next_cursor": self.next_cursor}


def encode_cursor(published_at: datetime, test_id: str) -> str:
    raw = f"{as_utc(published_at).isoformat(timespec='microseconds')}|{test_id}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The ``(published_at, id)`` a cursor points after; InvalidCursorError when malformed."""
    if len(cursor) > _MAX_CURSOR_LENGTH or not re.fullmatch(r"[A-Za-z0-9_-]+", cursor):
        raise InvalidCursorError("malformed cursor")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
        stamp, test_id = raw.split("|")
        published_at = datetime.fromisoformat(stamp)
    except (binascii.Error, UnicodeDecodeError, ValueError) as error:
        raise InvalidCursorError("malformed cursor") from error
    if published_at.tzinfo is None or not is_public_id(test_id):
        raise InvalidCursorError("malformed cursor")
    return published_at.astimezone(UTC), test_id


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _search_conditions(q: str) -> list[ColumnElement[bool]]:
    """Every word must appear in the title, prompt or a declared label, ignoring case."""
    columns = (Test.title, Test.prompt, Test.model_label, Test.harness_label)
    return [
        or_(*(col(column).ilike(f"%{_escape_like(word)}%", escape="\\") for column in columns))
        for word in q.split()[:_MAX_SEARCH_WORDS]
    ]


def _key_matches(key_column: Any, text: str, max_length: int) -> ColumnElement[bool]:
    """Tests declaring a label with the same key; a label of punctuation alone matches none."""
    key = label_key(text, max_length)
    return key_column == key if key else false()


def _catalog_or_key(
    catalog_id: str | None, link: Any, key_column: Any, text: str
) -> ColumnElement[bool]:
    """Catalog-linked Tests when the text names an entry, else Tests declaring the same key."""
    if catalog_id is not None:
        return link == catalog_id  # type: ignore[no-any-return]  # link is a column, typed Any
    return _key_matches(key_column, text, 200)


def _filter_conditions(session: Session, filters: FeedFilters) -> list[ColumnElement[bool]] | None:
    """SQL conditions for the filters, or None when a named family/contributor does not exist."""
    conditions: list[ColumnElement[bool]] = []
    if filters.family:
        family_id = session.exec(
            select(ModelFamily.id).where(ModelFamily.slug == filters.family)
        ).first()
        if family_id is None:
            return None
        conditions.append(col(Test.family_id) == family_id)
    if filters.contributor:
        user_id = session.exec(select(User.id).where(User.handle == filters.contributor)).first()
        if user_id is None:
            return None
        conditions.append(col(Test.contributor_id) == user_id)
    if filters.model:
        model_id = resolve_model_id(session, filters.model)
        conditions.append(
            _catalog_or_key(model_id, Test.catalog_model_id, Test.model_key, filters.model)
        )
    if filters.harness:
        harness_id = resolve_harness_id(session, filters.harness)
        conditions.append(
            _catalog_or_key(harness_id, Test.harness_id, Test.harness_key, filters.harness)
        )
    if filters.reasoning:
        conditions.append(_key_matches(Test.reasoning_key, filters.reasoning, 100))
    if filters.status:
        conditions.append(col(Test.review_state) == filters.status)
    conditions.extend(_search_conditions(filters.q))
    return conditions


def _card(test: Test, handle: str, display_name: str, thumbnail_name: str | None) -> FeedCard:
    assert test.published_at is not None  # public Tests are always published
    return FeedCard(
        id=test.id,
        title=test.display_title,
        contributor_handle=handle,
        contributor_display_name=display_name,
        model_label=test.model_label,
        model_version_label=test.model_version_label,
        harness_label=test.harness_label,
        reasoning_label=test.reasoning_label,
        attempts=test.attempts,
        review_state=str(test.review_state),
        evidence_kinds=[kind for kind in test.evidence_kinds.split(",") if kind],
        thumbnail_evidence_id=test.thumbnail_evidence_id if thumbnail_name else None,
        thumbnail_safe_name=thumbnail_name,
        is_sample=test.is_sample,
        published_at=as_utc(test.published_at),
    )


def list_feed(
    session: Session, filters: FeedFilters, cursor: str | None = None, limit: int = 20
) -> FeedPage:
    """One page of public Tests, newest first; pass ``next_cursor`` back for the next page.

    Raises InvalidCursorError for a cursor this service did not issue.
    """
    after = decode_cursor(cursor) if cursor else None
    conditions = _filter_conditions(session, filters)
    if conditions is None:
        return FeedPage()
    limit = max(1, min(limit, MAX_PAGE_SIZE))
    statement = (
        select(Test, User.handle, User.display_name, EvidenceFile.safe_name)
        .join(User, col(User.id) == Test.contributor_id)
        .outerjoin(
            EvidenceFile,
            and_(
                col(EvidenceFile.id) == Test.thumbnail_evidence_id,
                col(EvidenceFile.state) == EvidenceState.APPROVED,
            ),
        )
        .where(col(Test.state) == TestState.PUBLIC, col(Test.published_at).is_not(None))
        .where(*conditions)
        .order_by(col(Test.published_at).desc(), col(Test.id).desc())
        .limit(limit + 1)
    )
    if after is not None:
        statement = statement.where(tuple_(Test.published_at, Test.id) < tuple_(*after))
    rows = session.exec(statement).all()
    cards = [_card(*row) for row in rows[:limit]]
    last = rows[limit - 1][0] if len(rows) > limit else None
    next_cursor = encode_cursor(last.published_at, last.id) if last and last.published_at else None
    return FeedPage(items=cards, next_cursor=next_cursor)
