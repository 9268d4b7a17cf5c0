"""The feed: keyset pagination, filters, search, visibility and clumsy input."""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, event, text
from sqlmodel import Session

from benchmax.models import EvidenceKind, EvidenceState, ReviewState, Test, TestState
from benchmax.models._base import utcnow
from benchmax.services.catalog.linking import link_declared_setup
from benchmax.services.catalog.seed import seed_catalog
from benchmax.services.errors import Invalid
from benchmax.services.feed import (
    FeedFilters,
    decode_cursor,
    encode_cursor,
    list_feed,
)
from tests.support.factories import make_evidence, make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
HIDDEN_STATES = [s for s in TestState if s != TestState.PUBLIC]


def _walk(session: Session, filters: FeedFilters, limit: int) -> list[list[str]]:
    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        page = list_feed(session, filters, cursor, limit)
        pages.append([card.id for card in page.items])
        if page.next_cursor is None:
            return pages
        cursor = page.next_cursor


def _ids(session: Session, **filters: str) -> set[str]:
    return {card.id for card in list_feed(session, FeedFilters(**filters), limit=100).items}


@BOTH
@pytest.mark.parametrize("limit", [1, 4, 5, 7])
def test_pagination_walks_every_public_test_once_in_order(session: Session, limit: int) -> None:
    base = utcnow()
    author = make_user(session)
    public: list[Test] = []
    for n in range(20):
        # Four Tests share each timestamp, so the id must break ties between pages.
        published = base - timedelta(minutes=n // 4)
        public.append(make_test(session, author, published_at=published))
        hidden = HIDDEN_STATES[n % len(HIDDEN_STATES)]
        make_test(session, author, state=hidden, published_at=published)
    session.commit()

    pages = _walk(session, FeedFilters(), limit)

    walked = [test_id for page in pages for test_id in page]
    expected = sorted(public, key=lambda t: (t.published_at, t.id), reverse=True)
    assert walked == [test.id for test in expected]
    assert all(pages), "no empty trailing page"
    assert all(len(page) == limit for page in pages[:-1])


@BOTH
def test_filters_alone_and_combined(session: Session) -> None:
    seed_catalog(session)
    alice = make_user(session, handle="alice")
    bob = make_user(session, handle="bob")
    cases: dict[str, Any] = {
        "sonnet": {
            "contributor": alice,
            "model_label": "Claude Sonnet 4.5",
            "reasoning_label": "high",
        },
        "sonnet_alias": {
            "contributor": bob,
            "model_label": "sonnet 4.5",
            "harness_label": "Cursor",
        },
        "gpt5": {"contributor": bob, "model_label": "GPT-5", "harness_label": "codex"},
        "finetune": {
            "contributor": alice,
            "model_label": "My Finetune",
            "harness_label": "homegrown",
            "reasoning_label": "low",
            "title": "Rotating hexagon at 100% speed",
        },
        "future_gpt": {
            "contributor": alice,
            "model_label": "gpt-7-ultra",
            "harness_label": "Aider",
            "reasoning_label": "HIGH",
        },
    }
    review_states = {"sonnet": ReviewState.REVIEWED, "gpt5": ReviewState.RANKED}
    tests: dict[str, Test] = {}
    for name, values in cases.items():
        tests[name] = make_test(
            session, review_state=review_states.get(name, ReviewState.AWAITING), **values
        )
        link_declared_setup(session, tests[name])
    hidden = make_test(session, alice, model_label="GPT-5", state=TestState.REMOVED)
    link_declared_setup(session, hidden)
    session.commit()

    table: list[tuple[dict[str, str], set[str]]] = [
        ({"family": "claude"}, {"sonnet", "sonnet_alias"}),
        ({"family": "gpt"}, {"gpt5", "future_gpt"}),
        ({"model": "claude-sonnet-4-5"}, {"sonnet", "sonnet_alias"}),
        ({"model": "CLAUDE_SONNET_4.5"}, {"sonnet", "sonnet_alias"}),
        ({"model": "my-finetune"}, {"finetune"}),
        ({"model": "nothing like it"}, set()),
        ({"harness": "claude-code"}, {"sonnet"}),
        ({"harness": "Codex CLI"}, {"gpt5"}),
        ({"harness": "HomeGrown"}, {"finetune"}),
        ({"reasoning": "High"}, {"sonnet", "future_gpt"}),
        ({"contributor": "alice"}, {"sonnet", "finetune", "future_gpt"}),
        ({"status": "reviewed"}, {"sonnet"}),
        ({"status": "ranked"}, {"gpt5"}),
        ({"status": "awaiting"}, {"sonnet_alias", "finetune", "future_gpt"}),
        ({"q": "HEXAGON"}, {"finetune"}),
        ({"q": "100%"}, {"finetune"}),  # % is a literal, not a wildcard
        ({"q": "hexagon speed"}, {"finetune"}),
        ({"q": "hexagon gpt"}, set()),  # every word must match
        ({"q": "codex"}, {"gpt5"}),  # declared labels are searched too
        ({"family": "gpt", "reasoning": "high", "contributor": "alice"}, {"future_gpt"}),
        ({"family": "claude", "harness": "cursor", "status": "awaiting"}, {"sonnet_alias"}),
        ({"family": "no-such-family"}, set()),
        ({"contributor": "nobody"}, set()),
    ]
    names = {test.id: name for name, test in tests.items()}
    for filters, expected in table:
        got = {names[test_id] for test_id in _ids(session, **filters)}
        assert got == expected, filters


@BOTH
def test_card_shows_the_setup_and_only_an_approved_thumbnail(session: Session) -> None:
    author = make_user(session, handle="carol", display_name="Carol C")
    test = make_test(
        session,
        author,
        title="",
        prompt="\n  First line of the prompt  \nsecond line",
        model_version_label="20250929",
        attempts=3,
        evidence_kinds="image,text",
    )
    image = make_evidence(session, test, kind=EvidenceKind.IMAGE, safe_name="shot.png")
    test.thumbnail_evidence_id = image.id
    blocked = make_test(session, author)
    blocked_image = make_evidence(session, blocked, state=EvidenceState.QUARANTINED)
    blocked.thumbnail_evidence_id = blocked_image.id
    session.commit()

    cards = {card.id: card for card in list_feed(session, FeedFilters()).items}

    card = cards[test.id]
    assert card.title == "First line of the prompt"
    assert (card.contributor_handle, card.contributor_display_name) == ("carol", "Carol C")
    assert (card.model_label, card.model_version_label, card.attempts) == (
        "Claude Sonnet 4.5",
        "20250929",
        3,
    )
    assert card.evidence_kinds == ["image", "text"]
    assert (card.thumbnail_evidence_id, card.thumbnail_safe_name) == (image.id, "shot.png")
    assert card.to_json()["published_at"].endswith("+00:00")
    assert (cards[blocked.id].thumbnail_evidence_id, cards[blocked.id].thumbnail_safe_name) == (
        None,
        None,
    )
    page = json.loads(json.dumps(list_feed(session, FeedFilters()).to_json()))
    assert page["next_cursor"] is None
    assert {item["id"] for item in page["items"]} == {test.id, blocked.id}


def test_contributor_page_is_the_same_feed_narrowed(session: Session) -> None:
    alice = make_user(session, handle="alice")
    mine = [make_test(session, alice) for _ in range(3)]
    make_test(session, alice, state=TestState.PROCESSING)
    make_test(session)
    session.commit()

    pages = _walk(session, FeedFilters(contributor="alice"), limit=2)

    assert sorted(test_id for page in pages for test_id in page) == sorted(t.id for t in mine)


def test_cursor_round_trips() -> None:
    moment = utcnow()
    assert decode_cursor(encode_cursor(moment, "abcdefghjkmnpqrs")) == (moment, "abcdefghjkmnpqrs")
    naive = moment.replace(tzinfo=None)  # how SQLite returns it
    assert decode_cursor(encode_cursor(naive, "abcdefghjkmnpqrs"))[0] == moment


def _b64(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        "!!!",
        "a",
        "x" * 10_000,
        "é",
        _b64("no separator"),
        _b64("2025-01-01T00:00:00+00:00|abcdefghjkmnpqrs|extra"),
        _b64("yesterday|abcdefghjkmnpqrs"),
        _b64("2025-01-01T00:00:00|abcdefghjkmnpqrs"),  # no timezone
        _b64("2025-01-01T00:00:00+00:00|' OR 1=1 --"),
        _b64("2025-01-01T00:00:00+00:00|ABCDEFGHJKMNPQRS"),
        base64.urlsafe_b64encode(b"\xff\xfe\x00").decode(),
    ],
)
def test_malformed_cursors_are_refused(session: Session, cursor: str) -> None:
    with pytest.raises(Invalid):
        list_feed(session, FeedFilters(), cursor)


