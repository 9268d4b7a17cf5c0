"""The search conditions and ranked candidates in each engine's own full-text SQL.

The objects queried here (``test_fts`` on SQLite, ``test.search_vector`` on PostgreSQL) are
built and kept in sync by migration 0009; their names live in ``benchmax.search_index``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    ColumnElement,
    Double,
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
from benchmax.services.search import RANK_WINDOW, Term, fts5_query, tsquery

# How many matches make a word "common" on SQLite (see ``many_matches``).
MATCH_PROBE = 1000

_FTS = table(FTS_TABLE, column("rowid"))
# bm25 weights for title, setup, prompt, output: a word in the title counts most.
_BM25_WEIGHTS = (10.0, 4.0, 2.0, 1.0)
TEST_ROWID: ColumnElement[int] = literal_column("test.rowid")


def _fts_match(terms: list[Term]) -> ColumnElement[bool]:
    return literal_column(FTS_TABLE).op("MATCH")(bindparam("fts_query", fts5_query(terms)))


def _ts_query(terms: list[Term]) -> Any:
    return func.to_tsquery(literal_column(f"'{TS_CONFIG}'"), bindparam("ts_query", tsquery(terms)))


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
    first = select(_FTS.c.rowid).select_from(_FTS).where(_fts_match(terms)).limit(MATCH_PROBE)
    count = session.execute(select(func.count()).select_from(first.subquery())).scalar_one()
    return bool(count >= MATCH_PROBE)


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


def _probe(terms: list[Term], value: Any) -> Any:
    """A correlated lookup of the current ``test`` row in the FTS index (one rowid seek)."""
    return (
        select(value)
        .select_from(_FTS)
        .where(_fts_match(terms), _FTS.c.rowid == TEST_ROWID)
        .scalar_subquery()
    )


def match_condition(dialect: str, terms: list[Term], probe: bool = False) -> ColumnElement[bool]:
    """Public Tests whose indexed text holds every term (for newest-first pages); ``probe``
    (SQLite, many matches) checks row by row instead of reading every match first."""
    if dialect == "sqlite":
        if probe:
            return _probe(terms, literal_column("1")).is_not(None)  # type: ignore[no-any-return]
        matches = select(_FTS.c.rowid).select_from(_FTS).where(_fts_match(terms))
        return TEST_ROWID.in_(matches)
    return _vector().op("@@")(_ts_query(terms))  # type: ignore[no-any-return]


def probed_page(
    terms: list[Term], conditions: list[ColumnElement[bool]], after: Any, size: int
) -> Subquery:
    """The next ``size`` filtered Tests that match, newest first after the cursor, walked
    through the filter's index with one FTS probe per row, scored by recency.

    bm25 cannot be asked per row here: each call would recount every Test holding the words
    (its IDF), so a common word would cost a full count per probe. A filtered search for a
    common word on SQLite is therefore ordered newest first (as a score, so the relevance
    cursor still works); any other search is ranked by bm25.
    """
    score = cast(func.julianday(col(Test.published_at)), Double)
    walk: Any = (
        select(TEST_ROWID.label("doc"), col(Test.id).label("id"), score.label("score"))
        .where(col(Test.state) == TestState.PUBLIC, match_condition("sqlite", terms, True))
        .where(*conditions)
        .order_by(col(Test.published_at).desc(), col(Test.id).desc())
        .limit(size)
    )
    if after is not None:
        walk = walk.where(tuple_(score, col(Test.id)) < tuple_(*after))
    return walk.subquery("page")  # type: ignore[no-any-return]


def ranked_candidates(
    dialect: str, terms: list[Term], conditions: list[ColumnElement[bool]]
) -> Subquery:
    """The newest ``RANK_WINDOW`` matches that pass the filters, each with a score (higher is
    better); ``doc`` joins them back to ``test`` (its rowid on SQLite, its id on PostgreSQL).

    SQLite walks the FTS index newest-added first and stops at the window (bm25 is computed
    for those rows only). PostgreSQL takes the newest by publication — from the GIN matches,
    or for a common word by walking the feed's (or the filter's) index, as its planner
    picks — and ranks only the window: ``ts_rank`` is computed outside the limited subquery,
    so never for a match the window leaves out, and the planner has no reason to prefer
    scoring every match and sorting them. (A filtered common-word search on SQLite uses
    ``probed_page``.)
    """
    public = col(Test.state) == TestState.PUBLIC
    if dialect == "sqlite":
        score = -func.bm25(literal_column(FTS_TABLE), *_BM25_WEIGHTS)
        candidates = (
            select(_FTS.c.rowid.label("doc"), col(Test.id).label("id"), score.label("score"))
            .select_from(_FTS)
            .join(Test, _FTS.c.rowid == TEST_ROWID)
            .where(_fts_match(terms), public, *conditions)
            .order_by(_FTS.c.rowid.desc())
            .limit(RANK_WINDOW)
            .subquery("ranked")
        )
        return candidates
    window = (
        select(col(Test.id).label("id"), _vector().label("vector"))
        .where(match_condition(dialect, terms), public, *conditions)
        .order_by(col(Test.published_at).desc(), col(Test.id).desc())
        .limit(RANK_WINDOW)
        .subquery("newest")
    )
    # ts_rank is a real; as a double its text round-trips exactly through the cursor.
    rank = cast(func.ts_rank(window.c.vector, _ts_query(terms)), Double)
    doc, test_id = window.c.id.label("doc"), window.c.id.label("id")
    return select(doc, test_id, rank.label("score")).subquery("ranked")


def relevance_page(
    dialect: str,
    terms: list[Term],
    conditions: list[ColumnElement[bool]],
    after: tuple[float, str] | None,
    size: int,
    probe: bool,
) -> Subquery:
    """The next ``size`` matches in relevance order after the ``(score, id)`` cursor."""
    if probe and conditions and dialect == "sqlite":
        return probed_page(terms, conditions, after, size)
    return page_of(ranked_candidates(dialect, terms, conditions), after, size)


def page_of(candidates: Subquery, after: tuple[float, str] | None, limit: int) -> Subquery:
    """One page of candidates, best first, before it is joined back to ``test``: the join
    then looks up ``limit`` rows by key instead of all of the window's."""
    columns = candidates.c
    page = select(columns.doc, columns.id, columns.score)
    page = page.order_by(columns.score.desc(), columns.id.desc())
    if after is not None:
        page = page.where(tuple_(candidates.c.score, candidates.c.id) < tuple_(*after))
    return page.limit(limit).subquery("page")
