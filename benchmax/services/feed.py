"""The public feed: filtered, newest first, keyset-paginated.

Pages are addressed by an opaque cursor holding the last row's ``(published_at, id)``, and the
next page is "rows strictly older than that pair" — a range scan of ``ix_test_feed`` (or
``ix_test_contributor_feed`` on a contributor's page). The database never counts past rows,
so page 1,000 costs what page 1 costs. The cursor only carries public values, so it needs no
signature; it is validated strictly so a mangled one is a clear 400, never a 500.

``sort`` picks the order: ``newest`` (the default without a search), ``most_reviewed``,
``top_score`` (see ``feed_order``) or, with a search (``q``), ``relevance`` (its default:
score, then id, and the cursor holds both). Every cursor encodes its order, so one order's
cursor handed to another is a 400.
Only the columns a card shows are read: for the prompt and the output that is their stored
heads (``card_excerpt``: an untitled Test's title and search excerpts), never the texts.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any

from sqlalchemy import ColumnElement, Select, bindparam, func, literal_column
from sqlmodel import Session, col, select

from benchmax.models import (
    EvidenceFile,
    ReviewState,
    Test,
    TestState,
    User,
)
from benchmax.models.test import display_title
from benchmax.search_index import CARD_EXCERPT, split_card_excerpt
from benchmax.services import search
from benchmax.services.dates import json_ready
from benchmax.services.errors import Invalid
from benchmax.services.feed_order import (
    LIST_SORTS,
    NEWEST,
    RELEVANCE,
    SORTS,
    check_cursor,
    decode_cursor,
    encode_cursor,
    in_order,
    keyset_page,
)
from benchmax.services.search import sql as search_sql
from benchmax.services.setup_filters import FilterPart, SetupFilters, condition, setup_parts
from benchmax.services.summaries import APPROVED_THUMBNAIL, TestSummary, summary_values

__all__ = [
    "FILTER_NAMES",
    "SORTS",
    "FeedFilters",
    "count_feed",
    "decode_cursor",
    "encode_cursor",
    "list_feed",
    "list_sort",
]

MAX_PAGE_SIZE = 100
# The results count stops here: past it the page says "1,000+", so a count never reads more
# than this many index entries however broad the filters are.
COUNT_CAP = 1000
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
# The query parameters the feed's filters are read from (the list API's and the Atom feed's).
FILTER_NAMES = frozenset(_FILTER_LENGTHS)
_YES = frozenset({"1", "on", "yes", "true"})


def clean_param(value: object, max_length: int) -> str:
    """First value of a multi-valued parameter, control characters dropped, trimmed, capped."""
    if isinstance(value, list | tuple):
        value = value[0] if value else ""
    text = "".join(ch for ch in str(value) if unicodedata.category(ch)[0] != "C")
    return text.strip()[:max_length].strip()


def list_sort(value: object, default: str = NEWEST) -> str:
    """A ``?sort=`` value as a list's order, one of ``LIST_SORTS``; anything else is
    ``default``, so a mistyped or stale link still shows the list."""
    sort = clean_param(value, _FILTER_LENGTHS["sort"]).lower()
    return sort if sort in LIST_SORTS else default


@dataclass(frozen=True)
class FeedFilters(SetupFilters):
    """What the visitor narrowed the feed to; empty strings mean "any"."""

    contributor: str = ""
    status: str = ""
    q: str = ""
    # Any of "1", "on", "yes", "true": only Tests whose prompt two or more public Tests share.
    compare: str = ""

    # One of ``feed_order.SORTS``; empty is relevance with a search, newest without, and
    # relevance without a search is newest too.
    sort: str = ""

    @property
    def groups_only(self) -> bool:
        """Only Tests whose prompt other public Tests share (the "2+ setups" box)."""
        return self.compare.lower() in _YES

    def __post_init__(self) -> None:
        if self.status and self.status not in set(ReviewState):
            allowed = ", ".join(state.value for state in ReviewState)
            raise Invalid("invalid_filter", f"status must be one of: {allowed}")
        if self.sort and self.sort not in SORTS:
            raise Invalid("invalid_filter", f"sort must be one of: {', '.join(SORTS)}")

    @property
    def by_relevance(self) -> bool:
        return bool(self.q) and self.sort in ("", RELEVANCE)

    @property
    def order(self) -> str:
        """The order the page is in: relevance, or the keyset order ``feed_order`` pages."""
        if self.by_relevance:
            return RELEVANCE
        return self.sort if self.sort and self.sort != RELEVANCE else NEWEST

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
class FeedCard(TestSummary):
    """A listed Test with its review state, as the feed and its search show it."""

    review_state: str = ""
    # Current reviews and their mean score (None until the first review).
    review_count: int = 0
    review_score: int | None = None
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


# The "comparison groups only" filter: a condition with no value.
_COMPARE = "compare"
# Each filter's condition by name, and whether it can match (see ``setup_filters.FilterPart``).
FilterShape = tuple[tuple[str, bool], ...]


def _filter_parts(session: Session, filters: FeedFilters) -> list[FilterPart] | None:
    """The filters as (``test`` column, value) pairs, or None when a named family or
    contributor does not exist (nothing can match)."""
    parts = setup_parts(session, filters)
    if parts is None:
        return None
    if filters.contributor:
        user_id = session.exec(select(User.id).where(User.handle == filters.contributor)).first()
        if user_id is None:
            return None
        parts.append(("contributor_id", user_id))
    if filters.status:
        parts.append(("review_state", filters.status))
    if filters.groups_only:
        parts.append((_COMPARE, True))
    return parts


@dataclass(frozen=True)
class _Query:
    """A page's or a count's filters and words: the shape of their SQL (``_conditions_of``)
    and every value it binds when it runs."""

    shape: FilterShape
    values: dict[str, Any]
    terms: list[search.Term]
    dialect: str


def _query(session: Session, filters: FeedFilters) -> _Query | None:
    """The filters and the search words ready to run, or None when nothing can match (a
    named family or contributor that does not exist, or a search with no words)."""
    parts = _filter_parts(session, filters)
    terms = search.parse(filters.q)
    if parts is None or (filters.q and not terms):
        return None
    shape = tuple((name, value is not None) for name, value in parts)
    values = {
        f"filter_{name}": value for name, value in parts if value is not None and name != _COMPARE
    }
    if terms:
        search_sql.plan_for_these_words(session)
        values.update(search_sql.bind_values(terms))
    return _Query(shape, values, terms, session.get_bind().dialect.name)


@lru_cache(maxsize=128)
def _conditions_of(shape: FilterShape) -> tuple[ColumnElement[bool], ...]:
    """The filters' SQL, built once per shape: their values are bound when it runs, so a
    statement made of them can be kept too (``_relevance_statement``)."""
    conditions: list[ColumnElement[bool]] = []
    for name, can_match in shape:
        if name == _COMPARE:
            conditions.append(col(Test.prompt_key).in_(_shared_prompt_keys()))
        else:
            value: Any = bindparam(f"filter_{name}") if can_match else None
            conditions.append(condition(getattr(Test, name), value))
    return tuple(conditions)


def _shared_prompt_keys() -> Any:
    """Prompt keys of comparison groups: two or more public Tests (an index-only scan)."""
    return (
        select(Test.prompt_key)
        .where(col(Test.state) == TestState.PUBLIC)
        .group_by(col(Test.prompt_key))
        .having(func.count() >= 2)
    )


# What a card shows, and nothing else: no Test is ever read whole for the feed.
_CARD_COLUMNS: tuple[Any, ...] = (
    col(Test.id),
    col(Test.title),
    literal_column(f"test.{CARD_EXCERPT}").label("card_excerpt"),
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
    col(Test.prompt_key),
    col(Test.review_count),
    col(Test.review_score),
    col(User.handle),
    col(User.display_name),
    col(EvidenceFile.safe_name),
)


def _card(row: Any, terms: list[search.Term]) -> FeedCard:
    assert row.published_at is not None  # public Tests are always published
    prompt_head, output_head = split_card_excerpt(row.card_excerpt)
    title = display_title(row.title, prompt_head)
    title_marks, excerpt_marks = [], []
    if terms:
        title_marks = search.highlight(title, terms)
        excerpt_marks = search.excerpt([prompt_head, output_head], terms)
    return FeedCard(
        **summary_values(row, title, row.handle, row.display_name, row.safe_name),
        review_state=str(row.review_state),
        review_count=row.review_count,
        review_score=row.review_score,
        title_marks=title_marks,
        excerpt_marks=excerpt_marks,
    )


def _card_statement() -> Select[Any]:
    statement: Select[Any] = (
        select(*_CARD_COLUMNS)
        .join(User, col(User.id) == Test.contributor_id)
        .outerjoin(EvidenceFile, APPROVED_THUMBNAIL)
    )
    return statement


def _relevance_page(
    dialect: str, shape: FilterShape, cursor: str | None, limit: int, probe: bool
) -> tuple[Select[Any], dict[str, Any], Any]:
    """Best score first among the newest matches, ties by id; the cursor holds both. Also
    the cursor's bound values, and how to make the next cursor from a row."""
    after = search.decode_rank_cursor(cursor) if cursor else None
    statement = _relevance_statement(dialect, shape, after is not None, limit + 1, probe)
    values = search_sql.cursor_values(after)
    return statement, values, lambda row: search.encode_rank_cursor(row.score, row.id)


