"""A suspended contributor can still see their own Tests on /me: reads are not writes."""

from __future__ import annotations

import secrets

from playwright.sync_api import Page, expect
from sqlmodel import Session

from benchmax.models import AccountStatus, TestState, User
from benchmax.services.accounts import find_user_by_handle
from tests.e2e.conftest import ARTIFACTS, LiveApp, sign_in, wait_ready
from tests.support.factories import make_test


def test_a_suspended_contributor_still_sees_their_tests_on_me(
    live_app: LiveApp, page: Page
) -> None:
    handle = f"sus{secrets.token_hex(3)}"
    sign_in(page, live_app, handle)
    with Session(live_app.engine) as session:
        user = find_user_by_handle(session, handle)
        assert user is not None
        make_test(session, user, title="Still mine, public")
        make_test(session, user, title="Still mine, processing", state=TestState.PROCESSING)
        row = session.get(User, user.id)
        assert row is not None
        row.status = AccountStatus.SUSPENDED
        session.add(row)
        session.commit()
    page.goto(f"{live_app.url}/me")
    wait_ready(page)
    rows = page.locator(".my-test")
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text="Still mine, public")).to_contain_text("Awaiting review")
    expect(rows.filter(has_text="Still mine, processing")).to_contain_text("Processing")
    # Told up front, not only when an action is refused.
    expect(page.locator("#suspended-notice")).to_contain_text("Your account is suspended")
    page.screenshot(path=str(ARTIFACTS / "screens" / "me-suspended-desktop.png"))
    # The token form says so too: it is disabled (the server refuses one all the same).
    expect(page.locator("#token-name")).to_be_disabled()
    expect(page.locator("#token-create")).to_be_disabled()
    expect(page.locator("#new-token")).to_have_count(0)
