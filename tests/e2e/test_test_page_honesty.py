"""What a Test page says about itself: every refusal of the review form beside its field, a
private source ZIP called private above its own preview, and a white thumbnail that still
shows its edge on a white page."""

from __future__ import annotations

import secrets

from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session

from benchmax.adapters.storage import build_storage
from benchmax.models import Test
from benchmax.services.accounts import find_user_by_handle
from tests.e2e.conftest import LiveApp, make_people, signed_in_page, wait_ready
from tests.e2e.shots import four_shots
from tests.support.factories import make_stored_image, make_test, png
from tests.support.preview_rows import done

REFUSED_SCORE = "The score is a whole number from 0 to 100."
SHORT_REASONING = "The reasoning must be at least 20 characters."


def _reviewable(app: LiveApp) -> tuple[str, str]:
    """A public Test with a white screenshot, and a reviewer's handle."""
    people = make_people(app, "contributor", "reviewer")
    with Session(app.engine) as session:
        contributor = find_user_by_handle(session, people["contributor"])
        test = make_test(session, contributor, title=f"White page {secrets.token_hex(3)}")
        image = make_stored_image(
            session, build_storage(app.settings), test, png((255, 255, 255), (320, 200))
        )
        test.thumbnail_evidence_id = image.id
        test.evidence_kinds = "image"
        session.commit()
        return test.id, people["reviewer"]


def _refuse(page: Page) -> None:
    """A score out of range and a five-letter reasoning, sent together."""
    page.fill("#review-score", "150")
    page.fill("#review-reasoning", "short")
    page.click("#review-submit")
    expect(page.locator("#review-score-error")).to_be_visible()
    page.locator("#review-score").scroll_into_view_if_needed()


def test_every_refusal_of_the_review_form_is_shown_beside_its_field(
    live_app: LiveApp, browser: Browser
) -> None:
    test_id, reviewer = _reviewable(live_app)
    page = signed_in_page(browser, live_app, reviewer)
    page.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(page)
    _refuse(page)
    expect(page.locator("#review-score-error")).to_have_text(REFUSED_SCORE)
    expect(page.locator("#review-reasoning-error")).to_have_text(SHORT_REASONING)
    expect(page.locator("#review-score")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#review-score")).to_have_attribute(
        "aria-describedby", "review-score-error"
    )
    expect(page.locator("#review-reasoning")).to_have_attribute("aria-invalid", "true")
    # Nothing typed is lost.
    expect(page.locator("#review-score")).to_have_value("150")
    expect(page.locator("#review-reasoning")).to_have_value("short")

    # Each field's refusal goes once that field is right; the other stays until it is too.
    page.fill("#review-score", "72")
    page.click("#review-submit")
    expect(page.locator("#review-score-error")).to_have_count(0)
    expect(page.locator("#review-reasoning-error")).to_have_text(SHORT_REASONING)
    for score in ("-4", "101", "7.5", ""):
        page.fill("#review-score", score)
        page.click("#review-submit")
        expect(page.locator("#review-score-error")).to_have_text(REFUSED_SCORE)
    page.fill("#review-score", "72")
    page.fill("#review-reasoning", "Clear, complete and it runs as described.")
    page.click("#review-submit")
    expect(page.locator("#review-notice")).to_be_visible()
    expect(page.locator("#review-reasoning-error")).to_have_count(0)

    four_shots(
        browser, live_app, f"/tests/{test_id}", "review-refused", handle=reviewer, then=_refuse
    )


def test_a_private_source_zip_is_called_private_above_its_preview(
    live_app: LiveApp, browser: Browser, page: Page
) -> None:
    with Session(live_app.engine) as session:
        test = done(session, f"Build a pomodoro timer {secrets.token_hex(3)}.", 380, 0)
        session.commit()
        test_id = test.id
    page.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(page)
    expect(page.locator("#preview-section")).to_be_visible()
    note = page.locator("#evidence-private-source")
    expect(note).to_contain_text("The source ZIP is private")
    expect(page.locator("#evidence-none")).to_have_count(0)
    expect(page.get_by_text("No files; the output above is the evidence.")).to_have_count(0)
    four_shots(
        browser,
        live_app,
        f"/tests/{test_id}",
        "private-source",
        then=lambda p: expect(p.locator("#evidence-private-source")).to_be_visible(),
    )


def test_a_test_with_no_files_still_says_so(live_app: LiveApp, page: Page) -> None:
    with Session(live_app.engine) as session:
        test = make_test(session, title=f"Plain {secrets.token_hex(3)}")
        session.commit()
        test_id = test.id
    page.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(page)
    expect(page.locator("#evidence-none")).to_have_text(
        "No files; the output above is the evidence."
    )
    expect(page.locator("#evidence-private-source")).to_have_count(0)


def test_a_white_thumbnail_has_a_visible_edge(live_app: LiveApp, browser: Browser) -> None:
    test_id, _reviewer = _reviewable(live_app)
    with Session(live_app.engine) as session:
        title = session.get(Test, test_id).title  # type: ignore[union-attr]
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(f"{live_app.url}/?q={title.split()[-1]}")
    wait_ready(page)
    thumb = page.locator(".test-card img").first
    expect(thumb).to_be_visible()
    style = thumb.evaluate(
        "img => { const s = getComputedStyle(img); return [s.borderTopWidth, s.borderTopStyle]; }"
    )
    assert style == ["1px", "solid"], style
    page.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(page)
    width = page.locator(".evidence-image").first.evaluate(
        "img => getComputedStyle(img).borderTopWidth"
    )
    assert width == "1px"
    page.close()
    four_shots(browser, live_app, f"/?q={title.split()[-1]}", "white-thumbnail", full_page=False)
