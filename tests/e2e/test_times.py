"""Cards say when in words ("5 min ago") with the exact time on hover and for machines: the
feed, a contributor's page and My Tests draw it one way (``components/dates.time_ago``)."""

from __future__ import annotations

import re
import secrets
from datetime import datetime, timedelta

from playwright.sync_api import Browser, Locator, Page, expect
from sqlmodel import Session

from benchmax.models import TestState
from benchmax.models._base import utcnow
from benchmax.services.accounts import find_user_by_handle
from benchmax.services.dates import human_date, iso
from tests.e2e.conftest import LiveApp, make_people, signed_in_page, wait_ready
from tests.support.factories import make_test, make_user

MINUTES_AGO = re.compile(r"^\d+ min ago$")
EXACT = re.compile(r"^\d{2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC$")


def _shows_moment(stamp: Locator, moment: datetime) -> None:
    """Relative words on the page; the exact time in the site's one date format as the title
    the browser shows on hover ("01 Dec 2026, 09:30 UTC"); ISO 8601 for machines."""
    expect(stamp).to_have_text(MINUTES_AGO)
    expect(stamp).to_have_attribute("title", human_date(moment))
    expect(stamp).to_have_attribute("title", EXACT)
    expect(stamp).to_have_attribute("datetime", iso(moment) or "")


def test_feed_and_contributor_cards_say_how_long_ago(live_app: LiveApp, page: Page) -> None:
    marker = "t" + secrets.token_hex(4)
    published = (utcnow() - timedelta(minutes=5)).replace(microsecond=0)
    with Session(live_app.engine) as session:
        author = make_user(session, handle=f"e2e{secrets.token_hex(5)}")
        make_test(session, author, title=f"Five minutes old {marker}", published_at=published)
        session.commit()
        handle = author.handle
    page.goto(f"{live_app.url}/?q={marker}")
    wait_ready(page)
    card = page.locator(".test-card", has_text=marker)
    expect(card).to_have_count(1)
    _shows_moment(card.locator("time.time-ago"), published)

    page.goto(f"{live_app.url}/u/{handle}")
    wait_ready(page)
    _shows_moment(page.locator(".test-card time.time-ago"), published)


def test_my_tests_say_how_long_ago_each_changed(live_app: LiveApp, browser: Browser) -> None:
    people = make_people(live_app, "owner")
    updated = (utcnow() - timedelta(minutes=3)).replace(microsecond=0)
    with Session(live_app.engine) as session:
        owner = find_user_by_handle(session, people["owner"])
        assert owner is not None
        make_test(
            session,
            owner,
            title="Draft from earlier",
            state=TestState.DRAFT,
            published_at=None,
            updated_at=updated,
        )
        session.commit()
    page = signed_in_page(browser, live_app, people["owner"])
    page.goto(f"{live_app.url}/me")
    wait_ready(page)
    row = page.locator(".my-test", has_text="Draft from earlier")
    _shows_moment(row.locator("time.time-ago"), updated)
    page.context.close()
