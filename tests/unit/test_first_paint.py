"""The HTML step: link-preview tags, escaping, and no leak of a Test that is not public."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from sqlmodel import Session
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.testclient import TestClient

from benchmax.context import AppContext
from benchmax.first_paint.middleware import FirstPaintMiddleware
from benchmax.models import EvidenceKind, EvidenceState, TestState
from tests.support.factories import make_evidence, make_test, make_user

SHELL = (
    '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/></head>'
    '<body><div class="radix-themes"></div><script>window.x=1</script></body></html>'
)
EVIL_TITLE = "Quote \" and ' </title><script>alert(1)</script> \u202egnp.exe \x00 ok"


def _shell(_request: Request) -> Response:
    return HTMLResponse(SHELL, headers={"ETag": '"same-for-every-url"'})


def _json(_request: Request) -> Response:
    return JSONResponse({"title": "<b>not html</b>"})


@pytest.fixture
def client(app_ctx: AppContext) -> TestClient:
    inner = Starlette(routes=[Route("/api/v1/x", _json), Route("/{path:path}", _shell)])
    return TestClient(FirstPaintMiddleware(inner, app_ctx))


class _Head(HTMLParser):
    """The head as a browser or a link unfurler would parse it."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.titles: list[str] = []
        self.scripts = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "meta" and values.get("content") is not None:
            key = values.get("property") or values.get("name")
            if key:
                self.meta[key] = values["content"] or ""
        self._in_title = tag == "title"
        self.scripts += tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.titles.append(data)


def _parse(html: str) -> _Head:
    parser = _Head()
    parser.feed(html)
    return parser


def test_public_test_gets_its_tags_escaped(app_ctx: AppContext, client: TestClient) -> None:
    with Session(app_ctx.engine) as session:
        who = make_user(session, display_name="Ada <img src=x>")
        test = make_test(session, who, title=EVIL_TITLE, model_label='GPT "5"')
        image = make_evidence(
            session, test, kind=EvidenceKind.IMAGE, safe_name="shot.png", content_type="image/png"
        )
        session.commit()
        test_id, image_id = test.id, image.id
    response = client.get(f"/tests/{test_id}")
    assert response.status_code == 200
    html = response.text
    head = _parse(html)
    # The page's own scripts are the shell's and the step's two, nothing from the title.
    assert head.scripts == 2
    assert "<script>alert(1)" not in html
    assert "<img src=x>" not in html
    title = head.titles[0]
    assert title.startswith("Quote \" and ' </title><script>alert(1)</script>")
    assert "\u202e" not in html
    assert "\x00" not in html
    assert head.meta["og:title"] == title
    assert 'GPT "5"' in head.meta["og:description"]
    assert head.meta["twitter:data1"] == 'GPT "5"'
    assert head.meta["twitter:data2"] == "Ada <img src=x>"
    assert head.meta["og:type"] == "article"
    uc = app_ctx.settings.usercontent_origin
    assert head.meta["og:image"] == f"{uc}/e/{image_id}/shot.png"
    assert head.meta["twitter:card"] == "summary_large_image"
    # The prompt is on the first paint, escaped, and the validators of the shared shell gone.
    assert 'id="fp-prompt"' in html
    assert "etag" not in response.headers
    assert int(response.headers["content-length"]) == response.num_bytes_downloaded


@pytest.mark.parametrize(
    "state", [TestState.REMOVED, TestState.NEEDS_ATTENTION, TestState.PROCESSING]
)
def test_non_public_test_gets_generic_tags(
    app_ctx: AppContext, client: TestClient, state: TestState
) -> None:
    with Session(app_ctx.engine) as session:
        test = make_test(session, title="Secret plans", prompt="the hidden prompt", state=state)
        make_evidence(session, test, kind=EvidenceKind.IMAGE, state=EvidenceState.APPROVED)
        session.commit()
        test_id = test.id
    html = client.get(f"/tests/{test_id}").text
    head = _parse(html)
    assert head.titles == ["BenchMax — community AI Tests"]
    assert "Secret plans" not in html
    assert "hidden prompt" not in html
    assert "og:image" not in head.meta
    assert 'id="fp-prompt"' not in html


