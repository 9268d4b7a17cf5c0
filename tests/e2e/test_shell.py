"""The page shell in the real app: staff links with their counts for exactly the people the
pages behind them let in, the security contact on /security and in security.txt."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session, select

from benchmax.models import User
from benchmax.services.moderation.nav_counts import nav_counts
from tests.e2e.conftest import (
    DESKTOP,
    OWNER_HANDLE,
    LiveApp,
    Theme,
    make_people,
    signed_in_page,
    wait_ready,
)
from tests.e2e.contrast import contrast
from tests.support.factories import make_report, make_test


def _open_report(app: LiveApp) -> None:
    with Session(app.engine) as session:
        people = make_people(app, "author", "reporter")
        author, reporter = (
            session.exec(select(User).where(User.handle == people[who])).one()
            for who in ("author", "reporter")
        )
        make_report(session, make_test(session, author), reporter)
        session.commit()


def _expected(app: LiveApp, handle: str) -> tuple[int, int]:
    with Session(app.engine) as session:
        user = session.exec(select(User).where(User.handle == handle)).one()
        counts = nav_counts(session, user)
        return counts.moderation, counts.operations


def test_strangers_and_contributors_see_no_staff_links(
    live_app: LiveApp, page: Page, browser: Browser
) -> None:
    page.goto(live_app.url + "/")
    wait_ready(page)
    expect(page.locator("nav[aria-label='Main']")).to_be_visible()
    expect(page.locator("#nav-moderation")).to_have_count(0)
    contributor = signed_in_page(
        browser, live_app, make_people(live_app, "contributor")["contributor"]
    )
    expect(contributor.locator("#nav-handle")).to_be_visible()
    expect(contributor.locator("#nav-moderation")).to_have_count(0)
    expect(contributor.locator("#nav-operations")).to_have_count(0)
    contributor.context.close()


def test_a_moderator_sees_moderation_with_its_open_count(
    live_app: LiveApp, browser: Browser
) -> None:
    handle = make_people(live_app, "moderator")["moderator"]
    page = signed_in_page(browser, live_app, handle)
    _open_report(live_app)
    page.goto(live_app.url + "/leaderboard")
    wait_ready(page)
    moderation, _ = _expected(live_app, handle)
    assert moderation > 0
    link = page.locator("#nav-moderation")
    expect(link).to_have_accessible_name(re.compile(rf"^Moderation\s+{moderation}\s+open$"))
    expect(page.locator("#nav-operations")).to_have_count(0)  # owners only
    link.click()
    page.wait_for_url(re.compile(r"/moderation$"))
    expect(page.locator("#nav-moderation")).to_have_attribute("aria-current", "page")
    page.context.close()


def test_the_owner_sees_both_links(live_app: LiveApp, browser: Browser) -> None:
    page = signed_in_page(browser, live_app, OWNER_HANDLE)
    page.goto(live_app.url + "/")
    wait_ready(page)
    moderation, operations = _expected(live_app, OWNER_HANDLE)
    expect(page.locator("#nav-moderation")).to_contain_text("Moderation")
    expect(page.locator("#nav-operations")).to_contain_text("Operations")
    if moderation:
        expect(page.locator("#nav-moderation")).to_contain_text(str(moderation))
    if not operations:
        expect(page.locator("#nav-operations .rt-Badge")).to_have_count(0)
    page.context.close()


def test_security_page_and_security_txt_name_the_same_contact(
    live_app: LiveApp, page: Page
) -> None:
    page.goto(live_app.url + "/security")
    wait_ready(page)
    expect(page.locator("#security-contact")).to_have_attribute(
        "href", "mailto:security@example.org"
    )
    expect(page.locator("footer").get_by_role("link", name="Security")).to_be_visible()
    response = httpx.get(live_app.url + "/.well-known/security.txt", timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert "Contact: mailto:security@example.org\n" in response.text
    assert f"Canonical: {live_app.url}/.well-known/security.txt" in response.text
    page.get_by_role("link", name="/.well-known/security.txt").click()
    page.wait_for_url("**/.well-known/security.txt")
    assert "Contact: mailto:security@example.org" in page.content()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_solid_buttons_and_button_links_keep_their_text_readable_on_hover(
    live_app: LiveApp, browser: Browser, theme: Theme
) -> None:
    """axe only sees elements at rest; a hover colour is checked here, for a Radix solid
    button and for a link drawn as one (the header's Sign in)."""
    context = browser.new_context(viewport=DESKTOP, color_scheme=theme)
    page = context.new_page()
    page.goto(live_app.url + "/sign-in")
    wait_ready(page)
    for selector in ("#nav-sign-in", "#sign-in-submit"):
        control = page.locator(selector)
        resting = control.evaluate("(el) => getComputedStyle(el).backgroundColor")
        control.hover()
        page.wait_for_function(
            "([sel, before]) => getComputedStyle(document.querySelector(sel)).backgroundColor"
            " !== before",
            arg=[selector, resting],
        )
        colours = control.evaluate(
            "(el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]"
        )
        ratio = contrast(page, *colours)
        assert ratio >= 4.5, f"{selector} on hover ({theme}): {ratio:.2f}:1"
        page.mouse.move(0, 0)
    context.close()