def test_from_query_is_forgiving_about_shape_and_size() -> None:
    filters = FeedFilters.from_query(
        {
            "family": ["claude", "gpt"],
            "contributor": "  @alice ",
            "status": "REVIEWED",
            "q": "x" * 10_000,
            "model": "gpt\x00-5\n",
            "cursor": "ignored here",
            "utm_source": "ignored",
        }
    )

    assert filters.family == "claude"
    assert filters.contributor == "alice"
    assert filters.status == "reviewed"
    assert len(filters.q) == 200
    assert filters.model == "gpt-5"
    assert FeedFilters.from_query({"q": "   "}) == FeedFilters()
    assert filters.to_query() == {
        "family": "claude",
        "model": "gpt-5",
        "contributor": "alice",
        "status": "reviewed",
        "q": "x" * 200,
    }


def test_unknown_status_is_a_clear_error() -> None:
    with pytest.raises(Invalid, match="awaiting, reviewed, ranked"):
        FeedFilters.from_query({"status": "best"})


@BOTH
def test_clumsy_filters_never_break_the_query(session: Session) -> None:
    make_test(session)
    session.commit()

    clumsy = [
        {"q": "%_\\" * 100},
        {"q": "' OR 1=1; --"},
        {"model": "---"},  # names nothing once normalised, so matches nothing
        {"reasoning": "..."},
        {"harness": "\u200bnowhere"},
        {"q": "\U0001d518\U0001d52b\U0001d526"},
    ]
    for query in clumsy:
        assert list_feed(session, FeedFilters.from_query(query)).items == []
    assert len(list_feed(session, FeedFilters(), limit=10_000).items) == 1
    assert len(list_feed(session, FeedFilters(), limit=-5).items) == 1


