"""The foundation as a visitor and a contributor see it, in a real browser."""

from __future__ import annotations

import re
from datetime import timedelta

from playwright.sync_api import Page, expect
from sqlmodel import Session

from benchmax.models import TestState
from benchmax.models._base import utcnow
from benchmax.services.catalog.linking import link_declared_setup
from tests.e2e.conftest import LiveApp, allow_console_error, not_found_load, sign_in, wait_ready
from tests.support.factories import make_test, make_user


def _publish(app: LiveApp, **fields: object) -> str:
    with Session(app.engine) as session:
        user = make_user(session, handle=f"e2e{utcnow().strftime('%H%M%S%f')}")
        test = make_test(session, user, **fields)
        link_declared_setup(session, test)
        session.commit()
        return test.id


def test_feed_lists_sample_tests_with_the_declared_label(live_app: LiveApp, page: Page) -> None:
    page.goto(live_app.url)
    wait_ready(page)
    cards = page.locator(".test-card")
    expect(cards.first).to_be_visible()
    assert cards.count() >= 4
    expect(page.locator(".declared-label").first).to_contain_text(
        "Declared by contributor — not independently verified"
    )
    expect(page.get_by_text("[Sample] Bouncing ball in a rotating hexagon")).to_be_visible()


def test_feed_filters_by_harness_and_search(live_app: LiveApp, page: Page) -> None:
    marker = f"zebra-{utcnow().timestamp():.0f}"
    _publish(
        live_app,
        title=f"Filter target {marker}",
        harness_label="Aider",
        published_at=utcnow() + timedelta(seconds=1),
    )
    page.goto(live_app.url)
    wait_ready(page)
    expect(page.locator("#filter-harness")).to_be_hidden()
    page.click(".filters-summary")
    page.fill("#filter-harness", "aider")
    page.click("#filter-apply")
    page.wait_for_url(re.compile(r"harness=aider"))
    wait_ready(page)
    expect(page.get_by_text(f"Filter target {marker}")).to_be_visible()
    expect(page.get_by_text("[Sample] Bouncing ball in a rotating hexagon")).to_have_count(0)

    page.fill("#filter-q", "no-such-words-anywhere-qqq")
    page.click("#filter-apply")
    page.wait_for_url(re.compile(r"q=no-such-words"))
    wait_ready(page)
    expect(page.locator("#feed-empty")).to_be_visible()
    page.click("#filter-clear")
    page.wait_for_url(re.compile(r"/$"))
    wait_ready(page)
    expect(page.locator(".test-card").first).to_be_visible()


def test_card_opens_the_test_page(live_app: LiveApp, page: Page) -> None:
    test_id = _publish(
        live_app,
        title="Card click target",
        attempts=None,
        published_at=utcnow() + timedelta(seconds=2),
    )
    page.goto(live_app.url)
    wait_ready(page)
    page.get_by_role("link", name="Card click target").click()
    page.wait_for_url(f"**/tests/{test_id}")
    wait_ready(page)
    expect(page.locator("#test-title")).to_have_text("Card click target")
    expect(page.locator("#setup-attempts")).to_have_text("attempts not declared")
    expect(page.locator(".declared-label")).to_be_visible()


def test_unknown_and_private_tests_show_the_404_page(live_app: LiveApp, page: Page) -> None:
    private_id = _publish(live_app, state=TestState.PROCESSING, published_at=None)
    for path in ("/tests/doesnotexist0000", f"/tests/{private_id}", "/no/such/page"):
        # Each address is unknown or private on purpose; a 404 status is the right answer.
        allow_console_error(page, not_found_load(path))
        response = page.goto(live_app.url + path)
        assert response is not None
        assert response.status == 404, path
        wait_ready(page)
        expect(page.locator("#not-found")).to_be_visible()


def test_local_sign_in_shows_the_handle(live_app: LiveApp, page: Page) -> None:
    sign_in(page, live_app, "ada-e2e", "Ada Lovelace")
    expect(page.locator("#nav-handle")).to_contain_text("@ada-e2e")
    page.reload()
    wait_ready(page)
    expect(page.locator("#nav-handle")).to_contain_text("@ada-e2e")
    page.click("#nav-sign-out")
    expect(page.locator("#nav-sign-in")).to_be_visible()


def test_sign_in_refuses_a_bad_handle_and_keeps_the_input(live_app: LiveApp, page: Page) -> None:
    page.goto(f"{live_app.url}/sign-in")
    wait_ready(page)
    page.fill("#handle", "Bad Handle!")
    page.fill("#display_name", "Kept Name")
    page.click("#sign-in-submit")
    expect(page.locator("#sign-in-error")).to_be_visible()
    expect(page.locator("#display_name")).to_have_value("Kept Name")
