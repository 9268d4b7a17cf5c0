"""Full-text search: kept in sync by the database, words/phrases/prefixes, relevance and
newest-first pages, filters, highlighting, and hostile queries on both engines."""

from __future__ import annotations

import base64
import re
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, text
from sqlmodel import Session
from starlette.testclient import TestClient

from benchmax.models import ReviewState, Test, TestState
from benchmax.models._base import utcnow
from benchmax.services.errors import Invalid
from benchmax.services.feed import FeedFilters, list_feed
from benchmax.services.search import Segment, excerpt, highlight, marked_html, parse
from benchmax.services.search import sql as search_sql
from tests.integration.test_feed_queries import _page_statement, _plan
from tests.support.factories import make_test, make_user


def _b64(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


def _found(session: Session, q: str, **filters: str) -> list[str]:
    page = list_feed(session, FeedFilters(q=q, **filters), limit=100)
    return [card.id for card in page.items]


def _corpus(session: Session) -> dict[str, Test]:
    alice = make_user(session, handle="alice")
    now = utcnow()
    rows: dict[str, dict[str, Any]] = {
        "hexagon": {"title": "Rotating hexagon with bouncing balls", "contributor": alice},
        "hexagon_output": {
            "prompt": "Draw a shape that spins.",
            "output_text": "Here is a hexagon rendered with canvas. " * 3,
            "review_state": ReviewState.REVIEWED,
        },
        "phrase": {"prompt": "A red fox jumps over the lazy dog.", "model_label": "GPT-5"},
        "reversed": {"prompt": "The dog was lazy; a fox, red, jumps.", "contributor": alice},
        "accents": {"title": "Café résumé", "harness_label": "Aider"},
        "gpt": {"title": "Labels", "model_label": "gpt-5", "model_version_label": "2025-08"},
    }
    tests = {}
    for n, (name, values) in enumerate(rows.items()):
        tests[name] = make_test(session, published_at=now - timedelta(minutes=n), **values)
    make_test(session, title="hexagon but private", state=TestState.PROCESSING)
    make_test(session, title="hexagon but removed", state=TestState.REMOVED)
    session.commit()
    return tests


@BOTH
def test_words_phrases_prefixes_and_filters(session: Session) -> None:
    tests = _corpus(session)
    ids = {test.id: name for name, test in tests.items()}

    def names(q: str, **filters: str) -> set[str]:
        return {ids[test_id] for test_id in _found(session, q, **filters)}

    assert names("hexagon") == {"hexagon", "hexagon_output"}  # title and output, public only
    assert names("HEXAGON rendered") == {"hexagon_output"}  # every term must match
    assert names("hexag*") == {"hexagon", "hexagon_output"}
    # rendered, red, résumé
    assert names("re*") == {"hexagon_output", "phrase", "reversed", "accents"}
    assert names('"red fox jumps"') == {"phrase"}  # the reversed one has the words, not the phrase
    assert names("red fox jumps") == {"phrase", "reversed"}
    assert names('"lazy dog') == {"phrase"}  # an unclosed quote runs to the end
    assert names("gpt-5") == {"phrase", "gpt"}  # declared labels; "-" only separates
    assert names("2025") == {"gpt"}  # the declared version
    assert names("aider") == {"accents"}  # the harness
    assert names("hexagon", contributor="alice") == {"hexagon"}
    assert names("hexagon", status="reviewed") == {"hexagon_output"}
    assert names("fox", contributor="alice") == {"reversed"}
    assert names("resume") == {"accents"}  # diacritics folded on both engines
    assert names("RÉSUMÉ") == {"accents"}


@BOTH
def test_relevance_ranks_title_first_and_newest_orders_by_date(session: Session) -> None:
    tests = _corpus(session)

    by_relevance = _found(session, "hexagon")
    newest = _found(session, "hexagon", sort="newest")

    assert by_relevance[0] == tests["hexagon"].id  # a title match outranks the output
    assert newest == [tests["hexagon"].id, tests["hexagon_output"].id]  # published order
    older = make_test(session, title="hexagon hexagon", published_at=utcnow() - timedelta(days=9))
    session.commit()
    assert _found(session, "hexagon", sort="newest")[-1] == older.id


@BOTH
@pytest.mark.parametrize("sort", ["relevance", "newest"])
def test_search_pages_walk_every_match_once(session: Session, sort: str) -> None:
    author = make_user(session)
    base = utcnow()
    # The word in the title, the prompt or the output: three distinct scores, ties by id.
    where = ({"title": "queue"}, {"prompt": "a queue"}, {"output_text": "the queue"})
    made = [
        make_test(session, author, **where[n % 3], published_at=base - timedelta(minutes=n // 2))
        for n in range(11)
    ]
    make_test(session, author, title="nothing to see")
    session.commit()

    walked: list[str] = []
    cursor: str | None = None
    while True:
        page = list_feed(session, FeedFilters(q="queue", sort=sort), cursor, limit=3)
        walked.extend(card.id for card in page.items)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor

    assert sorted(walked) == sorted(test.id for test in made)
    assert len(walked) == len(set(walked))
    if sort == "newest":
        expected = sorted(made, key=lambda t: (t.published_at, t.id), reverse=True)
        assert walked == [test.id for test in expected]


@BOTH
def test_the_database_keeps_the_index_in_sync(session: Session) -> None:
    test = make_test(session, title="zebra", state=TestState.PROCESSING)
    session.commit()
    assert _found(session, "zebra") == []  # not public yet

    test.state = TestState.PUBLIC
    session.add(test)
    session.commit()
    assert _found(session, "zebra") == [test.id]

    test.title = "okapi"
    session.add(test)
    session.commit()
    assert (_found(session, "zebra"), _found(session, "okapi")) == ([], [test.id])

    test.state = TestState.REMOVED
    session.add(test)
    session.commit()
    assert _found(session, "okapi") == []

    test.state = TestState.PUBLIC
    session.add(test)
    session.commit()
    session.delete(test)
    session.commit()
    assert _found(session, "okapi") == []
    if session.get_bind().dialect.name == "sqlite":  # FTS5 checks its index against the view
        session.connection().execute(
            text("INSERT INTO test_fts(test_fts, rank) VALUES ('integrity-check', 1)")
        )


@BOTH
def test_cards_mark_matches_without_letting_text_become_markup(session: Session) -> None:
    test = make_test(
        session,
        title='<img src=x onerror="alert(1)"> hexagon &amp;',
        output_text="prefix " * 40 + "the <b>hexagon</b> spins",
    )
    session.commit()

    card = list_feed(session, FeedFilters(q="hexagon onerror")).items[0]
    body = card.to_json()

    assert card.id == test.id
    assert body["highlight"]["title"] == (
        "&lt;img src=x <mark>onerror</mark>=&quot;alert(1)&quot;&gt; <mark>hexagon</mark> &amp;amp;"
    )
    assert "<mark>hexagon</mark>" in body["highlight"]["excerpt"]
    assert "&lt;b&gt;" in body["highlight"]["excerpt"]
    assert body["highlight"]["excerpt"].startswith("…")
    assert "highlight" not in list_feed(session, FeedFilters()).items[0].to_json()


def test_highlight_and_excerpt_segments() -> None:
    terms = parse('"lazy dog" qu* Café')
    assert highlight("The lazy dog quietly left the cafe.", terms) == [
        Segment("The ", False),
        Segment("lazy", True),
        Segment(" ", False),
        Segment("dog", True),
        Segment(" ", False),
        Segment("quietly", True),
        Segment(" left the ", False),
        Segment("cafe", True),
        Segment(".", False),
    ]
    assert excerpt(["no match here", "x " * 500 + "lazy"], terms)[-1] == Segment("lazy", True)
    assert excerpt(["nothing"], terms) == []
    assert marked_html([Segment("<a>", False), Segment("&", True)]) == "&lt;a&gt;<mark>&amp;</mark>"


HOSTILE = [
    '"',
    '"""',
    'unbalanced "quote',
    "NEAR(a b, 2)",
    "a NEAR b",
    "title:hexagon",
    "{title prompt}: x",
    "^start",
    "-exclude",
    "a:b:c",
    "*",
    "**",
    "a* *b",
    "AND",
    "OR NOT",
    "a AND OR b",
    "NOT",
    "x\x00y",
    "x" * 10_000,
    "!!! ??? ...",
    "\U0001f600\U0001f680",
    "'; DROP TABLE test; --",
    "a & b | !c <-> d:* ",
    "\\",
    "()",
    "(((",
    "\u200b\u200d",
    "ǅ ﬁ ẞ İ",
    " ".join(f"w{n}" for n in range(50)),
]


@BOTH
@pytest.mark.parametrize("q", HOSTILE)
def test_hostile_queries_are_answered(api_client: TestClient, session: Session, q: str) -> None:
    make_test(session, title="a b c start exclude hexagon w1 x")
    session.commit()
    for sort in ("relevance", "newest"):
        response = api_client.get("/api/v1/tests", params={"q": q, "sort": sort})
        assert response.status_code == 200, response.text
        assert isinstance(response.json()["items"], list)


SEEDED = "seededseededseed"


@BOTH
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(q=st.text(max_size=300), sort=st.sampled_from(["", "relevance", "newest"]))
def test_random_queries_never_fail(
    api_client: TestClient, session: Session, q: str, sort: str
) -> None:
    if not session.get(Test, SEEDED):
        make_test(session, id=SEEDED, title="Rotating hexagon", prompt="café 4.5 gpt-5")
        session.commit()
    response = api_client.get("/api/v1/tests", params={"q": q, "sort": sort, "limit": "5"})
    assert response.status_code == 200, (q, response.text)
    cursor = response.json()["next_cursor"]
    if cursor:
        again = api_client.get("/api/v1/tests", params={"q": q, "sort": sort, "cursor": cursor})
        assert again.status_code == 200


@BOTH
def test_bad_sort_and_mixed_cursors_are_clear_errors(
    api_client: TestClient, session: Session
) -> None:
    author = make_user(session)
    for _ in range(3):
        make_test(session, author, title="hexagon")
    session.commit()
    newest_cursor = list_feed(session, FeedFilters(), limit=1).next_cursor
    ranked_cursor = list_feed(session, FeedFilters(q="hexagon"), limit=1).next_cursor
    assert newest_cursor
    assert ranked_cursor

    bad_sort = api_client.get("/api/v1/tests", params={"q": "x", "sort": "random"})
    assert bad_sort.status_code == 400
    assert bad_sort.json()["error"]["code"] == "invalid_filter"
    for params in (
        {"q": "hexagon", "cursor": newest_cursor},  # a date cursor on a relevance page
        {"cursor": ranked_cursor},  # a relevance cursor on the plain feed
        {"q": "hexagon", "cursor": _b64("rnan|abcdefghjkmnpqrs")},
        {"q": "hexagon", "cursor": _b64("r1e999|abcdefghjkmnpqrs")},  # infinite
    ):
        response = api_client.get("/api/v1/tests", params=params)
        assert response.status_code == 400, params
        assert response.json()["error"]["code"] == "invalid_cursor"
    with pytest.raises(Invalid):
        list_feed(session, FeedFilters(q="hexagon"), newest_cursor)


@BOTH
@pytest.mark.parametrize("sort", ["relevance", "newest"])
def test_common_word_searches_walk_every_filtered_match_once(
    session: Session, sort: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With many matches SQLite walks the filter's index and probes FTS per row; a tiny
    threshold forces that path here, and pages must still hold exactly the filtered
    matches, each once (PostgreSQL answers the same query its one way)."""
    monkeypatch.setattr(search_sql, "MATCH_PROBE", 3)
    alice, bob = make_user(session, handle="alice"), make_user(session, handle="bob")
    base = utcnow()
    wanted = []
    for n in range(14):
        author = alice if n % 2 else bob
        title = "common word" if n % 3 else "other thing"
        made = make_test(session, author, title=title, published_at=base - timedelta(minutes=n))
        if author is alice and n % 3:
            wanted.append(made)
    session.commit()
    sqlite = session.get_bind().dialect.name == "sqlite"
    assert not sqlite or search_sql.many_matches(session, parse("common"))
    walked: list[str] = []
    cursor: str | None = None
    while True:
        filters = FeedFilters(q="common", sort=sort, contributor="alice")
        page = list_feed(session, filters, cursor, limit=2)
        walked.extend(card.id for card in page.items)
        assert all(card.title_marks for card in page.items)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    if sqlite:  # the walk goes through the contributor's index, never a scan of test
        engine = session.get_bind()
        assert isinstance(engine, Engine)
        statement, params = _page_statement(
            engine, session, FeedFilters(q="common", sort=sort, contributor="alice")
        )
        plan = _plan(session, "sqlite", statement, params)
        assert "ix_test_contributor_feed" in plan, plan
        assert not re.search(r"SCAN test\b(?! USING)", plan), plan
    newest = sorted(wanted, key=lambda t: (t.published_at, t.id), reverse=True)
    if sort == "newest" or sqlite:
        assert walked == [test.id for test in newest]  # recency is the score on this path
    else:
        assert sorted(walked) == sorted(test.id for test in wanted)
