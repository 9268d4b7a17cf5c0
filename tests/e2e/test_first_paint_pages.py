"""Every page's first paint, as the server sends it and as Chromium draws it: a title, a
description and Open Graph tags in the raw HTML, the live header on the pages whose document
is an empty shell, and the main column where the live page will put it."""

from __future__ import annotations

import re
import secrets

import httpx
import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from sqlmodel import Session

from tests.e2e.conftest import (
    ARTIFACTS,
    BLOCKED_LOAD,
    DESKTOP,
    PHONE,
    LiveApp,
    allow_console_error,
    wait_ready,
)
from tests.support.factories import make_test, make_user

# Every page route; {test} and {handle} are filled in with a public Test and its author.
PAGES = (
    "/",
    "/tests/{test}",
    "/u/{handle}",
    "/leaderboard",
    "/models",
    "/models/claude-sonnet",
    "/prompts",
    "/prompts/{test}",
    "/judges/{test}",
    "/submit",
    "/me",
    "/sign-in",
    "/methodology",
    "/privacy",
    "/terms",
    "/security",
    "/moderation",
    "/operations",
)
TAGS = ("description", "og:title", "og:description", "og:type", "og:url")
# Where the main column's content starts before any script: the first paint's view where the
# server drew one, else the main column the front end rendered at build time.
MAIN_TOP = """() => {
  const main = document.querySelector('#bm-first-paint .fp-main')
    || document.getElementById('main');
  return main ? main.getBoundingClientRect().top : null;
}"""


@pytest.fixture(scope="module")
def made(live_app: LiveApp) -> dict[str, str]:
    handle = "paint" + secrets.token_hex(3)
    with Session(live_app.engine) as session:
        who = make_user(session, handle=handle, display_name="Even Painter")
        test = make_test(session, who, title="An even first paint")
        session.commit()
        return {"test": test.id, "handle": handle}


def _head(html: str) -> dict[str, str]:
    head = html.split("</head>")[0]
    found = dict(re.findall(r'<meta (?:name|property)="([^"]+)" content="([^"]*)"', head))
    titles = re.findall(r"<title[^>]*>([^<]+)</title>", head)
    assert len(titles) == 1, titles
    found["title"] = titles[0]
    return found


@pytest.mark.parametrize("route", PAGES)
def test_every_page_tells_what_it_is_before_any_script(
    live_app: LiveApp, made: dict[str, str], route: str
) -> None:
    path = route.format(**made)
    html = httpx.get(live_app.url + path, follow_redirects=True, timeout=30).text
    head = _head(html)
    for tag in TAGS:
        assert head.get(tag, "").strip(), (path, tag)
    assert head["og:title"] == head["title"]
    assert head["og:url"].startswith(live_app.url + path)


@pytest.mark.parametrize("route", ["/tests/{test}", "/u/{handle}"])
def test_a_shell_page_arrives_with_the_live_header(
    live_app: LiveApp, made: dict[str, str], route: str
) -> None:
    body = httpx.get(live_app.url + route.format(**made), timeout=30).text.split("</head>")[1]
    header = re.search(r"<header\b.*?</header>", body, re.DOTALL)
    assert header, "no header in the first paint"
    for words in ('aria-label="Main"', ">Leaderboard</a>", ">Sign in</a>", "BenchMax home"):
        assert words in header.group(0)


def _first_paint_top(page: Page) -> float:
    top = page.evaluate(MAIN_TOP)
    assert top is not None
    return float(top)


@pytest.mark.parametrize(
    "route", ["/", "/tests/{test}", "/u/{handle}", "/leaderboard", "/models", "/prompts", "/submit"]
)
def test_main_stays_where_the_first_paint_put_it(
    live_app: LiveApp, browser: Browser, made: dict[str, str], route: str
) -> None:
    path = route.format(**made)
    slug = path.strip("/").split("/")[0] or "feed"
    sizes: tuple[tuple[str, ViewportSize], ...] = (("desktop", DESKTOP), ("phone", PHONE))
    (ARTIFACTS / "shots").mkdir(parents=True, exist_ok=True)
    for name, size in sizes:
        first = browser.new_context(viewport=size).new_page()
        first.route("**/*.js", lambda route: route.abort())  # only what the server sent
        # The blocked scripts are reported as failed loads; nothing else may fail.
        allow_console_error(first, BLOCKED_LOAD)
        first.goto(live_app.url + path, wait_until="domcontentloaded")
        painted = _first_paint_top(first)
        first.screenshot(path=str(ARTIFACTS / "shots" / f"even-{slug}-{name}-first.png"))
        first.context.close()

        live = browser.new_context(viewport=size).new_page()
        live.goto(live_app.url + path)
        wait_ready(live)
        expect(live.locator("#bm-first-paint")).to_have_count(0)
        box = live.locator("#main").bounding_box()
        assert box is not None
        hydrated = box["y"]
        live.screenshot(path=str(ARTIFACTS / "shots" / f"even-{slug}-{name}-live.png"))
        live.context.close()
        assert abs(hydrated - painted) <= 4, (path, name, painted, hydrated)
