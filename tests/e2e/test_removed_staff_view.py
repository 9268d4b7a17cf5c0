"""A removed Test as staff and as everyone else see it: moderators and owners open it from
/moderation and read a "Removed — not public" banner with the decision's reason; a stranger,
a signed-in contributor and the user-content origin still answer 404."""

from __future__ import annotations

import secrets

import httpx
from playwright.sync_api import Browser, expect
from sqlmodel import Session

from benchmax.adapters.storage import build_storage
from benchmax.services.accounts import find_user_by_handle
from benchmax.services.moderation.takedowns import remove_test
from tests.e2e.conftest import (
    ARTIFACTS,
    DESKTOP,
    OWNER_HANDLE,
    PHONE,
    LiveApp,
    allow_console_error,
    make_people,
    not_found_load,
    signed_in_page,
    wait_ready,
)
from tests.support.factories import make_stored_image, make_test, png

REASON = "Advertising pasted as the output, not a Test."


def _removed_test(app: LiveApp, people: dict[str, str]) -> tuple[str, str, str]:
    """A Test with an approved image, removed by ``people["moderator"]``: (id, title, url)."""
    title = f"Taken down {secrets.token_hex(3)}"
    with Session(app.engine) as session:
        contributor = find_user_by_handle(session, people["contributor"])
        moderator = find_user_by_handle(session, people["moderator"])
        test = make_test(session, contributor, title=title, prompt="A prompt staff may read.")
        image = make_stored_image(
            session, build_storage(app.settings), test, png((200, 60, 60), (40, 30))
        )
        session.commit()
        remove_test(session, moderator, test.id, REASON)
        session.commit()
        return test.id, title, f"{app.usercontent_url}/e/{image.id}/shot.png"


def test_staff_see_the_removal_and_everyone_else_a_404(live_app: LiveApp, browser: Browser) -> None:
    people = make_people(live_app, "contributor", "moderator", "stranger")
    test_id, title, image_url = _removed_test(live_app, people)
    url = f"{live_app.url}/tests/{test_id}"

    stranger = browser.new_context(viewport=DESKTOP).new_page()
    # A removed Test answers 404 to everyone but staff, which Chromium logs.
    allow_console_error(stranger, not_found_load(f"/tests/{test_id}"))
    stranger.goto(url)
    wait_ready(stranger)
    expect(stranger.locator("#not-found")).to_be_visible()
    expect(stranger.locator("#removed-banner")).to_have_count(0)
    assert title not in stranger.content()
    stranger.context.close()

    # Signed in without a staff role: the same 404.
    someone = signed_in_page(browser, live_app, people["stranger"])
    allow_console_error(someone, not_found_load(f"/tests/{test_id}"))  # the same 404
    someone.goto(url)
    wait_ready(someone)
    expect(someone.locator("#not-found")).to_be_visible()
    assert REASON not in someone.content()
    someone.context.close()

    for handle in (people["moderator"], OWNER_HANDLE):
        staff = signed_in_page(browser, live_app, handle)
        staff.goto(url)
        wait_ready(staff)
        banner = staff.locator("#removed-banner")
        expect(banner).to_be_visible()
        expect(staff.locator("#removed-title")).to_have_text("Removed — not public")
        expect(staff.locator("#removed-reason")).to_have_text(f"Reason: {REASON}")
        expect(banner).to_contain_text(f"by @{people['moderator']}")
        expect(staff.locator("#test-title")).to_have_text(title)
        expect(staff.locator("#test-prompt")).to_have_text("A prompt staff may read.")
        # Not the contributor's notice, and no link to evidence the origin refuses.
        expect(staff.locator("#owner-notice")).to_have_count(0)
        expect(staff.locator("#main a[href*='/e/']")).to_have_count(0)
        # The file and the reviews say why, in the removed Test's own words, not a public
        # Test's future ("served once public", "reviewing starts after it goes public").
        expect(staff.locator(".evidence-chip")).to_have_text("Not served: the Test was removed")
        expect(staff.locator("#reviews-empty")).to_have_text(
            "No reviews: a removed Test is not open to review."
        )
        if handle == OWNER_HANDLE:
            for theme in ("light", "dark"):
                staff.emulate_media(color_scheme=theme)
                for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
                    staff.set_viewport_size(size)
                    staff.wait_for_timeout(300)
                    shot = ARTIFACTS / "shots" / f"removed-staff-{name}-{theme}.png"
                    staff.screenshot(path=str(shot), full_page=True)
        staff.context.close()

    # The evidence stays 404 on the user-content origin, whoever asks.
    assert httpx.get(image_url, timeout=10).status_code == 404
