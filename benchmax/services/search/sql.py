"""The search conditions and ranked candidates in each engine's own full-text SQL.

The objects queried here (``test_fts`` on SQLite, ``test.search_vector`` on PostgreSQL) are
built and kept in sync by migration 0009; their names live in ``benchmax.search_index``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Double,
    String,
    Subquery,
    bindparam,
    cast,
    column,
    func,
    literal_column,
    table,
    text,
    tuple_,
)
from sqlmodel import Session, col, select

from benchmax.models import Test, TestState
from benchmax.search_index import FTS_TABLE, SEARCH_VECTOR, TS_CONFIG
from benchmax.services.search.query import RANK_WINDOW, Term, fts5_query, tsquery

# How many matches make a word "common" on SQLite (see ``many_matches``).
MATCH_PROBE = 1000

_FTS = table(FTS_TABLE, column("rowid"))
# Where the words are found, best first: each column's weight is a distinct power of two, so
# a score says exactly which columns hold every term (title beats all the others together).
_COLUMN_WEIGHTS = (("title", 8), ("setup", 4), ("prompt", 2), ("output", 1))
TEST_ROWID: ColumnElement[int] = literal_column("test.rowid")
# One instance for every score cast: SQLAlchemy works out a type's cache key once per
# instance, by inspecting its constructor — a fresh ``Double`` per query paid that each time.
_DOUBLE: Double[float] = Double()


def bind_values(terms: list[Term]) -> dict[str, str]:
    """The values of a search's bound parameters, to pass when a statement runs.

    No statement here holds the query itself: its text is a parameter of the execution, so
    the SQL for a search is the same whatever the words, and a statement that is costly to
    build can be built once and kept (``feed._relevance_statement``, ``_match_count``).
    """
    query = fts5_query(terms)
    values = {"fts_query": query, "ts_query": tsquery(terms)}
    values.update({f"fts_{name}": f"{{{name}}} : ({query})" for name, _ in _COLUMN_WEIGHTS})
    return values


def _fts_match(column_name: str | None = None) -> ColumnElement[bool]:
    """``test_fts MATCH`` the search, in one column only when ``column_name`` is given (an
    FTS5 column filter over the whole expression)."""
    key = "fts_query" if column_name is None else f"fts_{column_name}"
    return literal_column(FTS_TABLE).op("MATCH")(bindparam(key, type_=String))


def _ts_query() -> Any:
    config: Any = literal_column(f"'{TS_CONFIG}'")
    return func.to_tsquery(config, bindparam("ts_query", type_=String))


def _vector() -> Any:
    return literal_column(f"test.{SEARCH_VECTOR}")


def many_matches(session: Session, terms: list[Term]) -> bool:
    """Whether at least ``MATCH_PROBE`` Tests match (SQLite): reads that many rowids at most.

    FTS5 here cannot look up a list of rowids, so a search is answered one of two ways: few
    matches — read them all from the FTS index, then join and order them; many matches —
    walk the feed's (or the filter's) index newest first and probe the FTS index for each
    row, which finds a page after a few probes when the words are common. This count picks.
    PostgreSQL needs no count: ANALYZE keeps per-word frequencies for ``search_vector``, and
    from them the planner makes the same choice itself — a GIN bitmap for rare words, a
    newest-first walk of the order's index testing ``@@`` per row for common ones — where
    counting first would cost more than the page (a phrase's count is a scan).
    """
    count = session.execute(_match_count(MATCH_PROBE), bind_values(terms)).scalar_one()
    return bool(count >= MATCH_PROBE)


@lru_cache(maxsize=2)
def _match_count(probe: int) -> Any:
    first = select(_FTS.c.rowid).select_from(_FTS).where(_fts_match()).limit(probe)
    return select(func.count()).select_from(first.subquery())


def plan_for_these_words(session: Session) -> None:
    """Have PostgreSQL plan this transaction's searches for their actual words (no-op on
    SQLite).

    The best plan depends on the words: a GIN bitmap for rare ones, an index walk for common
    ones. The driver prepares a statement it has run five times, and PostgreSQL may then
    switch to one generic plan made for an unknown query — for a common word with a filter,
    measured at a million Tests, a bitmap of every match and a sort, twenty times slower.
    """
    if session.get_bind().dialect.name != "sqlite":
        session.execute(text("SET LOCAL plan_cache_mode = force_custom_plan"))


def _probe(value: Any) -> Any:
    """A correlated lookup of the current ``test`` row in the FTS index (one rowid seek)."""
    return (
        select(value)
        .select_from(_FTS)
        .where(_fts_match(), _FTS.c.rowid == TEST_ROWID)
        .scalar_subquery()
    )


def match_condition(dialect: str, probe: bool = False) -> ColumnElement[bool]:
    """Public Tests whose indexed text holds every term (for newest-first pages); ``probe``
    (SQLite, many matches) checks row by row instead of reading every match first."""
    if dialect == "sqlite":
        if probe:
            return _probe(literal_column("1")).is_not(None)  # type: ignore[no-any-return]
        matches = select(_FTS.c.rowid).select_from(_FTS).where(_fts_match())
        return TEST_ROWID.in_(matches)
    return _vector().op("@@")(_ts_query())  # type: ignore[no-any-return]


def cursor_values(after: tuple[float, str] | None) -> dict[str, Any]:
    """The bound values of a relevance cursor's ``(score, id)``, for a page built with
    ``after`` (they are parameters of the execution, like the words)."""
    return {} if after is None else {"after_score": after[0], "after_id": after[1]}


def _after(score: Any, test_id: Any) -> ColumnElement[bool]:
    cursor = tuple_(bindparam("after_score", type_=_DOUBLE), bindparam("after_id", type_=String))
    return tuple_(score, test_id) < cursor


def probed_page(conditions: list[ColumnElement[bool]], after: bool, size: int) -> Subquery:
    """The next ``size`` filtered Tests that match, newest first after the cursor, walked
    through the filter's index with one FTS probe per row, scored by recency.

    A window of the newest matches cannot be scored here without probing every row of it
    (several times, one per column), and a filter that few Tests pass would need a long walk
    of the FTS index to fill one. A filtered search for a common word on SQLite is therefore
    ordered newest first (as a score, so the relevance cursor still works); any other
    search is ranked (``ranked_candidates``).
    """
    score = cast(func.julianday(col(Test.published_at)), _DOUBLE)
    walk: Any = (
        select(TEST_ROWID.label("doc"), col(Test.id).label("id"), score.label("score"))
        .where(col(Test.state) == TestState.PUBLIC, match_condition("sqlite", True))
        .where(*conditions)
        .order_by(col(Test.published_at).desc(), col(Test.id).desc())
        .limit(size)
    )
    if after:
        walk = walk.where(_after(score, col(Test.id)))
    return walk.subquery("page")  # type: ignore[no-any-return]


# The SQLite relevance window, by name: ``_column_score`` refers to it this way so that it
# can be built once and used in every window's statement.
_WINDOW = table("newest_matches", column("doc"))


@lru_cache(maxsize=1)
def _column_score() -> Any:
    """Each window row's score from FTS5 column filters: one query per column, bounded to the
    window's rowids, so the cost follows the window, not how many Tests hold the words.

    SQLite's bm25 would weight columns too, but it first counts every Test holding each
    term (its IDF) — for a word in most Tests, a read of the whole posting list per query.
    Built once: it does not depend on the words or the filters, and building it costs
    SQLAlchemy more than SQLite takes to answer it.
    """
    lowest = select(func.min(_WINDOW.c.doc)).select_from(_WINDOW).scalar_subquery()
    doc: Any = literal_column(f"{_WINDOW.name}.doc")  # the outer row's (a column would add a FROM)
    score: Any = literal_column("0")
    for name, weight in _COLUMN_WEIGHTS:
        in_column = (
            select(_FTS.c.rowid).select_from(_FTS).where(_fts_match(name), _FTS.c.rowid >= lowest)
        )
        score = score + literal_column(str(weight)) * cast(doc.in_(in_column), _DOUBLE)
    return score


def ranked_candidates(dialect: str, conditions: list[ColumnElement[bool]]) -> Subquery:
    """The newest ``RANK_WINDOW`` matches that pass the filters, each with a score (higher is
    better); ``doc`` joins them back to ``test`` (its rowid on SQLite, its id on PostgreSQL).

    SQLite walks the FTS index newest-added first, stops at the window and scores it by the
    columns that hold the words (``_column_score``). PostgreSQL takes the newest by
    publication — from the GIN matches, or for a common word by walking the feed's (or the
    filter's) index, as its planner picks — and ranks only the window: ``ts_rank`` is
    computed outside the limited subquery, so never for a match the window leaves out, and
    the planner has no reason to prefer scoring every match and sorting them. (A filtered
    common-word search on SQLite uses ``probed_page``.)
    """
    public = col(Test.state) == TestState.PUBLIC
    if dialect == "sqlite":
        matches = (
            select(_FTS.c.rowid.label("doc"), col(Test.id).label("id"))
            .select_from(_FTS)
            .join(Test, _FTS.c.rowid == TEST_ROWID)
            .where(_fts_match(), public, *conditions)
            .order_by(_FTS.c.rowid.desc())
            .limit(RANK_WINDOW)
            .cte(_WINDOW.name)
        )
        score = _column_score().label("score")
        return select(matches.c.doc, matches.c.id, score).select_from(matches).subquery("ranked")
    window = (
        select(col(Test.id).label("id"), _vector().label("vector"))
        .where(match_condition(dialect), public, *conditions)
        .order_by(col(Test.published_at).desc(), col(Test.id).desc())
        .limit(RANK_WINDOW)
        .subquery("newest")
    )
    # ts_rank is a real; as a double its text round-trips exactly through the cursor.
    rank = cast(func.ts_rank(window.c.vector, _ts_query()), _DOUBLE)
    doc, test_id = window.c.id.label("doc"), window.c.id.label("id")
    return select(doc, test_id, rank.label("score")).subquery("ranked")


def relevance_page(
    dialect: str, conditions: list[ColumnElement[bool]], after: bool, size: int, probe: bool
) -> Subquery:
    """The next ``size`` matches in relevance order, after the ``(score, id)`` cursor when
    ``after`` (its values: ``cursor_values``)."""
    if probe and conditions and dialect == "sqlite":
        return probed_page(conditions, after, size)
    return page_of(ranked_candidates(dialect, conditions), after, size)


def page_of(candidates: Subquery, after: bool, limit: int) -> Subquery:
    """One page of candidates, best first, before it is joined back to ``test``: the join
    then looks up ``limit`` rows by key instead of all of the window's."""
    columns = candidates.c
    page = select(columns.doc, columns.id, columns.score)
    page = page.order_by(columns.score.desc(), columns.id.desc())
    if after:
        page = page.where(_after(candidates.c.score, candidates.c.id))
    return page.limit(limit).subquery("page")