def _plans(engine: Engine, session: Session, filters: FeedFilters, cursor: str | None) -> str:
    """EXPLAIN QUERY PLAN of the statement list_feed sends for the page (SQLite)."""
    captured: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, params: Any, *_: Any) -> None:
        if "ORDER BY test.published_at DESC" in statement:
            captured.append((statement, params))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        list_feed(session, filters, cursor)
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    statement, params = captured[-1]
    rows = session.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", params)
    return "\n".join(str(row[-1]) for row in rows)


@pytest.mark.parametrize(
    ("filters", "index"),
    [
        (FeedFilters(), "ix_test_feed"),
        (FeedFilters(contributor="alice"), "ix_test_contributor_feed"),
    ],
)
def test_pages_are_index_range_scans(
    engine: Engine, session: Session, filters: FeedFilters, index: str
) -> None:
    alice = make_user(session, handle="alice")
    others = [make_user(session) for _ in range(5)]
    tests = [make_test(session, alice) for _ in range(3)]
    for n in range(60):  # enough rows that the planner's statistics mean something
        make_test(session, others[n % 5])
    session.commit()
    session.connection().execute(text("ANALYZE"))
    cursor = encode_cursor(tests[1].published_at or utcnow(), tests[1].id)

    plan = _plans(engine, session, filters, cursor)

    assert f"USING INDEX {index}" in plan or f"USING COVERING INDEX {index}" in plan, plan
    assert "published_at" in plan, plan  # the cursor bounds the index range...
    assert "<" in plan, plan  # ...from above, so earlier pages are never read
    assert "TEMP B-TREE" not in plan, plan  # rows come out of the index already ordered