@lru_cache(maxsize=256)
def _relevance_statement(
    dialect: str, shape: FilterShape, after: bool, size: int, probe: bool
) -> Select[Any]:
    """Built once per shape, as the words, the filters' values and the cursor are bound at
    execution: building this statement costs SQLAlchemy more than the database takes to
    answer it (a search as you type is the feed's most frequent query)."""
    conditions = list(_conditions_of(shape))
    page = search_sql.relevance_page(dialect, conditions, after, size, probe)
    key = search_sql.TEST_ROWID if dialect == "sqlite" else col(Test.id)
    return (
        _card_statement()
        .add_columns(page.c.score)
        .join(page, key == page.c.doc)
        .order_by(page.c.score.desc(), col(Test.id).desc())
    )


def list_feed(
    session: Session, filters: FeedFilters, cursor: str | None = None, limit: int = 20
) -> FeedPage:
    """One page of public Tests in ``filters.order``; pass ``next_cursor`` back for the next.

    Raises ``Invalid`` (``invalid_cursor``) for a cursor this service did not issue for this
    order.
    """
    if cursor and not filters.by_relevance:
        check_cursor(filters.order, cursor)  # a clear error before any query
    query = _query(session, filters)
    if query is None:
        return FeedPage()
    limit = max(1, min(limit, MAX_PAGE_SIZE))
    shape, values, terms, dialect = query.shape, query.values, query.terms, query.dialect
    # An unfiltered relevance page is answered the same way whatever the number of matches.
    probe = (
        bool(terms)
        and dialect == "sqlite"
        and (bool(shape) or not filters.by_relevance)
        and search_sql.many_matches(session, terms)
    )
    if filters.by_relevance:
        statement, after, cursor_of = _relevance_page(dialect, shape, cursor, limit, probe)
        values.update(after)
    else:
        conditions = list(_conditions_of(shape))
        if terms:
            conditions.append(search_sql.match_condition(dialect, probe))
        statement, cursor_of = keyset_page(
            _card_statement().where(*conditions), filters.order, cursor, limit
        )
    rows = session.execute(statement, values).all()
    cards = [_card(row, terms) for row in rows[:limit]]
    next_cursor = cursor_of(rows[limit - 1]) if len(rows) > limit else None
    return FeedPage(items=cards, next_cursor=next_cursor)


@dataclass(frozen=True)
class FeedCount:
    """How many Tests the filters match, counted no further than ``COUNT_CAP``."""

    count: int
    more: bool  # True: at least ``count + 1``; the exact number was not counted

    @property
    def text(self) -> str:
        noun = "Test" if self.count == 1 and not self.more else "Tests"
        return f"{self.count:,}{'+' if self.more else ''} {noun}"


def count_feed(session: Session, filters: FeedFilters, cap: int = COUNT_CAP) -> FeedCount:
    """The results count for ``filters`` in their order (the score order lists only scored
    Tests), read from the same indexes as the page and bounded by ``cap``."""
    query = _query(session, filters)
    if query is None:
        return FeedCount(0, False)
    conditions = list(_conditions_of(query.shape))
    if query.terms:
        probe = query.dialect == "sqlite" and search_sql.many_matches(session, query.terms)
        conditions.append(search_sql.match_condition(query.dialect, probe))
    matching = select(Test.id).where(*in_order(filters.order), *conditions).limit(cap + 1)
    counted = select(func.count()).select_from(matching.subquery())
    found = session.execute(counted, query.values).scalar_one()
    return FeedCount(min(found, cap), found > cap)
