"""The HTML step's first view of the feed and a contributor page: the cards the live list will
show, escaped, public Tests only, in the feed service's own order."""

from __future__ import annotations

from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest
from sqlmodel import Session
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient

from benchmax.context import AppContext
from benchmax.first_paint.middleware import FirstPaintMiddleware
from benchmax.models import EvidenceKind, EvidenceState, ReviewState, TestState
from benchmax.services.dates import stamp
from benchmax.services.feed import FeedFilters, list_feed
from tests.support.factories import make_evidence, make_test, make_user

SHELL = (
    '<!DOCTYPE html><html><head><title>x</title></head><body><div id="root"></div></body></html>'
)
EVIL = "<script>alert('title')</script> & \"quotes\""


def _shell(_request: Request) -> Response:
    return HTMLResponse(SHELL)


@pytest.fixture
def client(app_ctx: AppContext) -> TestClient:
    return TestClient(FirstPaintMiddleware(Starlette(routes=[Route("/{p:path}", _shell)]), app_ctx))


class _Cards(HTMLParser):
    """Each first-view card's title text and link, as a browser would parse them."""

    def __init__(self) -> None:
        super().__init__()
        self.titles: list[str] = []
        self.links: list[str] = []
        self.images: list[str] = []
        self.scripts = 0
        self._depth = 0  # > 0 inside a card title

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.scripts += tag == "script"
        if tag == "h2" and values.get("class") == "fp-card-title":
            self._depth = 1
            self.titles.append("")
        elif tag == "a" and self._depth:
            self.links.append(values.get("href") or "")
        elif tag == "img" and values.get("class") == "fp-thumb":
            self.images.append(values.get("src") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "h2":
            self._depth = 0

    def handle_data(self, data: str) -> None:
        if self._depth:
            self.titles[-1] += data


def _cards(html: str) -> _Cards:
    parser = _Cards()
    parser.feed(html)
    return parser


def test_the_feed_shows_its_first_page_escaped_in_the_feed_order(
    app_ctx: AppContext, client: TestClient
) -> None:
    with Session(app_ctx.engine) as session:
        who = make_user(session, display_name="Ada <b>bold</b>")
        evil = make_test(session, who, title=EVIL)
        plain = make_test(session, who, title="A plain title")
        session.commit()
        expected = [card.id for card in list_feed(session, FeedFilters()).items]
        ids = {evil.id, plain.id}
    response = client.get("/")
    assert response.status_code == 200
    cards = _cards(response.text)
    assert cards.links == [f"/tests/{test_id}" for test_id in expected]
    assert set(cards.links) == {f"/tests/{test_id}" for test_id in ids}
    # The title is text: the page's one script is the step's own, never the title's.
    assert EVIL in cards.titles
    assert cards.scripts == 1
    assert "<script>alert" not in response.text
    assert "<b>bold</b>" not in response.text
    assert "Ada &lt;b&gt;bold&lt;/b&gt;" in response.text


@pytest.mark.parametrize(
    "state",
    [TestState.REMOVED, TestState.NEEDS_ATTENTION, TestState.PROCESSING, TestState.DRAFT],
)
def test_tests_that_are_not_public_never_appear(
    app_ctx: AppContext, client: TestClient, state: TestState
) -> None:
    with Session(app_ctx.engine) as session:
        who = make_user(session, handle="hider")
        make_test(session, who, title="Shown to all")
        make_test(session, who, title="Secret title", prompt="secret prompt", state=state)
        session.commit()
    for path in ("/", "/u/hider"):
        html = client.get(path).text
        assert _cards(html).titles == ["Shown to all"], path
        assert "Secret title" not in html
        assert "secret prompt" not in html


def test_a_contributor_page_lists_only_their_tests(app_ctx: AppContext, client: TestClient) -> None:
    published = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
    joined = datetime(2026, 10, 2, 8, 0, tzinfo=UTC)
    with Session(app_ctx.engine) as session:
        poet = make_user(session, handle="poet", display_name="The Poet", created_at=joined)
        make_test(session, poet, title="By the poet", published_at=published)
        make_test(session, make_user(session), title="By someone else")
        session.commit()
    html = client.get("/u/poet").text
    assert _cards(html).titles == ["By the poet"]
    assert '<h1 class="fp-page-title">The Poet</h1>' in html
    # The line under the name as the live page has it, so nothing moves when it takes over.
    assert (
        '<p class="fp-intro">@poet · 1 Test · joined <time class="time-ago" '
        f'datetime="2026-10-02T08:00:00+00:00" title="02 Oct 2026, 08:00 UTC">'
        f"{stamp(joined).relative}</time></p>"
    ) in html
    # When, as the live card says it: in words, the exact time on hover (components/dates).
    when = stamp(published)
    assert (
        f'<time class="time-ago" datetime="2026-11-30T09:30:00+00:00" '
        f'title="30 Nov 2026, 09:30 UTC">{when.relative}</time>'
    ) in html


def test_the_feed_follows_the_filters_in_its_address(
    app_ctx: AppContext, client: TestClient
) -> None:
    with Session(app_ctx.engine) as session:
        make_test(session, title="Reviewed one", review_state=ReviewState.REVIEWED)
        make_test(session, title="Awaiting one")
        session.commit()
    assert _cards(client.get("/?status=reviewed&family=any").text).titles == ["Reviewed one"]
    # Filters the feed refuses leave the list to the page, which explains them.
    refused = client.get("/?status=bogus")
    assert refused.status_code == 200
    assert _cards(refused.text).titles == []
    assert 'class="fp-bar fp-card"' in refused.text


def test_thumbnails_are_approved_images_on_the_user_content_origin(
    app_ctx: AppContext, client: TestClient
) -> None:
    with Session(app_ctx.engine) as session:
        shown = make_test(session, title="With a picture")
        image = make_evidence(session, shown, kind=EvidenceKind.IMAGE, safe_name="pic.png")
        shown.thumbnail_evidence_id = image.id
        held = make_test(session, title="Picture still being checked")
        pending = make_evidence(
            session, held, kind=EvidenceKind.IMAGE, state=EvidenceState.QUARANTINED
        )
        held.thumbnail_evidence_id = pending.id
        session.commit()
        image_id = image.id
    images = _cards(client.get("/").text).images
    assert images == [f"{app_ctx.settings.usercontent_origin}/e/{image_id}/pic.png"]


def test_the_view_lands_in_the_body_even_when_a_head_script_names_the_tag(
    app_ctx: AppContext,
) -> None:
    shell = (
        "<html><head><script>/* moves the view out of <body> */</script></head>"
        '<body class="x"><div id="root"></div></body></html>'
    )
    inner = Starlette(routes=[Route("/", lambda _request: HTMLResponse(shell))])
    html = TestClient(FirstPaintMiddleware(inner, app_ctx)).get("/").text
    head, body = html.split("</head>")
    assert '<div id="bm-first-paint">' not in head
    assert body.startswith('<body class="x"><div id="bm-first-paint">')
