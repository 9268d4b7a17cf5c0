"""What ``/leaderboard`` reads: sorted slices of one sealed snapshot, catalog names, and rows
in words (band, interval, plurals)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.context import AppContext, use_app_context
from benchmax.models import Role, Test
from benchmax.services.catalog.linking import link_declared_setup
from benchmax.services.catalog.seed import seed_catalog
from benchmax.services.leaderboard import board
from benchmax.services.leaderboard.signing import (
    new_key_pair,
    private_key_from_hex,
    published_key,
)
from benchmax.services.leaderboard.snapshots import build_snapshot
from benchmax.settings import Settings
from benchmax.state.views.leaderboard import REMOVED_TITLE, BoardEntryView
from benchmax.state.views.listed import ScoredView
from tests.support.factories import make_review, make_test, make_user

KEY = private_key_from_hex(new_key_pair()[0])


@pytest.fixture
def context(settings: Settings, engine: Engine) -> Iterator[AppContext]:
    """The context the views read the user-content origin from."""
    ctx = AppContext.from_settings(settings, engine=engine)
    previous = use_app_context(ctx)
    yield ctx
    use_app_context(previous)


def _reviewed(session: Session, scores: list[int], **labels: Any) -> Test:
    test = make_test(session, **labels)
    link_declared_setup(session, test)
    for score in scores:
        make_review(session, test, make_user(session, role=Role.REVIEWER), score=score)
    return test


def _board(session: Session) -> None:
    seed_catalog(session)
    _reviewed(session, [100], model_label="gpt-5", harness_label="codex cli")
    _reviewed(session, [78] * 10, model_label="sonnet 4.5")
    _reviewed(session, [60, 62], model_label="My Own Model")
    _reviewed(session, [30, 35, 40], model_label="gemini 2.5 pro")
    session.commit()
    assert build_snapshot(session, "views", KEY)
    session.commit()


def _all(session: Session, sort: str, limit: int) -> list[board.BoardEntry]:
    """Every row in ``sort``, ``limit`` a page, following the cursors."""
    entries: list[board.BoardEntry] = []
    cursor = None
    while True:
        page = board.board_page(session, None, board.BoardFilters(), cursor, limit, sort)
        entries += page.items
        if page.next_cursor is None:
            return entries
        cursor = page.next_cursor


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
def test_every_sort_shows_the_same_sealed_rows_in_its_order(session: Session) -> None:
    _board(session)
    by_rank = _all(session, "rank", 10)
    assert [entry.rank for entry in by_rank] == [1, 2, 3, 4]
    sealed = {entry.position: (entry.rank, entry.band, entry.score) for entry in by_rank}
    orders = {sort: _all(session, sort, 3) for sort in board.SORTS}  # pages of 3 over 4 rows
    for entries in orders.values():
        assert {e.position: (e.rank, e.band, e.score) for e in entries} == sealed
    assert [e.review_count for e in orders["reviews"]] == [10, 3, 2, 1]
    assert [e.score_bp for e in orders["score"]] == sorted(e.score_bp for e in by_rank)
    names = [e.model_name or str(e.test and e.test.model_label) for e in orders["model"]]
    assert names == sorted(names, key=str.lower)
    assert _all(session, "no-such-order", 10) == by_rank


def test_rows_carry_catalog_names_and_read_as_bands_and_intervals(
    session: Session, context: AppContext
) -> None:
    _board(session)
    entries = _all(session, "rank", 10)
    gpt = next(e for e in entries if e.test and e.test.model_label == "gpt-5")
    assert (gpt.model_name, gpt.harness_name) == ("GPT-5", "Codex CLI")
    own = next(e for e in entries if e.test and e.test.model_label == "My Own Model")
    assert own.model_name == ""
    view = BoardEntryView.of(gpt)
    assert view.model == "GPT-5"
    assert view.declared.startswith("Declared by the contributor: gpt-5 · codex cli")
    assert view.band == gpt.band
    assert view.band.startswith("#1")
    assert view.interval == f"{gpt.score_low}\N{EN DASH}{gpt.score_high}"
    assert view.reviews == "1 review"
    assert view.score_range == ""  # one review has no range worth stating
    assert BoardEntryView.of(own).model == "My Own Model"  # unmatched: the label itself
    assert BoardEntryView.of(own).reviews == "2 reviews"
    assert re.fullmatch(r"range \d+ to \d+", BoardEntryView.of(own).score_range)
    removed = BoardEntryView.of(board.BoardEntry(**{**gpt.__dict__, "test": None}))
    assert (removed.title, removed.model, removed.declared) == (REMOVED_TITLE, "", "")


def test_the_interval_bar_places_the_interval_on_a_0_to_100_scale() -> None:
    assert ScoredView.interval_fields("78.46", "75.03", "81.89") == {
        "interval": "75.03\N{EN DASH}81.89",
        "bar_left": "75.03%",
        "bar_width": "6.86%",
        "bar_mark": "78.46%",
    }
    # Rows sealed before intervals existed (0.00 to 0.00), and unscored members: no bar.
    assert ScoredView.interval_fields("70.00", "0.00", "0.00") == {}
    assert ScoredView.interval_fields("", "", "") == {}


def test_the_published_key_is_the_public_half_or_none_in_production(settings: Settings) -> None:
    key = published_key(settings)
    assert key is not None
    assert len(key.public_hex) == 64
    assert len(key.fingerprint) == 64
    production = settings.model_copy(update={"env": "production"})
    assert published_key(production) is None
