"""What the feed asks the database: every filter (with and without search) is answered from an
index, never a full scan of ``test``, and no card query reads a Test's prompt or output (only
their stored heads)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, event, insert, text
from sqlmodel import Session, select
from starlette.testclient import TestClient

from benchmax.models import ModelFamily, ReviewState, Test, TestState, User
from benchmax.models._base import new_id, utcnow
from benchmax.services.catalog.seed import seed_catalog
from benchmax.services.feed import FeedFilters, list_feed
from benchmax.services.search import parse
from benchmax.services.search import sql as search_sql

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
ROWS = 20_000
FILTERS = [
    {},
    {"family": "claude"},
    {"model": "claude-sonnet-4-5"},
    {"model": "my finetune"},  # not in the catalog: the declared key
    {"harness": "claude-code"},
    {"harness": "homegrown"},
    {"reasoning": "high"},
    {"contributor": "bench7"},
    {"status": "reviewed"},
    {"family": "claude", "reasoning": "high", "status": "awaiting"},
]
SEARCHES = ["", "zebra", "common", "common zebra", "comm*"]


@contextmanager
def captured(engine: Engine) -> Iterator[list[tuple[str, Any]]]:
    statements: list[tuple[str, Any]] = []

    def capture(_c: Any, _cur: Any, statement: str, params: Any, *_: Any) -> None:
        statements.append((statement, params))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", capture)


def _seed(session: Session) -> None:
    """A few thousand varied Tests, so the planners see realistic selectivity."""
    seed_catalog(session)
    claude = session.exec(select(ModelFamily).where(ModelFamily.slug == "claude")).one()
    users = [{"id": new_id(), "handle": f"bench{n}", "auth_subject": f"b{n}"} for n in range(50)]
    session.execute(insert(User), users)
    now = utcnow()
    rows = []
    for n in range(ROWS):
        # "common" in one Test in twenty, "zebra" in a handful.
        words = ("common " if n % 20 == 0 else "") + ("zebra " if n % 500 == 0 else "")
        words += f"word{n % 97}"
        rows.append(
            {
                "id": new_id(),
                "contributor_id": users[n % 50]["id"],
                "title": words,
                "prompt": f"prompt {n}",
                "model_label": "My Finetune",
                "model_key": "my-finetune" if n % 40 == 0 else f"model-{n % 13}",
                "harness_label": "homegrown",
                "harness_key": "homegrown" if n % 60 == 0 else f"h{n % 7}",
                "reasoning_label": "high",
                "reasoning_key": "high" if n % 5 == 0 else "low",
                "family_id": claude.id if n % 50 == 0 else None,
                "output_text": "long output " * 50,
                "state": TestState.PUBLIC.value if n % 10 else TestState.DRAFT.value,
                "review_state": (ReviewState.REVIEWED if n % 30 == 0 else ReviewState.AWAITING),
                "published_at": now - timedelta(seconds=n),
                # A third reviewed, so the sorted pages' indexes hold what they would.
                "review_count": n % 4 if n % 3 == 0 else 0,
                "review_score": (n * 37) % 101 if n % 3 == 0 and n % 4 else None,
            }
        )
    session.execute(insert(Test), rows)
    session.commit()
    session.connection().execute(text("ANALYZE"))
    session.commit()


def _page_statement(engine: Engine, session: Session, filters: FeedFilters) -> tuple[str, Any]:
    with captured(engine) as statements:
        list_feed(session, filters)
    return next(s for s in statements if "FROM test" in s[0] and "JOIN" in s[0])


def _plan(session: Session, dialect: str, statement: str, params: Any) -> str:
    prefix = "EXPLAIN QUERY PLAN " if dialect == "sqlite" else "EXPLAIN "
    rows = session.connection().exec_driver_sql(prefix + statement, params).all()
    return "\n".join(str(row[-1]) for row in rows)


@BOTH
def test_every_filter_and_search_uses_an_index(engine: Engine, session: Session) -> None:
    _seed(session)
    dialect = engine.dialect.name
    for search in SEARCHES:
        for sort in ("relevance", "newest") if search else ("",):
            for values in FILTERS:
                filters = FeedFilters(q=search, sort=sort, **values)
                plan = _plan(session, dialect, *_page_statement(engine, session, filters))
                if dialect == "sqlite":
                    # "SCAN test" alone is a full scan; "SCAN test USING INDEX" is a range walk.
                    assert not re.search(r"SCAN test\b(?! USING)", plan), (filters, plan)
                else:
                    assert "Seq Scan on test" not in plan, (filters, plan)


def _select_lists(statements: list[tuple[str, Any]]) -> list[str]:
    """What each SELECT reads (its main select list, after any WITH clause)."""
    lists = []
    for statement, _ in statements:
        if statement.startswith("WITH"):
            statement = "SELECT" + re.split(r"\)\s*SELECT\b", statement)[-1]
        if statement.lstrip().startswith("SELECT"):
            lists.append(statement.split(" FROM ", 1)[0])
    return lists


@BOTH
@pytest.mark.parametrize("q", ["", "common"])
def test_cards_never_read_whole_texts(
    engine: Engine, session: Session, api_client: TestClient, q: str
) -> None:
    _seed(session)
    with captured(engine) as statements:
        list_feed(session, FeedFilters(q=q))
        assert api_client.get("/api/v1/tests", params={"q": q}).status_code == 200
    selects = _select_lists(statements)
    card_selects = [s for s in selects if "test.evidence_kinds" in s]
    assert len(card_selects) == 2
    for select_list in card_selects:
        assert "output_text" not in select_list, select_list
        assert not re.search(r"test\.prompt\b", select_list), select_list
        assert "test.card_excerpt" in select_list, select_list


@BOTH
def test_common_word_searches_walk_the_order_index_testing_each_row(
    engine: Engine, session: Session
) -> None:
    """A word in every public Test: the page walks the feed's (or the filter's) index newest
    first and tests each row's text until the page (or the relevance window) is full — on
    SQLite by probing FTS per row, on PostgreSQL as the planner's choice, with ``@@`` as a
    filter on the walk — never a bitmap of every match, never a sort of all of them."""
    _seed(session)
    dialect = engine.dialect.name
    if dialect == "sqlite":
        assert search_sql.many_matches(session, parse("prompt"))
    for sort in ("relevance", "newest"):
        for values in FILTERS:
            filters = FeedFilters(q="prompt", sort=sort, **values)
            plan = _plan(session, dialect, *_page_statement(engine, session, filters))
            if dialect == "sqlite":
                assert not re.search(r"SCAN test\b(?! USING)", plan), (filters, plan)
                assert "test_fts VIRTUAL TABLE INDEX" in plan, (filters, plan)
            else:
                assert "Seq Scan on test" not in plan, (filters, plan)
                assert "ix_test_search_vector" not in plan, (filters, plan)
                assert re.search(r"Index Scan Backward using ix_test_\w+ on test", plan), plan
                assert re.search(r"Filter: .*search_vector @@", plan), (filters, plan)


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_postgres_plans_every_search_for_its_words(session: Session) -> None:
    """The driver prepares a statement it has run five times, and a generic plan for an
    unknown tsquery can be twenty times slower than the word's own; searches opt out."""
    show = text("SHOW plan_cache_mode")
    list_feed(session, FeedFilters())
    assert session.execute(show).scalar_one() == "auto"
    list_feed(session, FeedFilters(q="common", contributor="nobody-here"))
    assert session.execute(show).scalar_one() == "auto"  # no such contributor: no query
    list_feed(session, FeedFilters(q="common"))
    assert session.execute(show).scalar_one() == "force_custom_plan"


