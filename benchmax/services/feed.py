"""The public feed: filtered, newest first, keyset-paginated.

Pages are addressed by an opaque cursor holding the last row's ``(published_at, id)``, and the
next page is "rows strictly older than that pair" — a range scan of ``ix_test_feed`` (or
``ix_test_contributor_feed`` on a contributor's page). The database never counts past rows,
so page 1,000 costs what page 1 costs. The cursor only carries public values, so it needs no
signature; it is validated strictly so a mangled one is a clear 400, never a 500.

With a search (``q``) the page is ordered by relevance (score, then id, and the cursor holds
both) or, with ``sort=newest``, by the same ``(published_at, id)`` keys as the plain feed.
Only the columns a card shows are read: the heads of the prompt (for an untitled Test's title
and a search excerpt) and of the output (search excerpts only), never whole texts.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, func, tuple_
from sqlmodel import Session, col, select

from benchmax.models import (
    EvidenceFile,
    EvidenceState,
    ReviewState,
    Test,
    TestState,
    User,
)
from benchmax.models._base import as_utc, is_public_id
from benchmax.models.test import display_title
from benchmax.services import search, search_sql
from benchmax.services.dates import json_ready
from benchmax.services.errors import Invalid
from benchmax.services.setup_filters import SetupColumns, setup_conditions

MAX_PAGE_SIZE = 100
_MAX_CURSOR_LENGTH = 120
_FILTER_LENGTHS = {
    "family": 64,
    "model": 200,
    "harness": 200,
    "reasoning": 100,
    "contributor": 32,
    "status": 16,
    "q": 200,
    "compare": 8,
    "sort": 16,
}
_YES = frozenset({"1", "on", "yes", "true"})
SORTS = ("relevance", "newest")


def clean_param(value: object, max_length: int) -> str:
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
    # Any of "1", "on", "yes", "true": only Tests whose prompt two or more public Tests share.
    compare: str = ""

    # How a search is ordered: "relevance" (the default) or "newest"; ignored without ``q``.
    sort: str = ""

    def __post_init__(self) -> None:
        if self.status and self.status not in set(ReviewState):
            allowed = ", ".join(state.value for state in ReviewState)
            raise Invalid("invalid_filter", f"status must be one of: {allowed}")
        if self.sort and self.sort not in SORTS:
            raise Invalid("invalid_filter", f"sort must be one of: {', '.join(SORTS)}")

    @property
    def by_relevance(self) -> bool:
        return bool(self.q) and self.sort != "newest"

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> FeedFilters:
        """Filters from URL query parameters; unknown keys are ignored, values cut to size."""
        values = {
            name: clean_param(query[name], length)
            for name, length in _FILTER_LENGTHS.items()
            if name in query
        }
        values["contributor"] = values.get("contributor", "").removeprefix("@")
        values["status"] = values.get("status", "").lower()
        values["sort"] = values.get("sort", "").lower()
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
    # Search pages only: the title and an excerpt of the prompt or output, matches marked.
    title_marks: list[search.Segment] = field(default_factory=list)
    excerpt_marks: list[search.Segment] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        body = json_ready(self)
        del body["title_marks"], body["excerpt_marks"]
        if self.title_marks:
            body["highlight"] = {
                "title": search.marked_html(self.title_marks),
                "excerpt": search.marked_html(self.excerpt_marks),
            }
        return body


@dataclass(frozen=True)
class FeedPage:
    items: list[FeedCard] = field(default_factory=list)
    next_cursor: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"items": [card.to_json() for card in self.items], "next_cursor": self.next_cursor}


def encode_cursor(published_at: datetime, test_id: str) -> str:
    raw = f"{as_utc(published_at).isoformat(timespec='microseconds')}|{test_id}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def bad_cursor() -> Invalid:
    """A cursor this service did not issue (or an old one); the API answers 400."""
    return Invalid("invalid_cursor", "The cursor is malformed or expired.", "cursor")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The ``(published_at, id)`` a cursor points after; ``bad_cursor()`` when malformed."""
    if len(cursor) > _MAX_CURSOR_LENGTH or not re.fullmatch(r"[A-Za-z0-9_-]+", cursor):
        raise bad_cursor()
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
        stamp, test_id = raw.split("|")
        published_at = datetime.fromisoformat(stamp)
    except (binascii.Error, UnicodeDecodeError, ValueError) as error:
        raise bad_cursor() from error
    if published_at.tzinfo is None or not is_public_id(test_id):
        raise bad_cursor()
    return published_at.astimezone(UTC), test_id


