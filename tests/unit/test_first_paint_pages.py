"""Every page's head and first paint: its own title kept or a shell page's set, a description
and Open Graph tags, grey shapes where content waits, and the live header over them."""

from __future__ import annotations

import re

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient

from benchmax.context import AppContext
from benchmax.first_paint.header import live_header
from benchmax.first_paint.middleware import FirstPaintMiddleware

# What the front end builds: a rendered page (its title, the header with its generated
# classes, one style rule before the header and one inside it) and a parameterised page's
# empty shell.
HEADER = (
    '<header class="css-hd"><a id="nav-home" class="rt-Link css-ln" href="/">BenchMax</a>'
    '<style data-emotion="css bt">.css-bt{color:red}</style>'
    '<a id="nav-sign-in" class="css-bt" href="/sign-in">Sign in</a></header>'
)
ROOT = '<div data-is-root-theme="true" data-accent-color="iris" class="radix-themes css-rt">'
BUILT = (
    '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><title>TITLE</title></head>'
    f'<body>{ROOT}<style data-emotion="css hd ln">.css-hd{{top:0}}.css-ln{{gap:1px}}</style>'
    '<style data-emotion="css unused">.css-unused{}</style>'
    f'<div class="shell">{HEADER}<main id="main"></main></div></div></body></html>'
)
SHELL = (
    '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/></head>'
    f"<body>{ROOT}</div><script>window.x=1</script></body></html>"
)


def _built(request: Request) -> Response:
    title = request.path_params["page"].title()
    return HTMLResponse(BUILT.replace("TITLE", f"{title} · BenchMax"))


def _shell(_request: Request) -> Response:
    return HTMLResponse(SHELL)


@pytest.fixture
def client(app_ctx: AppContext) -> TestClient:
    inner = Starlette(
        routes=[Route("/{page:str}/{key:str}", _shell), Route("/{page:str}{slash:path}", _built)]
    )
    return TestClient(FirstPaintMiddleware(inner, app_ctx))


def _meta(html: str, key: str) -> str:
    found = re.search(rf'<meta (?:name|property)="{key}" content="([^"]*)"', html)
    assert found, key
    return found.group(1)


@pytest.mark.parametrize(
    "path", ["/leaderboard", "/models", "/prompts", "/submit", "/methodology", "/security"]
)
def test_a_built_page_keeps_its_title_and_gets_a_description(client: TestClient, path: str) -> None:
    html = client.get(path).text
    head = html.split("</head>")[0]
    assert re.findall(r"<title[^>]*>([^<]*)</title>", head) == [f"{path[1:].title()} · BenchMax"]
    assert _meta(head, "og:title") == f"{path[1:].title()} · BenchMax"
    assert _meta(head, "description") == _meta(head, "og:description")
    assert "community-run AI Tests: the prompt" not in _meta(head, "description")  # its own
    assert _meta(head, "og:type") == "website"
    assert _meta(head, "og:url") == f"http://localhost:3000{path}"


@pytest.mark.parametrize(
    ("path", "title"),
    [("/judges/j1", "AI judge"), ("/models/m1", "Model"), ("/prompts/p1", "Same prompt")],
)
def test_a_shell_page_gets_its_title_shapes_and_the_live_header(
    client: TestClient, path: str, title: str
) -> None:
    html = client.get(path).text
    head, body = html.split("</head>")
    assert re.search(rf"<title data-first-paint>{title}[^<]* · BenchMax</title>", head)
    assert _meta(head, "og:description")
    view = body.split('<div id="bm-first-paint"')[1]
    # The page's theme, the header cut from a built page (its rules, not its ids), shapes.
    assert view.startswith(' data-accent-color="iris" class="radix-themes css-rt">')
    assert ".css-hd{top:0}" in view
    assert ".css-bt{color:red}" in view
    assert "css-unused" not in view
    assert 'href="/sign-in">Sign in</a></header>' in view
    assert "nav-home" not in view
    assert "nav-sign-in" not in view
    assert view.index("</header>") < view.index('class="fp-bar fp-heading"')


def test_lists_and_the_form_paint_shapes_not_a_spinner(client: TestClient) -> None:
    for path in ("/leaderboard", "/models", "/prompts"):
        assert client.get(path).text.count('class="fp-bar fp-row"') == 6
    assert client.get("/submit").text.count('class="fp-bar fp-field"') == 3


def test_the_header_comes_with_the_rules_of_its_classes_once() -> None:
    document = BUILT
    header = live_header(document)
    assert header.count(".css-hd{top:0}") == 1
    assert header.count(".css-bt{color:red}") == 1
    assert live_header(SHELL) == ""
