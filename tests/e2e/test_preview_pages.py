"""Previews beyond their Test page: side by side in a comparison group, and their failures on
/operations — with the technical detail there only, never on the Test page."""

from __future__ import annotations

import json
import secrets

from playwright.sync_api import Browser, Locator, Page, expect
from sqlmodel import Session, select

from benchmax.models import PreviewEvaluation
from benchmax.services.derived_text import PREVIEW, gate
from tests.e2e.conftest import ARTIFACTS, OWNER_HANDLE, PHONE, LiveApp, signed_in_page, wait_ready
from tests.support.factories import make_test
from tests.support.preview_rows import AXE, done, failed
from tests.unit.safety.corpus import canary_key

DETAIL = "Timeout 30000ms exceeded."


def _card(page: Page, test_id: str) -> Locator:
    return page.locator(f".group-member:has(a[href='/tests/{test_id}'])")


def _shoot(page: Page, selector: str, name: str) -> None:
    """The element at desktop width, then at phone width (where nothing may scroll sideways)."""
    page.locator(selector).screenshot(path=str(ARTIFACTS / "screens" / f"{name}-desktop.png"))
    page.set_viewport_size(PHONE)
    page.locator(selector).screenshot(path=str(ARTIFACTS / "screens" / f"{name}-phone.png"))
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")


def test_a_comparison_group_shows_preview_figures_side_by_side(
    live_app: LiveApp, page: Page
) -> None:
    prompt = f"Build a tip calculator page {secrets.token_hex(3)} with a split between people."
    with Session(live_app.engine) as session:
        fast = done(session, prompt, load_ms=420, errors=2)
        broken = failed(session, prompt, "page_timeout", DETAIL)
        plain = make_test(session, prompt=prompt)
        session.commit()
        key, ids = fast.prompt_key, (fast.id, broken.id, plain.id)
    page.goto(f"{live_app.url}/prompts/{key}")
    wait_ready(page)
    expect(page.locator(".group-member")).to_have_count(3)
    # None of them has a counted review, so none has a place in the group's order.
    expect(page.locator(".group-member", has_text="Not ranked yet")).to_have_count(3)
    expect(page.locator(".group-member", has_text="in this group")).to_have_count(0)
    figures = _card(page, ids[0]).locator(".member-preview")
    expect(figures.locator(".preview-load")).to_have_text("Load time 0.42 s")
    expect(figures.locator(".preview-errors")).to_have_text("Console errors: 2")
    expect(figures.locator(".preview-a11y")).to_have_text(
        "Accessibility: 2 rules failed (1 serious or critical)"
    )
    expect(_card(page, ids[1]).locator(".member-preview")).to_contain_text(
        "unavailable: the preview failed"
    )
    expect(_card(page, ids[1])).not_to_contain_text("page_timeout")
    expect(_card(page, ids[2]).locator(".member-preview")).to_contain_text("no preview")
    _shoot(page, "#group-members", "prompt-group-previews")


def test_owners_see_preview_failures_and_readers_only_the_plain_reason(
    live_app: LiveApp, browser: Browser, page: Page
) -> None:
    code = f"browser_error:E{secrets.token_hex(3)}"
    with Session(live_app.engine) as session:
        title = f"A clock page {secrets.token_hex(3)}."
        broken = failed(session, title, code, DETAIL)
        session.commit()
        evaluation = session.exec(
            select(PreviewEvaluation).where(PreviewEvaluation.test_id == broken.id)
        ).one()
        test_id, evaluation_id = broken.id, evaluation.id

    page.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(page)
    expect(page.locator("#preview-unavailable")).to_contain_text(
        "Automated preview unavailable: the preview failed"
    )
    body = page.locator("body")
    expect(body).not_to_contain_text(code)
    expect(body).not_to_contain_text(DETAIL)

    owner = signed_in_page(browser, live_app, OWNER_HANDLE)
    owner.goto(f"{live_app.url}/operations")
    wait_ready(owner)
    row = owner.locator(f"#ops-preview-failure-{evaluation_id}")
    expect(row).to_contain_text(code)
    expect(row).to_contain_text(DETAIL)
    expect(row).to_contain_text("the preview failed")
    expect(row.locator("a")).to_have_text(title)  # no title given: the prompt's first line
    expect(row.locator("a")).to_have_attribute("href", f"/tests/{test_id}")
    _shoot(owner, "#ops-preview-failures", "operations-preview-failures")


def test_a_key_the_page_printed_reads_as_a_marker_and_owners_see_the_count(
    live_app: LiveApp, browser: Browser, page: Page
) -> None:
    """The result goes through the derived-text gate as the job stores it; the Test page
    shows what was stored, and /operations how many keys were removed."""
    key = canary_key()
    raw = {"status": "ok", "axe": AXE, "load_ms": 300, "console_error_count": 2,
           "console_errors": [f"config {key}", f"Uncaught Error: boom {key}"]}  # fmt: skip
    with Session(live_app.engine) as session:
        result = gate(session, PREVIEW, raw).value
        test = done(session, f"A leaky page {secrets.token_hex(3)}.", 300, 2)
        evaluation = session.exec(
            select(PreviewEvaluation).where(PreviewEvaluation.test_id == test.id)
        ).one()
        evaluation.result_json = json.dumps(result)
        session.add(evaluation)
        session.commit()
        test_id = test.id
    page.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(page)
    console = page.locator("#preview-console")
    expect(console).to_contain_text("config [removed: looked like an Anthropic API key]")
    expect(page.locator("body")).not_to_contain_text(key[13:45])
    page.set_viewport_size({"width": 1440, "height": 900})
    _shoot(page, "#preview-console", "preview-console-redacted")

    owner = signed_in_page(browser, live_app, OWNER_HANDLE)
    owner.goto(f"{live_app.url}/operations")
    wait_ready(owner)
    expect(owner.locator("#ops-redactions")).to_contain_text("today (preview")
    owner.set_viewport_size({"width": 1440, "height": 900})
    owner.screenshot(path=str(ARTIFACTS / "screens" / "operations-redactions-desktop.png"))
    owner.set_viewport_size(PHONE)
    owner.locator("#ops-redactions").scroll_into_view_if_needed()
    owner.screenshot(path=str(ARTIFACTS / "screens" / "operations-redactions-phone.png"))


def test_readers_are_told_why_the_preview_pictures_are_missing(
    live_app: LiveApp, page: Page
) -> None:
    note = (
        "The screenshot and recording are not shown: the page showed what looks like an "
        "Anthropic API key."
    )
    with Session(live_app.engine) as session:
        shown = done(session, f"A settings page {secrets.token_hex(3)}.", load_ms=380, errors=0)
        evaluation = session.exec(
            select(PreviewEvaluation).where(PreviewEvaluation.test_id == shown.id)
        ).one()
        evaluation.reader_reason = note
        session.add(evaluation)
        session.commit()
        test_id = shown.id

    page.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(page)
    expect(page.locator("#preview-pictures-withheld")).to_have_text(note)
    expect(page.locator("#preview-done")).to_contain_text("0.38 s")
    expect(page.locator("#preview-screenshot")).to_have_count(0)
    expect(page.locator("#preview-video")).to_have_count(0)
    _shoot(page, "#preview-done", "preview-pictures-withheld")
