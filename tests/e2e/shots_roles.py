"""Screenshots of /moderation, /operations and /me (run by hand; not collected)."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from playwright.sync_api import Browser
from sqlmodel import Session

from benchmax.adapters.storage import build_storage
from benchmax.services.accounts import find_user_by_handle
from benchmax.services.moderation import appeals, takedowns
from benchmax.services.operations import record_sample
from tests.e2e.conftest import OWNER_HANDLE, LiveApp, make_people, sign_in, wait_ready
from tests.factories import make_report, make_test

OUT = Path("/work/wt/shots/roles")


@pytest.mark.timeout(1200)
def test_roles_shots(live_app: LiveApp, browser: Browser) -> None:
    people = make_people(live_app, "contributor", "reporter", "moderator")
    with Session(live_app.engine) as session:
        mod = find_user_by_handle(session, people["moderator"])
        author = find_user_by_handle(session, people["contributor"])
        reporter = find_user_by_handle(session, people["reporter"])
        assert mod
        assert author
        assert reporter
        reported = make_test(session, author, title=f"Reported Test {secrets.token_hex(2)}")
        make_report(session, reported, reporter)
        removed = make_test(session, author, title="Removed then appealed Test")
        takedowns.remove_test(session, mod, removed.id, "Looks like an advert, not a Test.")
        appeals.open_appeal(
            session, author, removed.id, "This is a real benchmark of our harness output.",
            per_hour=5,
        )  # fmt: skip
        gone = make_test(session, author, title="Removed, not yet appealed")
        takedowns.remove_test(session, mod, gone.id, "Contains a personal address.")
        record_sample(session, build_storage(live_app.settings))
        gone_id = gone.id
        session.commit()
    for vp_name, vp in (("desktop", {"width": 1280, "height": 900}),
                        ("phone", {"width": 390, "height": 844})):  # fmt: skip
        for scheme in ("light", "dark"):
            for who, path, name in (
                (people["moderator"], "/moderation", "moderation"),
                (people["moderator"], "/moderation?tab=appeals", "moderation-appeals"),
                (people["moderator"], "/moderation?tab=accounts", "moderation-accounts"),
                (OWNER_HANDLE, "/operations", "operations"),
                (people["contributor"], "/me", "me"),
            ):
                context = browser.new_context(viewport=vp, color_scheme=scheme)  # type: ignore[arg-type]
                context.set_default_timeout(30_000)
                page = context.new_page()
                sign_in(page, live_app, who)
                page.goto(live_app.url + path)
                wait_ready(page)
                if name == "moderation-accounts":
                    page.fill("#account-handle", people["contributor"][:4])
                    page.click("#account-search")
                    page.wait_for_selector(".account-match")
                if name == "me":
                    page.fill("#token-name", "my harness")
                    page.click("#token-create")
                    page.wait_for_selector("#curl-example")
                    page.click(f"#appeal-open-{gone_id}")
                page.wait_for_timeout(500)
                overflow = page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                page.screenshot(path=str(OUT / f"{name}-{vp_name}-{scheme}.png"), full_page=True)
                print(name, vp_name, scheme, "overflow", overflow)
                if name == "moderation" and scheme == "light":
                    page.click("[id^=remove-report-]")
                    page.wait_for_selector("[role=alertdialog]")
                    page.screenshot(path=str(OUT / f"moderation-confirm-{vp_name}.png"))
                context.close()
