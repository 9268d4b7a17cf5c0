"""The header on a phone and its staff counts: one row for every role (the rest behind a Menu
button a keyboard opens and Escape closes), and counts that follow the actions changing them.

Screenshots land in ``test-artifacts/screens/header/``."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Locator, Page, ViewportSize, expect
from sqlmodel import Session, select

from benchmax.models import TestState, User
from benchmax.services.moderation.nav_counts import nav_counts
from tests.e2e.conftest import (
    ARTIFACTS,
    DESKTOP,
    OWNER_HANDLE,
    PHONE,
    LiveApp,
    Theme,
    make_people,
    sign_in,
    wait_ready,
)
from tests.support.factories import make_dead_publish_job, make_report, make_test

SHOTS = ARTIFACTS / "screens" / "header"
# One row of 32 px controls and the header's padding; two rows would be about 100 px.
ONE_ROW = 64
WIDE: ViewportSize = {"width": 1440, "height": 900}
THEMES: tuple[Theme, ...] = ("light", "dark")


def _phone(browser: Browser, app: LiveApp, handle: str, theme: Theme = "light") -> Page:
    # Signed in wide, where the sign-in helper finds the handle in the header's row.
    context = browser.new_context(viewport=DESKTOP, color_scheme=theme)
    context.set_default_timeout(20_000)
    page = context.new_page()
    if handle:
        sign_in(page, app, handle)
    page.set_viewport_size(PHONE)
    page.goto(app.url + "/leaderboard")
    wait_ready(page)
    return page


def _height(page: Page) -> float:
    box = page.locator("header").bounding_box()
    assert box is not None
    return box["height"]


def _open_report(app: LiveApp) -> str:
    """A fresh open report (one more item in the moderation count); returns its queue key."""
    people = make_people(app, "author", "reporter")
    with Session(app.engine) as session:
        author, reporter = (
            session.exec(select(User).where(User.handle == people[who])).one()
            for who in ("author", "reporter")
        )
        report = make_report(session, make_test(session, author), reporter)
        session.commit()
        return f"report-{report.id}"


def _moderation_count(app: LiveApp, handle: str) -> int:
    with Session(app.engine) as session:
        user = session.exec(select(User).where(User.handle == handle)).one()
        return nav_counts(session, user).moderation


def _left(locator: Locator) -> float:
    box = locator.bounding_box()
    assert box is not None
    return box["x"]


def _named(count: int) -> re.Pattern[str]:
    """The link's name: "Moderation 3 open", or just "Moderation" when nothing waits."""
    return re.compile(rf"^Moderation\s+{count}\s+open$" if count else r"^Moderation$")


def test_the_phone_header_is_one_row_for_strangers_contributors_and_staff(
    live_app: LiveApp, browser: Browser
) -> None:
    _open_report(live_app)  # the owner's Moderation link carries a count
    with Session(live_app.engine) as session:  # and so does Operations (a dead job)
        stuck = make_test(session, state=TestState.PROCESSING, published_at=None)
        make_dead_publish_job(session, stuck)
        session.commit()
    roles = {"stranger": "", "contributor": make_people(live_app, "contributor")["contributor"]}
    roles["owner"] = OWNER_HANDLE
    SHOTS.mkdir(parents=True, exist_ok=True)
    for role, handle in roles.items():
        for theme in THEMES:
            page = _phone(browser, live_app, handle, theme)
            assert _height(page) <= ONE_ROW, f"{role}: the header is {_height(page)} px tall"
            expect(page.locator("#nav-submit-phone")).to_be_visible()
            expect(page.locator("#nav-submit-phone")).to_have_text("Submit")
            expect(page.locator("#nav-home")).to_be_visible()
            button = page.locator("#nav-menu-button")
            expect(button).to_be_visible()
            expect(button).to_have_attribute("aria-expanded", "false")
            expect(page.locator("#nav-menu")).to_be_hidden()
            if not handle:
                expect(page.locator("#nav-sign-in-phone")).to_be_visible()
            page.screenshot(path=str(SHOTS / f"phone-{role}-{theme}.png"))
            button.click()
            expect(page.locator("#nav-menu")).to_be_visible()
            if role == "owner":
                expect(page.locator("#nav-moderation")).to_be_visible()
                expect(page.locator("#nav-operations")).to_be_visible()
            if handle:
                expect(page.locator("#nav-handle")).to_be_visible()
                expect(page.locator("#nav-sign-out")).to_be_visible()
            # The account row starts at the menu's edge, as the links do: a stranger's holds
            # only the theme switch, with no empty gap before it.
            first = page.locator("#nav-handle" if handle else "#nav-menu .nav-account svg")
            link = page.locator("nav[aria-label='Main'] a").first
            assert abs(_left(first.first) - _left(link)) <= 6, f"{role}: account row indented"
            page.screenshot(path=str(SHOTS / f"phone-{role}-menu-{theme}.png"))
            # Wide, nothing is folded away: every link in the one row, no Menu button.
            page.set_viewport_size(WIDE)
            expect(button).to_be_hidden()
            expect(page.locator("#nav-submit-phone")).to_be_hidden()
            expect(page.locator("nav[aria-label='Main']").get_by_role("link")).to_have_count(
                6 if role == "owner" else 4
            )
            # One row for everyone, the owner's two consoles and their counts included.
            assert _height(page) <= ONE_ROW, f"{role} at 1440 px: {_height(page)} px"
            handle_box = page.locator("#nav-handle" if handle else "#nav-sign-in").bounding_box()
            home_box = page.locator("#nav-home").bounding_box()
            assert handle_box is not None
            assert home_box is not None
            assert (
                abs(
                    (handle_box["y"] + handle_box["height"] / 2)
                    - (home_box["y"] + home_box["height"] / 2)
                )
                < 8
            ), f"{role}: the account is not on the logo's row"
            page.screenshot(path=str(SHOTS / f"desktop-{role}-{theme}.png"))
            page.context.close()


