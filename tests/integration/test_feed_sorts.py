"""The feed's orders (newest, most reviewed, highest reviewed score, relevance), their
cursors, tampered and mismatched cursors, and the bounded results count, on both engines."""

from __future__ import annotations

import base64
from datetime import timedelta

import pytest
from sqlmodel import Session, select
from starlette.testclient import TestClient

from benchmax.models import ModelFamily, Test, TestState, User
from benchmax.models._base import utcnow
from benchmax.services.catalog import family_detail
from benchmax.services.catalog.seed import seed_catalog
from benchmax.services.errors import Invalid
from benchmax.services.feed import FeedFilters, count_feed, list_feed
from benchmax.services.feed_order import SORTS
from benchmax.services.moderation.reviews import mean_score, refresh_review_state
from tests.support.factories import make_review, make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


def _b64(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _review(session: Session, test: Test, reviewer: User, *scores: int) -> None:
    for score in scores:
        make_review(session, test, reviewer, score=score)
    refresh_review_state(session, test)
    session.flush()


def _walk(session: Session, filters: FeedFilters, limit: int) -> list[str]:
    ids: list[str] = []
    cursor: str | None = None
    while True:
        page = list_feed(session, filters, cursor, limit)
        ids += [card.id for card in page.items]
        if page.next_cursor is None:
            return ids
        cursor = page.next_cursor


def _seed(session: Session) -> dict[str, Test]:
    """Nine public Tests with ties in every key, plus hidden ones that must never show."""
    author, reviewer = make_user(session), make_user(session)
    base = utcnow()
    tests: dict[str, Test] = {}
    # name: (minutes ago, review scores); two share a timestamp so the id breaks the tie.
    plan = {
        "a": (1, ()),
        "b": (2, (90,)),
        "c": (2, (40, 60)),
        "d": (3, (90,)),
        "e": (4, (10, 20, 30)),
        "f": (5, ()),
        "g": (6, (50, 51)),
        "h": (6, (100,)),
        "i": (7, ()),
    }
    for name, (ago, scores) in plan.items():
        test = make_test(
            session, author, title=f"queue {name}", published_at=base - timedelta(minutes=ago)
        )
        _review(session, test, reviewer, *scores)
        tests[name] = test
    hidden = make_test(session, author, state=TestState.REMOVED, title="queue hidden")
    _review(session, hidden, reviewer, 100, 100, 100, 100)
    session.commit()
    return tests


def _expected(tests: dict[str, Test], sort: str) -> list[str]:
    rows = list(tests.values())

    def newest(t: Test) -> tuple[object, str]:
        return (t.published_at, t.id)

    if sort == "most_reviewed":
        rows.sort(key=lambda t: (t.review_count, *newest(t)), reverse=True)
    elif sort == "top_score":
        rows = [t for t in rows if t.review_score is not None]
        rows.sort(key=lambda t: (t.review_score, *newest(t)), reverse=True)
    else:
        rows.sort(key=newest, reverse=True)
    return [t.id for t in rows]


@BOTH
@pytest.mark.parametrize("sort", ["newest", "most_reviewed", "top_score"])
@pytest.mark.parametrize("limit", [1, 2, 4, 20])
def test_every_order_pages_through_each_test_once(session: Session, sort: str, limit: int) -> None:
    tests = _seed(session)

    assert _walk(session, FeedFilters(sort=sort), limit) == _expected(tests, sort)
    # With a search the same order holds among the matches.
    assert _walk(session, FeedFilters(q="queue", sort=sort), limit) == _expected(tests, sort)


@BOTH
def test_review_counts_and_scores_follow_current_reviews(session: Session) -> None:
    author, reviewer = make_user(session), make_user(session)
    test = make_test(session, author)
    first = make_review(session, test, reviewer, score=20)
    make_review(session, test, reviewer, score=81)
    refresh_review_state(session, test)
    assert (test.review_count, test.review_score) == (2, 51)  # 50.5 rounds half up
    make_review(session, test, reviewer, score=100, corrects_review_id=first.id)
    refresh_review_state(session, test)
    session.commit()

    card = list_feed(session, FeedFilters(sort="top_score")).items[0]
    assert (card.review_count, card.review_score) == (2, 91)  # 81 and 100; 20 was corrected
    assert card.to_json()["review_score"] == 91


def test_mean_score_rounds_half_up() -> None:
    assert mean_score([]) is None
    assert mean_score([0]) == 0
    assert mean_score([1, 2]) == 2
    assert mean_score([2, 3]) == 3
    assert mean_score([10, 20, 30]) == 20
    assert mean_score([100, 99]) == 100


@BOTH
def test_a_cursor_only_works_with_its_own_order(session: Session) -> None:
    _seed(session)
    cursors = {
        sort: list_feed(session, FeedFilters(q="queue", sort=sort), limit=1).next_cursor
        for sort in SORTS
    }
    assert all(cursors.values()), cursors
    assert len(set(cursors.values())) == len(SORTS)  # every order's cursor looks different

    for issued_by, cursor in cursors.items():
        for sort in SORTS:
            filters = FeedFilters(q="queue", sort=sort)
            if sort == issued_by:
                assert list_feed(session, filters, cursor, limit=1).items
            else:
                with pytest.raises(Invalid) as caught:
                    list_feed(session, filters, cursor, limit=1)
                assert caught.value.code == "invalid_cursor"


STAMP = "2025-01-01T00:00:00.000000+00:00"
GOOD_ID = "abcdefghjkmnpqrs"


@BOTH
@pytest.mark.parametrize("sort", ["most_reviewed", "top_score"])
@pytest.mark.parametrize(
    "raw",
    [
        f"x|1|{STAMP}|{GOOD_ID}",  # unknown tag
        f"c|-1|{STAMP}|{GOOD_ID}",
        f"c|1.5|{STAMP}|{GOOD_ID}",
        f"c|99999999999|{STAMP}|{GOOD_ID}",
        f"c|1e3|{STAMP}|{GOOD_ID}",
        f"c|1|2025-01-01T00:00:00|{GOOD_ID}",  # no timezone
        f"c|1|{STAMP}|' OR 1=1 --",
        f"c|1|{STAMP}|{GOOD_ID}|extra",
        f"c|1|{STAMP}",
        f"c| 1|{STAMP}|{GOOD_ID}",
        "",
    ],
)
def test_tampered_keyed_cursors_are_refused(session: Session, sort: str, raw: str) -> None:
    make_test(session)
    session.commit()
    # The right tag for this order, so only the tampered part can be what fails.
    cursor = _b64(raw.replace("c|", "s|", 1) if sort == "top_score" else raw) or "!"
    with pytest.raises(Invalid) as caught:
        list_feed(session, FeedFilters(sort=sort), cursor)
    assert caught.value.code == "invalid_cursor"


@BOTH
def test_the_api_takes_each_sort_and_answers_400_for_tampering(
    api_client: TestClient, session: Session
) -> None:
    tests = _seed(session)
    for sort in ("newest", "most_reviewed", "top_score"):
        first = api_client.get("/api/v1/tests", params={"sort": sort, "limit": 3})
        assert first.status_code == 200
        body = first.json()
        assert [item["id"] for item in body["items"]] == _expected(tests, sort)[:3]
        rest = api_client.get(
            "/api/v1/tests", params={"sort": sort, "limit": 100, "cursor": body["next_cursor"]}
        )
        assert [item["id"] for item in rest.json()["items"]] == _expected(tests, sort)[3:]
        wrong = "top_score" if sort != "top_score" else "most_reviewed"
        mismatched = api_client.get(
            "/api/v1/tests", params={"sort": wrong, "cursor": body["next_cursor"]}
        )
        assert mismatched.status_code == 400
        assert mismatched.json()["error"]["code"] == "invalid_cursor"
    upper = api_client.get("/api/v1/tests", params={"sort": "TOP_SCORE"})
    assert upper.status_code == 200
    for params in ({"sort": "score; DROP TABLE test"}, {"sort": "x" * 5000}):
        bad = api_client.get("/api/v1/tests", params=params)
        assert bad.status_code == 400
        assert bad.json()["error"]["code"] == "invalid_filter"
    for cursor in ("!!!", _b64(f"s|101|{STAMP}|{GOOD_ID}|"), "x" * 5000):
        bad = api_client.get("/api/v1/tests", params={"sort": "top_score", "cursor": cursor})
        assert bad.status_code == 400
        assert bad.json()["error"]["code"] == "invalid_cursor"


@BOTH
def test_the_count_is_honest_and_bounded(session: Session) -> None:
    _seed(session)
    assert count_feed(session, FeedFilters()).text == "9 Tests"
    assert count_feed(session, FeedFilters(sort="top_score")).text == "6 Tests"
    assert count_feed(session, FeedFilters(q="queue")).text == "9 Tests"
    assert count_feed(session, FeedFilters(q="nowhere")).text == "0 Tests"
    assert count_feed(session, FeedFilters(contributor="nobody")).text == "0 Tests"
    assert count_feed(session, FeedFilters(q="queue"), cap=3).text == "3+ Tests"
    one = count_feed(session, FeedFilters(q="queue"), cap=9)
    assert (one.count, one.more) == (9, False)
    assert count_feed(session, FeedFilters(q='"queue a"')).text == "1 Test"


@BOTH
@pytest.mark.parametrize("sort", ["newest", "most_reviewed", "top_score"])
def test_a_contributor_and_a_family_page_in_every_order(session: Session, sort: str) -> None:
    """The list pages' sort menus ask the feed's own query with one more filter: the same
    order among that contributor's (or family's) Tests, paged to the end, no one else's."""
    seed_catalog(session)
    family = session.exec(select(ModelFamily).where(ModelFamily.slug == "claude")).one()
    tests = _seed(session)
    author = session.get(User, tests["a"].contributor_id)
    assert author is not None
    for test in tests.values():
        test.family_id = family.id
    make_test(session, title="someone else's", family_id=None)
    session.commit()
    expected = _expected(tests, sort)

    assert _walk(session, FeedFilters(contributor=author.handle, sort=sort), 2) == expected
    ids: list[str] = []
    cursor: str | None = None
    while True:
        found = family_detail(session, "claude", cursor, 3, sort)
        assert found is not None
        ids += [card.id for card in found.page.items]
        if found.page.next_cursor is None:
            break
        cursor = found.page.next_cursor
    assert ids == expected