@BOTH
@pytest.mark.parametrize("sort", ["newest", "most_reviewed", "top_score"])
def test_list_pages_walk_an_index_in_every_order(
    engine: Engine, session: Session, sort: str
) -> None:
    """A contributor's, a family's and a model's page in each order its sort menu offers:
    the index the rows come from leads with the page's own column, so a page reads only that
    page's Tests (never a scan of ``test``, nor of the whole feed's order skipping everyone
    else's); SQLite, with no row estimates to weigh, also never sorts them."""
    _seed(session)
    dialect = engine.dialect.name
    pages = {"contributor": "bench7", "family": "claude", "model": "claude-sonnet-4-5"}
    columns = {"contributor": "contributor_id", "family": "family_id", "model": "catalog_model_id"}
    for page, value in pages.items():
        filters = FeedFilters(sort=sort, **{page: value})
        plan = _plan(session, dialect, *_page_statement(engine, session, filters))
        if dialect == "sqlite":
            assert f"SEARCH test USING INDEX ix_test_{page}_" in plan, (filters, plan)
            assert f"({columns[page]}=?" in plan, (filters, plan)
            assert "TEMP B-TREE" not in plan, (filters, plan)
        else:
            assert "Seq Scan on test" not in plan, (filters, plan)
            assert re.search(rf"Index Cond: \(+\(?{columns[page]}\)?::text =", plan), plan
