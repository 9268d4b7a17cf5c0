"""The periodic merge keeps SQLite's full-text index in one segment and changes no answer."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.services.feed import FeedFilters, list_feed
from benchmax.services.jobs import JobContext
from benchmax.services.search import maintenance as search_maintenance
from benchmax.settings import Settings
from tests.support.factories import make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


def _words(n: int) -> str:
    """Many distinct words, so each Test's segment spans several index pages."""
    return " ".join(f"t{n}x{k}" for k in range(600))


def _found(session: Session, q: str) -> list[str]:
    return [card.id for card in list_feed(session, FeedFilters(q=q), limit=100).items]


@BOTH
def test_the_merge_leaves_one_segment_and_the_same_answers(
    engine: Engine, session: Session, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    author = make_user(session)
    for n in range(12):  # one transaction each: FTS5 writes each as a segment of its own
        make_test(session, author, title=f"merge word{n % 3} common", prompt=f"prompt {_words(n)}")
        session.commit()
    queries = ["common", "word1", "prom*", '"merge word2"']
    before = {q: _found(session, q) for q in queries}
    ctx = JobContext.from_settings(settings, engine=engine)
    monkeypatch.setattr(search_maintenance, "MERGE_PAGES", 1)  # many small steps

    steps = search_maintenance.merge_search_index(ctx)

    assert {q: _found(session, q) for q in queries} == before
    assert len(before["common"]) == 12
    assert len(before["word1"]) == 4
    if engine.dialect.name != "sqlite":
        assert steps == 0  # PostgreSQL's GIN index needs no merging
        return
    with engine.connect() as connection:
        assert search_maintenance.segment_count(connection) == 1
    assert steps > 1
    assert search_maintenance.merge_search_index(ctx) == 0  # nothing left to do


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_run_stops_after_its_budget_and_the_next_carries_on(
    engine: Engine, session: Session, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    author = make_user(session)
    for n in range(12):
        make_test(session, author, title=f"budget {n}", prompt=_words(n))
        session.commit()
    with engine.connect() as connection:
        assert search_maintenance.segment_count(connection) > 1
    ctx = JobContext.from_settings(settings, engine=engine)
    monkeypatch.setattr(search_maintenance, "MERGE_PAGES", 1)
    monkeypatch.setattr(search_maintenance, "MAX_STEPS", 1)

    assert search_maintenance.merge_search_index(ctx) == 1
    runs = 1
    while search_maintenance.merge_search_index(ctx):
        runs += 1
        assert runs < 100, "the merge never finished"

    with engine.connect() as connection:
        assert search_maintenance.segment_count(connection) == 1
    assert runs > 1
    assert len(_found(session, "budget")) == 12
