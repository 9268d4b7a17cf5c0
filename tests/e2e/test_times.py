"""Pages say when in words ("5 min ago") with the exact time on hover and for machines, all
one way (``components/dates.time_ago``): the feed, a contributor's page, My Tests and its
tokens, the moderation queues, /operations and the leaderboard's snapshot. No page prints
an absolute time as text."""

from __future__ import annotations

import re
import secrets
from datetime import datetime, timedelta

from playwright.sync_api import Browser, Locator, Page, expect
from sqlmodel import Session

from benchmax.models import Role, TestState
from benchmax.models._base import utcnow
from benchmax.services.accounts import find_user_by_handle
from benchmax.services.catalog.linking import link_declared_setup
from benchmax.services.dates import human_date, iso
from benchmax.services.leaderboard.signing import signing_key
from benchmax.services.leaderboard.snapshots import build_snapshot
from benchmax.services.tokens import create_token
from tests.e2e.conftest import (
    ARTIFACTS,
    OWNER_HANDLE,
    LiveApp,
    make_people,
    signed_in_page,
    wait_ready,
)
from tests.support.factories import (
    make_dead_publish_job,
    make_report,
    make_review,
    make_test,
    make_user,
)

SHOTS = ARTIFACTS / "screens" / "times"

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
    _shows_moment(row.locator("time.time-ago").first, updated)
    # When the untouched draft goes, ahead of now in the same words.
    expiry = row.locator(".my-expiry time.time-ago")
    expect(expiry).to_have_text(re.compile(r"^in \d+ days$"))
    expect(expiry).to_have_attribute("title", EXACT)
    page.context.close()


# The site's absolute forms: pages show none of them as text any more, only on hover.
ABSOLUTE = re.compile(
    r"\d{2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC|\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})? UTC"
)


def _no_absolute_time_in(page: Page) -> None:
    text = page.locator("#main").inner_text()
    assert not ABSOLUTE.search(text), ABSOLUTE.findall(text)


def test_tokens_say_when_they_were_made_and_last_used(live_app: LiveApp, browser: Browser) -> None:
    handle = make_people(live_app, "tokener")["tokener"]
    made = (utcnow() - timedelta(minutes=4)).replace(microsecond=0)
    with Session(live_app.engine) as session:
        owner = find_user_by_handle(session, handle)
        assert owner is not None
        token, _ = create_token(session, owner, "laptop")
        token.created_at = made
        session.add(token)
        session.commit()
    page = signed_in_page(browser, live_app, handle)
    page.goto(f"{live_app.url}/me")
    wait_ready(page)
    dates = page.locator(".token-dates")
    expect(dates).to_have_text(re.compile(r"^created \d+ min ago · last used never$"))
    _shows_moment(dates.locator("time.time-ago"), made)
    _no_absolute_time_in(page)
    page.screenshot(path=str(SHOTS / "me-tokens-desktop.png"), full_page=True)
    page.context.close()


def test_moderation_operations_and_the_snapshot_say_how_long_ago(
    live_app: LiveApp, browser: Browser
) -> None:
    people = make_people(live_app, "author", "reporter")
    moment = (utcnow() - timedelta(minutes=6)).replace(microsecond=0)
    with Session(live_app.engine) as session:
        author, reporter = (find_user_by_handle(session, people[who]) for who in people)
        assert author is not None
        assert reporter is not None
        test = make_test(session, author, title=f"Timed {secrets.token_hex(3)}")
        report = make_report(session, test, reporter, created_at=moment)
        job = make_dead_publish_job(session, test, updated_at=moment)
        # A reviewed Test, so the snapshot has a row to rank.
        link_declared_setup(session, test)
        make_review(session, test, make_user(session, role=Role.REVIEWER), score=80)
        session.commit()
        assert build_snapshot(session, f"e2e-times-{test.id}", signing_key(live_app.settings))
        session.commit()
        key, job_id = f"report-{report.id}", job.id
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = signed_in_page(browser, live_app, OWNER_HANDLE)

    page.goto(f"{live_app.url}/moderation")
    wait_ready(page)
    page.click("#tab-reports")
    _shows_moment(page.locator(f"#{key} time.time-ago"), moment)
    _no_absolute_time_in(page)
    page.screenshot(path=str(SHOTS / "moderation-times-desktop.png"), full_page=True)

    page.goto(f"{live_app.url}/operations")
    wait_ready(page)
    _shows_moment(page.locator(f"#ops-dead-{job_id} time.time-ago"), moment)
    expect(page.locator("#ops-updated time.time-ago")).to_have_text(
        re.compile(r"^(just now|1 min ago)$")
    )
    expect(page.locator("#ops-updated time.time-ago")).to_have_attribute("title", EXACT)
    _no_absolute_time_in(page)
    page.screenshot(path=str(SHOTS / "operations-times-desktop.png"), full_page=True)

    page.goto(f"{live_app.url}/leaderboard")
    wait_ready(page)
    published = page.locator("#snapshot-date time.time-ago")
    expect(published).to_have_text(re.compile(r"^(just now|\d+ min ago)$"))
    expect(published).to_have_attribute("title", EXACT)
    _no_absolute_time_in(page)
    page.locator("#snapshot-select").click()
    option = page.get_by_role("option").first
    expect(option.locator("time.time-ago")).to_have_attribute("title", EXACT)
    expect(option).to_have_text(re.compile(r"^(just now|\d+ min ago) \(latest\)$"))
    page.screenshot(path=str(SHOTS / "snapshot-times-desktop.png"), full_page=True)
    page.context.close()
