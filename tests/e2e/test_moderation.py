"""Trust and safety in the browser: report → remove → restore, and review → dispute → overturn."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session, select

from benchmax.adapters.storage import build_storage
from benchmax.models import Appeal, Dispute, Report, Review, Test, TestState
from benchmax.services.accounts import find_user_by_handle
from benchmax.services.moderation.takedowns import remove_test
from tests.e2e.conftest import (
    ARTIFACTS,
    PHONE,
    LiveApp,
    make_people,
    signed_in_page,
    wait_ready,
)
from tests.e2e.shots import four_shots
from tests.support.factories import make_report, make_stored_image, make_test, png


def _people(app: LiveApp) -> dict[str, str]:
    return make_people(app, "contributor", "reporter", "moderator", "reviewer")


def _published(app: LiveApp, contributor: str, title: str) -> tuple[str, str]:
    with Session(app.engine) as session:
        user = find_user_by_handle(session, contributor)
        test = make_test(session, user, title=title)
        image = make_stored_image(
            session, build_storage(app.settings), test, png((10, 160, 90), (40, 30))
        )
        test.thumbnail_evidence_id = image.id
        test.evidence_kinds = "image"
        session.commit()
        return test.id, image.id


def _image_loads(page: Page, url: str) -> bool:
    width = page.evaluate(
        """src => new Promise(resolve => {
            const img = new Image();
            img.onload = () => resolve(img.naturalWidth);
            img.onerror = () => resolve(-1);
            img.src = src + '?t=' + Date.now();
        })""",
        url,
    )
    return bool(width > 0)


def _confirm_removal(moderator: Page, key: str) -> None:
    """Open the removal dialog and confirm it with the keyboard."""
    moderator.click(f"#remove-{key}")
    confirm = moderator.locator(f"#confirm-remove-{key}")
    expect(confirm).to_be_visible()
    confirm.focus()
    moderator.keyboard.press("Enter")
    expect(confirm).to_have_count(0)


def _in_feed(page: Page, app: LiveApp, title: str) -> bool:
    page.goto(f"{app.url}/?q={title}")
    wait_ready(page)
    return page.get_by_text(title).count() > 0


def test_report_remove_explain_restore(live_app: LiveApp, browser: Browser) -> None:
    people = _people(live_app)
    title = f"Moderated {secrets.token_hex(3)}"
    test_id, image_id = _published(live_app, people["contributor"], title)
    image_url = f"{live_app.usercontent_url}/e/{image_id}/shot.png"

    reporter = signed_in_page(browser, live_app, people["reporter"])
    reporter.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(reporter)
    reporter.click("#report-open")
    reporter.select_option("#report-reason", "spam")
    reporter.fill("#report-details", "This is an advert, not a Test result.")
    reporter.click("#report-submit")
    expect(reporter.locator("#report-notice")).to_be_visible()

    with Session(live_app.engine) as session:
        report = session.exec(select(Report).where(Report.test_id == test_id)).one()
    moderator = signed_in_page(browser, live_app, people["moderator"])
    moderator.goto(f"{live_app.url}/moderation")
    wait_ready(moderator)
    moderator.click("#tab-reports")
    key = f"report-{report.id}"
    expect(moderator.locator(f"#reason-{key}")).to_be_visible()
    moderator.screenshot(path=str(ARTIFACTS / "screens" / "moderation-report-desktop.png"))
    # The item links to its Test.
    expect(moderator.locator(f"#test-link-{key}")).to_have_attribute("href", f"/tests/{test_id}")
    moderator.fill(f"#reason-{key}", "short")
    _confirm_removal(moderator, key)
    expect(moderator.locator(f"#error-{key}")).to_be_visible()
    expect(moderator.locator(f"#reason-{key}")).to_have_value("short")
    moderator.fill(f"#reason-{key}", "Advertising spam, not a real Test.")
    # Removing asks first; Escape backs out and nothing happens.
    moderator.click(f"#remove-{key}")
    dialog = moderator.get_by_role("alertdialog")
    expect(dialog).to_contain_text("Remove this Test?")
    moderator.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    with Session(live_app.engine) as session:
        assert session.get(Test, test_id).state == TestState.PUBLIC  # type: ignore[union-attr]
    _confirm_removal(moderator, key)
    # The decided report leaves the open list; the tab says what the decision did.
    expect(moderator.locator("#decided-reports")).to_contain_text("Removed")
    expect(moderator.locator("#decided-reports")).to_contain_text(title)
    expect(moderator.locator(f"#{key}")).to_have_count(0)

    assert not _in_feed(reporter, live_app, title)
    assert not _image_loads(reporter, image_url)

    contributor = signed_in_page(browser, live_app, people["contributor"])
    contributor.goto(f"{live_app.url}/me")
    wait_ready(contributor)
    mine = contributor.locator(".my-test").filter(has_text=title)
    expect(mine.locator(".my-status")).to_have_text("Removed")
    expect(mine).to_contain_text("Advertising spam, not a real Test.")

    moderator.goto(f"{live_app.url}/moderation")
    wait_ready(moderator)
    moderator.click("#tab-removed")
    removed_key = f"removed-{test_id}"
    moderator.fill(f"#reason-{removed_key}", "Contributor explained; restoring it.")
    moderator.click(f"#restore-{removed_key}")
    expect(moderator.locator("#decided-removed")).to_contain_text("Restored")
    expect(moderator.locator(f"#{removed_key}")).to_have_count(0)
    assert _in_feed(reporter, live_app, title)
    assert _image_loads(reporter, image_url)


def test_review_dispute_overturn_shows_the_correction(live_app: LiveApp, browser: Browser) -> None:
    people = _people(live_app)
    title = f"Reviewed {secrets.token_hex(3)}"
    test_id, _image = _published(live_app, people["contributor"], title)

    reviewer = signed_in_page(browser, live_app, people["reviewer"])
    reviewer.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(reviewer)
    reviewer.fill("#review-score", "35")
    reviewer.fill("#review-reasoning", "The output misses two of the three requirements.")
    reviewer.click("#review-submit")
    expect(reviewer.locator("#review-notice")).to_be_visible()

    with Session(live_app.engine) as session:
        review = session.exec(select(Review).where(Review.test_id == test_id)).one()
    contributor = signed_in_page(browser, live_app, people["contributor"])
    contributor.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(contributor)
    contributor.click(f"#dispute-open-{review.id}")
    contributor.fill("#dispute-reason", "All three requirements are in the screenshot.")
    contributor.click("#dispute-submit")
    expect(contributor.locator("#dispute-notice")).to_be_visible()

    with Session(live_app.engine) as session:
        dispute = session.exec(select(Dispute).where(Dispute.review_id == review.id)).one()
    moderator = signed_in_page(browser, live_app, people["moderator"])
    moderator.goto(f"{live_app.url}/moderation")
    wait_ready(moderator)
    moderator.click("#tab-disputes")
    key = f"dispute-{dispute.id}"
    expect(moderator.locator(f"#reason-{key}")).to_be_visible()
    moderator.screenshot(path=str(ARTIFACTS / "screens" / "moderation-dispute-desktop.png"))
    moderator.fill(f"#reason-{key}", "The screenshot does show all three requirements met.")
    moderator.fill(f"#score-{key}", "80")
    moderator.click(f"#overturn-{key}")
    expect(moderator.locator("#decided-disputes")).to_contain_text("overturned")
    expect(moderator.locator(f"#{key}")).to_have_count(0)

    page = signed_in_page(browser, live_app, people["reporter"])
    page.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(page)
    reviews = page.locator("#reviews .review-card")
    expect(reviews).to_have_count(2)
    expect(reviews.nth(0)).to_contain_text("Superseded")
    expect(reviews.nth(0)).to_contain_text("35")
    expect(reviews.nth(1)).to_contain_text("Correction")
    expect(reviews.nth(1)).to_contain_text("80")
    page.screenshot(path=str(ARTIFACTS / "screens" / "test-reviews-desktop.png"), full_page=True)


def test_appeal_lands_in_the_queue_and_a_moderator_grants_it(
    live_app: LiveApp, browser: Browser
) -> None:
    people = _people(live_app)
    title = f"Appealed {secrets.token_hex(3)}"
    test_id, _image = _published(live_app, people["contributor"], title)
    moderator = signed_in_page(browser, live_app, people["moderator"])
    moderator.goto(f"{live_app.url}/moderation?tab=accounts")
    wait_ready(moderator)
    # Account search shows role and status.
    moderator.fill("#account-handle", people["contributor"][:6])
    moderator.click("#account-search")
    match = moderator.locator(".account-match").filter(has_text=people["contributor"])
    expect(match.locator(".account-role")).to_have_text("contributor")
    expect(match.locator(".account-status")).to_have_text("active")

    with Session(live_app.engine) as session:
        remove_test(
            session, find_user_by_handle(session, people["moderator"]), test_id,
            "Looks like an advert for a product.",
        )  # fmt: skip
        session.commit()

    contributor = signed_in_page(browser, live_app, people["contributor"])
    contributor.goto(f"{live_app.url}/me")
    wait_ready(contributor)
    contributor.click(f"#appeal-open-{test_id}")
    contributor.fill(f"#appeal-text-{test_id}", "too short")
    contributor.click(f"#appeal-send-{test_id}")
    expect(contributor.locator("#appeal-error")).to_contain_text("at least 20")
    expect(contributor.locator(f"#appeal-text-{test_id}")).to_have_value("too short")
    words = "It is a benchmark of our own tool, with a real prompt and output."
    contributor.fill(f"#appeal-text-{test_id}", words)
    contributor.click(f"#appeal-send-{test_id}")
    expect(contributor.locator("#appeal-notice")).to_be_visible()
    mine = contributor.locator(".my-test").filter(has_text=title)
    expect(mine.locator(".my-appeal-open")).to_be_visible()
    contributor.screenshot(path=str(ARTIFACTS / "screens" / "me-appeal-desktop.png"))

    with Session(live_app.engine) as session:
        appeal = session.exec(select(Appeal).where(Appeal.test_id == test_id)).one()
    key = f"appeal-{appeal.id}"
    moderator.goto(f"{live_app.url}/moderation?tab=appeals")
    wait_ready(moderator)
    expect(moderator.locator(f"#appeal-text-{key}")).to_have_text(words)
    expect(moderator.locator(f"#test-link-{key}")).to_have_attribute("href", f"/tests/{test_id}")
    moderator.fill(f"#reason-{key}", "It is a genuine Test; the removal was a mistake.")
    moderator.click(f"#grant-{key}")
    expect(moderator.locator("#decided-appeals")).to_contain_text("Appeal granted")
    expect(moderator.locator(f"#{key}")).to_have_count(0)
    assert _in_feed(moderator, live_app, title)
    contributor.goto(f"{live_app.url}/me")
    wait_ready(contributor)
    expect(mine).to_contain_text("Your appeal was granted")


def test_a_report_offers_safe_decisions_first_and_a_dismissed_one_leaves_the_list(
    live_app: LiveApp, browser: Browser
) -> None:
    people = _people(live_app)
    title = f"Reported {secrets.token_hex(3)}"
    test_id, image_id = _published(live_app, people["contributor"], title)
    with Session(live_app.engine) as session:
        test = session.get(Test, test_id)
        reporter = find_user_by_handle(session, people["reporter"])
        assert test is not None
        assert reporter is not None
        report = make_report(session, test, reporter, evidence_id=image_id)
        session.commit()
        key = f"report-{report.id}"
    four_shots(
        browser,
        live_app,
        "/moderation",
        "moderation-report-buttons",
        handle=people["moderator"],
        then=lambda page: page.locator(f"#{key}").scroll_into_view_if_needed(),
    )

    moderator = signed_in_page(browser, live_app, people["moderator"])
    moderator.goto(f"{live_app.url}/moderation")
    wait_ready(moderator)
    buttons = moderator.locator(f"#{key} button")
    labels = [text.strip() for text in buttons.all_inner_texts()]
    assert labels == ["Resolve", "Dismiss", "Block this file", "Remove Test"], labels
    remove = moderator.locator(f"#remove-{key}")
    expect(remove).to_have_class(re.compile(r"\bdestructive\b"))
    expect(remove.locator("svg")).to_have_count(1)  # the bin icon beside the word
    # (Radix draws a tab's label twice, one copy hidden, to keep its width steady.)
    badge = moderator.locator("#tab-reports .rt-Badge").first
    open_reports = int(badge.inner_text())

    moderator.fill(f"#reason-{key}", "Not an advert: a real benchmark run.")
    moderator.click(f"#dismiss-{key}")
    expect(moderator.locator("#decided-reports")).to_contain_text("Report dismissed")
    expect(moderator.locator("#decided-reports")).to_contain_text(title)
    expect(moderator.locator(f"#{key}")).to_have_count(0)
    expect(badge).to_have_text(str(open_reports - 1))
    moderator.screenshot(path=str(ARTIFACTS / "screens" / "moderation-dismissed-desktop.png"))
    # Still gone after a reload: the report is closed, not hidden on this page.
    moderator.reload()
    wait_ready(moderator)
    expect(moderator.locator(f"#reason-{key}")).to_have_count(0)
    with Session(live_app.engine) as session:
        assert session.get(Test, test_id).state == TestState.PUBLIC  # type: ignore[union-attr]


def test_on_a_phone_the_tab_the_address_names_is_in_sight(
    live_app: LiveApp, browser: Browser
) -> None:
    page = signed_in_page(browser, live_app, _people(live_app)["moderator"])
    page.set_viewport_size(PHONE)
    for tab in ("removed", "reports"):  # the far end of the row, then back to its start
        page.goto(f"{live_app.url}/moderation?tab={tab}")
        wait_ready(page)
        selected = page.locator(".moderation-tabs [role='tab'][aria-selected='true']")
        expect(selected).to_have_attribute("id", f"tab-{tab}")
        # The row scrolls sideways (more tabs than fit) and shows the selected one whole.
        page.wait_for_function(_SELECTED_IN_SIGHT, timeout=5_000)
    page.context.close()


_SELECTED_IN_SIGHT = """() => {
    const row = document.querySelector(".moderation-tabs");
    const tab = row && row.querySelector("[role='tab'][aria-selected='true']");
    if (!tab || row.scrollWidth <= row.clientWidth) return false;
    const a = tab.getBoundingClientRect(), b = row.getBoundingClientRect();
    return a.left >= b.left && a.right <= b.right;
}"""