TEST_SETUP = SetupColumns(
    family_id=Test.family_id,
    catalog_model_id=Test.catalog_model_id,
    model_key=Test.model_key,
    harness_id=Test.harness_id,
    harness_key=Test.harness_key,
    reasoning_key=Test.reasoning_key,
)


def _filter_conditions(session: Session, filters: FeedFilters) -> list[ColumnElement[bool]] | None:
    """SQL conditions for the filters, or None when a named family/contributor does not exist."""
    conditions = setup_conditions(
        session,
        TEST_SETUP,
        family=filters.family,
        model=filters.model,
        harness=filters.harness,
        reasoning=filters.reasoning,
    )
    if conditions is None:
        return None
    if filters.contributor:
        user_id = session.exec(select(User.id).where(User.handle == filters.contributor)).first()
        if user_id is None:
            return None
        conditions.append(col(Test.contributor_id) == user_id)
    if filters.status:
        conditions.append(col(Test.review_state) == filters.status)
    if filters.compare.lower() in _YES:
        conditions.append(col(Test.prompt_key).in_(_shared_prompt_keys()))
    return conditions


def _shared_prompt_keys() -> Any:
    """Prompt keys of comparison groups: two or more public Tests (an index-only scan)."""
    return (
        select(Test.prompt_key)
        .where(col(Test.state) == TestState.PUBLIC)
        .group_by(col(Test.prompt_key))
        .having(func.count() >= 2)
    )


_PROMPT_HEAD = func.substr(col(Test.prompt), 1, search.EXCERPT_SCAN_CHARS).label("prompt_head")
_OUTPUT_HEAD = func.substr(col(Test.output_text), 1, search.EXCERPT_SCAN_CHARS).label("output_head")
# What a card shows, and nothing else: no Test is ever read whole for the feed.
_CARD_COLUMNS = (
    col(Test.id),
    col(Test.title),
    _PROMPT_HEAD,
    col(Test.model_label),
    col(Test.model_version_label),
    col(Test.harness_label),
    col(Test.reasoning_label),
    col(Test.attempts),
    col(Test.review_state),
    col(Test.evidence_kinds),
    col(Test.thumbnail_evidence_id),
    col(Test.is_sample),
    col(Test.published_at),
    col(User.handle),
    col(User.display_name),
    col(EvidenceFile.safe_name),
)


def _card(row: Any, terms: list[search.Term]) -> FeedCard:
    assert row.published_at is not None  # public Tests are always published
    title = display_title(row.title, row.prompt_head)
    card = FeedCard(
        id=row.id,
        title=title,
        contributor_handle=row.handle,
        contributor_display_name=row.display_name,
        model_label=row.model_label,
        model_version_label=row.model_version_label,
        harness_label=row.harness_label,
        reasoning_label=row.reasoning_label,
        attempts=row.attempts,
        review_state=str(row.review_state),
        evidence_kinds=[kind for kind in row.evidence_kinds.split(",") if kind],
        thumbnail_evidence_id=row.thumbnail_evidence_id if row.safe_name else None,
        thumbnail_safe_name=row.safe_name,
        is_sample=row.is_sample,
        published_at=as_utc(row.published_at),
    )
    if not terms:
        return card
    title_marks = search.highlight(title, terms)
    return replace(
        card,
        title_marks=title_marks,
        excerpt_marks=search.excerpt([row.prompt_head, row.output_head], terms),
    )