@pytest.mark.parametrize("path", ["/tests/nope", "/tests/%3Cscript%3E", "/u/nobody-here"])
def test_unknown_ids_get_generic_tags(client: TestClient, path: str) -> None:
    head = _parse(client.get(path).text)
    assert head.titles == ["BenchMax — community AI Tests"]


def test_profile_tags(app_ctx: AppContext, client: TestClient) -> None:
    with Session(app_ctx.engine) as session:
        make_user(session, handle="poet", display_name="The \u200bPoet")
        session.commit()
    head = _parse(client.get("/u/poet").text)
    assert head.titles == ["The Poet (@poet)"]
    assert head.meta["og:type"] == "profile"


def test_a_page_that_shows_its_content_at_once_gets_no_first_view(client: TestClient) -> None:
    html = client.get("/methodology").text
    assert 'id="bm-page-style"' in html
    assert "html.dark" in html
    assert "bm-first-paint" not in html.split("</head>")[1]


def test_additions_follow_the_documents_own_head_elements(client: TestClient) -> None:
    """React hydrates the head from its first element: ours come after the document's."""
    for path in ("/", "/methodology", "/tests/nope"):
        head = client.get(path).text.split("</head>")[0]
        assert head.index('<meta charSet="utf-8"/>') < head.index("data-first-paint")
        assert head.index("data-first-paint") < head.index('id="bm-page-style"')


def test_pages_are_sent_gzipped_to_browsers_that_accept_it(client: TestClient) -> None:
    plain = client.get("/", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert int(plain.headers["content-length"]) == len(plain.content)
    packed = client.get("/", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["vary"] == "Accept-Encoding"
    assert int(packed.headers["content-length"]) < len(plain.content) / 2
    assert packed.text == plain.text  # httpx undoes the gzip: the same document


def test_non_html_and_api_pass_through(client: TestClient) -> None:
    response = client.get("/api/v1/x")
    assert response.json() == {"title": "<b>not html</b>"}
    assert "bm-page-style" not in client.get("/favicon.ico").text


def test_only_one_title_survives_in_the_head(app_ctx: AppContext, client: TestClient) -> None:
    with Session(app_ctx.engine) as session:
        test = make_test(session, title="Plain")
        session.commit()
        test_id = test.id
    html = client.get(f"/tests/{test_id}").text
    assert len(re.findall(r"<title", html)) == 1


def test_a_page_folder_is_served_without_the_static_servers_slash_redirect(
    app_ctx: AppContext, tmp_path: Path
) -> None:
    """As Reflex's build lays pages out: ``/leaderboard`` is a folder the static server would
    redirect to ``/leaderboard/``, one round trip before any HTML."""
    (tmp_path / "leaderboard").mkdir()
    (tmp_path / "leaderboard" / "index.html").write_text(SHELL.replace("window.x=1", "board"))
    (tmp_path / "index.html").write_text(SHELL)
    static = Starlette(routes=[Mount("/", StaticFiles(directory=tmp_path, html=True))])
    assert TestClient(static).get("/leaderboard", follow_redirects=False).status_code == 307

    served = TestClient(FirstPaintMiddleware(static, app_ctx, frozenset({"/leaderboard"})))
    response = served.get("/leaderboard", follow_redirects=False)
    assert response.status_code == 200
    assert "board" in response.text
    head = _Head()
    head.feed(response.text)
    assert head.meta["og:url"].endswith("/leaderboard")  # the reader's address, not the folder's
    # A folder not named stays the static server's to answer.
    assert served.get("/elsewhere", follow_redirects=False).status_code == 404