def test_the_menu_opens_and_closes_by_keyboard(live_app: LiveApp, browser: Browser) -> None:
    page = _phone(browser, live_app, OWNER_HANDLE)
    button = page.locator("#nav-menu-button")
    # Tab order follows the row: the logo, Submit, then the Menu button.
    page.locator("#nav-home").focus()
    page.keyboard.press("Tab")
    expect(page.locator("#nav-submit-phone")).to_be_focused()
    page.keyboard.press("Tab")
    expect(button).to_be_focused()
    expect(button).to_have_accessible_name("Menu")
    page.keyboard.press("Enter")
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(button).to_have_attribute("aria-controls", "nav-menu")
    # The panel comes right after its button: the next Tab is its first link.
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Feed", exact=True)).to_be_focused()
    page.keyboard.press("Escape")
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(button).to_be_focused()
    expect(page.locator("#nav-menu")).to_be_hidden()
    page.keyboard.press(" ")
    expect(button).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # Leaderboard, the page we are on
    expect(page.get_by_role("link", name="Leaderboard", exact=True)).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # Prompts
    page.wait_for_url(re.compile(r"/prompts$"))
    wait_ready(page)
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(page.locator("#nav-menu")).to_be_hidden()
    page.context.close()


def test_the_moderation_count_follows_a_decision_and_refreshes_by_itself(
    live_app: LiveApp, browser: Browser
) -> None:
    handle = make_people(live_app, "moderator")["moderator"]
    key = _open_report(live_app)
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    sign_in(page, live_app, handle)
    page.goto(live_app.url + "/moderation")
    wait_ready(page)
    link = page.locator("#nav-moderation")
    before = _moderation_count(live_app, handle)
    expect(link).to_have_accessible_name(_named(before))
    page.click("#tab-reports")
    page.fill(f"#reason-{key}", "Not a problem with this Test.")
    page.click(f"#dismiss-{key}")
    expect(page.locator("#decided-reports")).to_contain_text("Report dismissed")
    expect(page.locator(f"#{key}")).to_have_count(0)
    # The decision took one item off the queue: the header says so without a reload.
    after = _moderation_count(live_app, handle)
    assert after == before - 1
    expect(link).to_have_accessible_name(_named(after))

    # What others add meanwhile arrives on the header's own refresh (autorefresh.js presses
    # the hidden button every 30 s while the tab is visible; pressed here at once).
    _open_report(live_app)
    refresher = page.locator("#nav-counts-refresh")
    expect(refresher).to_have_attribute("data-autorefresh-ms", "30000")
    expect(refresher).to_be_hidden()
    refresher.dispatch_event("click")
    expect(link).to_have_accessible_name(_named(after + 1))
    context.close()