def _card_statement(searching: bool) -> Select[Any]:
    columns = (*_CARD_COLUMNS, _OUTPUT_HEAD) if searching else _CARD_COLUMNS
    statement: Select[Any] = (
        select(*columns)
        .join(User, col(User.id) == Test.contributor_id)
        .outerjoin(
            EvidenceFile,
            and_(
                col(EvidenceFile.id) == Test.thumbnail_evidence_id,
                col(EvidenceFile.state) == EvidenceState.APPROVED,
            ),
        )
    )
    return statement


def _newest_page(statement: Select[Any], cursor: str | None, limit: int) -> tuple[Select[Any], Any]:
    """Newest first by ``(published_at, id)``, after the cursor's pair."""
    statement = (
        statement.where(col(Test.state) == TestState.PUBLIC, col(Test.published_at).is_not(None))
        .order_by(col(Test.published_at).desc(), col(Test.id).desc())
        .limit(limit + 1)
    )
    if cursor:
        statement = statement.where(
            tuple_(Test.published_at, Test.id) < tuple_(*decode_cursor(cursor))
        )
    return statement, lambda row: encode_cursor(row.published_at, row.id)


def _relevance_page(
    statement: Select[Any],
    dialect: str,
    terms: list[search.Term],
    conditions: list[ColumnElement[bool]],
    cursor: str | None,
    limit: int,
    probe: bool,
) -> tuple[Select[Any], Any]:
    """Best score first among the newest matches, ties by id; the cursor holds both."""
    after = None
    if cursor:
        try:
            after = search.decode_rank_cursor(cursor)
        except search.InvalidSearchCursorError as error:
            raise bad_cursor() from error
    if probe and conditions:
        page = search_sql.probed_page(terms, conditions, after, limit + 1)
    else:
        ranked = search_sql.ranked_candidates(dialect, terms, conditions)
        page = search_sql.page_of(ranked, after, limit + 1)
    key = search_sql.TEST_ROWID if dialect == "sqlite" else col(Test.id)
    statement = (
        statement.add_columns(page.c.score)
        .join(page, key == page.c.doc)
        .order_by(page.c.score.desc(), col(Test.id).desc())
    )
    return statement, lambda row: search.encode_rank_cursor(row.score, row.id)


def list_feed(
    session: Session, filters: FeedFilters, cursor: str | None = None, limit: int = 20
) -> FeedPage:
    """One page of public Tests (newest first, or by relevance when searching); pass
    ``next_cursor`` back for the next page.

    Raises ``Invalid`` (``invalid_cursor``) for a cursor this service did not issue.
    """
    if cursor and not filters.by_relevance:
        decode_cursor(cursor)  # a clear error before any query
    conditions = _filter_conditions(session, filters)
    terms = search.parse(filters.q)
    if conditions is None or (filters.q and not terms):
        return FeedPage()
    limit = max(1, min(limit, MAX_PAGE_SIZE))
    statement = _card_statement(bool(terms))
    dialect = session.get_bind().dialect.name
    probe = bool(terms) and dialect == "sqlite" and search_sql.many_matches(session, terms)
    if filters.by_relevance:
        statement, cursor_of = _relevance_page(
            statement, dialect, terms, conditions, cursor, limit, probe
        )
    else:
        if terms:
            conditions.append(search_sql.match_condition(dialect, terms, probe))
        statement, cursor_of = _newest_page(statement.where(*conditions), cursor, limit)
    rows = session.execute(statement).all()
    cards = [_card(row, terms) for row in rows[:limit]]
    next_cursor = cursor_of(rows[limit - 1]) if len(rows) > limit else None
    return FeedPage(items=cards, next_cursor=next_cursor)
