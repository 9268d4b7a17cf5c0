"""Every URL of a thing that is not there answers 404 with the not-found page, as ``curl``
sees it and as a reader does; things that are there keep 200; the panel sits in the middle.
"""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Browser, ViewportSize, expect
from sqlmodel import Session, select

from benchmax.adapters.auth import SESSION_COOKIE
from benchmax.models import Test, TestState
from tests.e2e.conftest import (
    ARTIFACTS,
    DESKTOP,
    PHONE,
    LiveApp,
    Theme,
    allow_console_error,
    not_found_load,
    sign_in,
    wait_ready,
)
from tests.support.factories import make_test, make_user

UNKNOWN_ID = "0" * 26
MISSING = [
    "/tests/bad",
    f"/tests/{UNKNOWN_ID}",
    "/u/bad",
    "/u/nobody-has-this-handle",
    "/judges/bad",
    f"/judges/{UNKNOWN_ID}",
    "/models/bad",
    "/prompts/bad",
    f"/prompts/{'f' * 64}",
    "/definitely/not/here",
]


@pytest.fixture(scope="module")
def sample(live_app: LiveApp) -> Test:
    with Session(live_app.engine) as session:
        found = session.exec(select(Test).where(Test.is_sample)).first()
        assert found is not None
        session.expunge(found)
        return found


def _get(app: LiveApp, path: str, cookies: dict[str, str] | None = None) -> httpx.Response:
    return httpx.get(app.url + path, cookies=cookies, timeout=30, follow_redirects=True)


@pytest.mark.parametrize("path", MISSING)
def test_an_unknown_thing_is_a_404_with_the_not_found_page(live_app: LiveApp, path: str) -> None:
    response = _get(live_app, path)

    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "<html" in response.text
    # The same app document an unknown page gets, which shows the not-found view.
    assert response.text.count("<script") == _get(live_app, "/no/such/page").text.count("<script")


def test_things_that_are_there_keep_200(live_app: LiveApp, sample: Test) -> None:
    found = [
        f"/tests/{sample.id}",
        "/u/benchmax-samples",
        "/models/claude",
        f"/prompts/{sample.prompt_key}",
        "/",
        "/models",
        "/leaderboard",
        "/prompts",
    ]
    assert {path: _get(live_app, path).status_code for path in found} == dict.fromkeys(found, 200)


def test_a_private_test_is_200_for_its_contributor_and_404_for_anyone_else(
    live_app: LiveApp, browser: Browser
) -> None:
    with Session(live_app.engine) as session:
        author = make_user(session, handle="nf-author", auth_subject="local|nf-author")
        private = make_test(session, author, state=TestState.NEEDS_ATTENTION)
        session.commit()
        path = f"/tests/{private.id}"
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        sign_in(page, live_app, "nf-author")
        cookie = next(c["value"] for c in context.cookies() if c["name"] == SESSION_COOKIE)
        response = page.goto(live_app.url + path)
        assert response is not None
        assert response.status == 200
        wait_ready(page)
        expect(page.locator("#test-title")).to_be_visible()
    finally:
        context.close()

    assert _get(live_app, path, {SESSION_COOKIE: cookie}).status_code == 200
    assert _get(live_app, path).status_code == 404


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(("width", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_the_not_found_panel_sits_in_the_middle(
    live_app: LiveApp, browser: Browser, theme: Theme, width: str, viewport: ViewportSize
) -> None:
    context = browser.new_context(viewport=viewport, color_scheme=theme)
    page = context.new_page()
    # The address is unknown on purpose; Chromium logs its 404 status as an error.
    allow_console_error(page, not_found_load("/tests/bad"))
    try:
        response = page.goto(live_app.url + "/tests/bad")
        assert response is not None
        assert response.status == 404
        wait_ready(page)
        heading = page.locator("#not-found")
        expect(heading).to_be_visible()
        shot = ARTIFACTS / "not-found" / f"not-found-{width}-{theme}.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True)
        main = page.locator("#main").bounding_box()
        box = page.locator("#not-found-panel > *").first.bounding_box()
        text = heading.bounding_box()
    finally:
        context.close()

    assert main is not None
    assert box is not None
    assert text is not None
    middle = main["x"] + main["width"] / 2
    assert abs(box["x"] + box["width"] / 2 - middle) < 2, (box, main)
    assert abs(text["x"] + text["width"] / 2 - middle) < 2, (text, main)
