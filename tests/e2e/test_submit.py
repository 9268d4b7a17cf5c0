"""The submission wizard end to end: a contributor's evidence goes in, a public Test comes out."""

from __future__ import annotations

import io
import re
import secrets
import zipfile

from playwright.sync_api import FilePayload, Page, expect
from sqlmodel import Session, col, select

from benchmax.models import Test, User
from benchmax.services import submissions
from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE, ROOT, LiveApp, sign_in, wait_ready
from tests.support.factories import png

PROCESSING_TIMEOUT = 60_000


# The preview runs a browser in a sandbox after publication: allow for a loaded machine.
PREVIEW_TIMEOUT = 150_000


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("index.html", "<!doctype html><title>demo</title><p>hello</p>")
        archive.writestr("app.js", "console.log('hello');\n")
    return buffer.getvalue()


def _handle() -> str:
    return f"wiz{secrets.token_hex(4)}"


def _files(*items: tuple[str, str, bytes]) -> list[FilePayload]:
    return [{"name": n, "mimeType": m, "buffer": b} for n, m, b in items]


def _open_wizard_with_a_key(app: LiveApp, page: Page) -> tuple[str, str]:
    """A new contributor on /submit, and an Anthropic-shaped key for them to paste."""
    handle = _handle()
    sign_in(page, app, handle)
    page.goto(f"{app.url}/submit")
    wait_ready(page)
    return handle, "sk-ant-" + "api03-" + secrets.token_urlsafe(70)[:93] + "AA"


def _fill_steps_one_and_two(page: Page, prompt: str) -> None:
    page.fill("#field-prompt", prompt)
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Declared setup")
    page.click("#wizard-next")  # required fields are flagged, and the step stays
    expect(page.locator("#error-harness_label")).to_contain_text("harness")
    expect(page.locator("#wizard-step-title")).to_have_text("Declared setup")
    page.fill("#field-model_label", "claude sonnet 4.5")
    page.fill("#field-harness_label", "Claude Code")
    page.fill("#field-reasoning_label", "high")
    page.fill("#field-attempts", "2")
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Output & evidence")


def _upload(page: Page, *items: tuple[str, str, bytes], expected_rows: int) -> None:
    page.set_input_files("#evidence-input", files=_files(*items))
    expect(page.locator(".file-row")).to_have_count(expected_rows, timeout=30_000)


def _finish(page: Page) -> None:
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Details")
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Review & submit")
    page.click("#wizard-submit")
    expect(page.locator("#processing-panel")).to_be_visible()


def test_wizard_publishes_text_image_and_zip(live_app: LiveApp, page: Page) -> None:
    sign_in(page, live_app, _handle())
    page.goto(f"{live_app.url}/submit")
    wait_ready(page)
    _fill_steps_one_and_two(page, "Draw a blue rectangle and ship the page as a ZIP.")
    page.fill("#field-output_text", "Here is **the page** and a screenshot.")
    _upload(
        page,
        ("shot.png", "image/png", png()),
        ("site.zip", "application/zip", _zip()),
        expected_rows=2,
    )
    _finish(page)
    page.screenshot(path=str(ARTIFACTS / "screens" / "submit-processing-desktop.png"))
    link = page.locator("#processing-public-link")
    expect(link).to_be_visible(timeout=PROCESSING_TIMEOUT)
    page.screenshot(path=str(ARTIFACTS / "screens" / "submit-published-desktop.png"))
    link.click()
    page.wait_for_url("**/tests/*")
    wait_ready(page)
    expect(page.locator("#test-prompt")).to_contain_text("Draw a blue rectangle")
    expect(page.locator("#setup-attempts")).to_have_text("best of 2 attempts")
    expect(page.locator("img.evidence-image")).to_be_visible()
    page.wait_for_function("() => document.querySelector('img.evidence-image').naturalWidth > 0")
    # Public at once; the automated preview runs afterwards and shows up on this same page
    # by itself: the marker set now would be gone after any reload.
    page.evaluate("() => { window.__noReload = true; }")
    expect(page.locator("#preview-section")).to_be_visible()
    expect(page.locator("#preview-done")).to_be_visible(timeout=PREVIEW_TIMEOUT)
    assert page.evaluate("() => window.__noReload === true")
    expect(page.locator("#preview-section")).to_contain_text("with no network")
    page.wait_for_function("() => document.querySelector('#preview-screenshot').naturalWidth > 0")
    expect(page.locator("#preview-done")).to_contain_text("Console errors:")
    section = page.locator("#preview-section")
    section.screenshot(path=str(ARTIFACTS / "screens" / "test-preview-desktop.png"))
    page.set_viewport_size(PHONE)
    section.screenshot(path=str(ARTIFACTS / "screens" / "test-preview-phone.png"))
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")


def test_reload_in_step_three_keeps_the_files(live_app: LiveApp, page: Page) -> None:
    sign_in(page, live_app, _handle())
    page.goto(f"{live_app.url}/submit")
    wait_ready(page)
    _fill_steps_one_and_two(page, "Reload me halfway through.")
    page.set_input_files(
        "#evidence-input", files=_files(("tool.exe", "application/x-msdownload", b"MZ\x90\x00"))
    )
    expect(page.locator(".upload-failed")).to_contain_text("Not accepted")
    _upload(
        page,
        ("first.png", "image/png", png()),
        ("notes.txt", "text/plain", b"log line\n"),
        expected_rows=2,
    )
    page.reload()
    wait_ready(page)
    expect(page.locator("#wizard-step-title")).to_have_text("Output & evidence")
    expect(page.locator(".file-name")).to_have_count(2)
    assert sorted(page.locator(".file-name").all_inner_texts()) == ["first.png", "notes.txt"]
    page.click("#step-1")
    expect(page.locator("#field-prompt")).to_have_value("Reload me halfway through.")


def test_a_prompt_with_a_key_is_refused_and_nothing_is_stored(
    live_app: LiveApp, page: Page
) -> None:
    handle, key = _open_wizard_with_a_key(live_app, page)
    prompt = f"Summarise this.\nMy key:\n{key}\n"
    page.fill("#field-prompt", prompt)
    page.click("#wizard-next")
    error = page.locator("#error-prompt")
    expect(error).to_contain_text("Anthropic API key")
    expect(error).to_contain_text("Line 3")
    expect(page.locator("#field-prompt")).to_have_value(prompt)  # nothing typed is lost
    with Session(live_app.engine) as session:
        user = session.exec(select(User).where(User.handle == handle)).one()
        rows = session.exec(select(Test).where(Test.contributor_id == user.id)).all()
        assert all(key not in row.prompt for row in rows)
        assert not session.exec(select(Test).where(col(Test.prompt).contains("sk-ant-"))).first()
    # Nor anywhere on disk: not in the data directory, and not in Reflex's state files.
    for folder in (live_app.data_dir, ROOT / ".states"):
        for path in folder.rglob("*") if folder.exists() else []:
            if path.is_file():
                assert key.encode() not in path.read_bytes(), path


def _screens(page: Page, name: str) -> None:
    """Screenshots of the current screen at desktop width, then at phone width."""
    for viewport, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.wait_for_timeout(300)
        page.screenshot(path=str(ARTIFACTS / "screens" / f"{name}-{viewport}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)


def test_each_file_shows_its_verdict_in_step_three_and_me_says_when_the_draft_expires(
    live_app: LiveApp, page: Page
) -> None:
    sign_in(page, live_app, _handle())
    page.goto(f"{live_app.url}/submit")
    wait_ready(page)
    _fill_steps_one_and_two(page, "A screenshot, a log with a key in it, and a fake PNG.")
    key = "sk-ant-" + "api03-" + secrets.token_urlsafe(70)[:93] + "AA"
    _upload(
        page,
        ("shot.png", "image/png", png()),
        ("run.log", "text/plain", f"step 1 ok\nexport KEY={key}\n".encode()),
        ("screen.png", "image/png", b"this is plain text, not an image\n"),
        expected_rows=3,
    )
    rows = {name: page.locator(".file-row", has_text=name) for name in ("shot.png", "run.log")}
    rows["screen.png"] = page.locator(".file-row", has_text="screen.png")
    # Scanned on upload, before any submit: the list polls until every verdict is in.
    expect(rows["shot.png"].locator(".file-verdict")).to_have_text(
        "✓ passed the safety scan", timeout=PROCESSING_TIMEOUT
    )
    for name, reason in (("run.log", "Anthropic API key"), ("screen.png", "named like an image")):
        expect(rows[name].locator(".file-verdict")).to_have_text(
            "✗ blocked", timeout=PROCESSING_TIMEOUT
        )
        expect(rows[name].locator(".file-reason")).to_contain_text(reason)
    expect(page.locator("#files-check-now")).to_have_count(0)  # nothing left to check
    assert key not in page.content()
    _screens(page, "submit-step3-verdicts")

    page.goto(f"{live_app.url}/me")
    wait_ready(page)
    draft = page.locator(".my-test").first
    expect(draft.locator(".my-status")).to_have_text("Draft")
    # When, in words ahead of now, with the exact time on hover (``components/dates``).
    expect(draft.locator(".my-expiry")).to_have_text(
        re.compile(r"^Deleted with its files in \d+ (days|hours) unless you edit or submit it\.$")
    )
    expect(draft.locator(".my-expiry time.time-ago")).to_have_attribute(
        "title", re.compile(r" UTC$")
    )
    _screens(page, "me-draft-expiry")

    draft.get_by_role("link", name="Resume draft").click()
    page.wait_for_url("**/submit?draft=*")
    wait_ready(page)
    expect(page.locator("#wizard-step-title")).to_have_text("Output & evidence")
    # One at a time: each removal re-renders the list, and a click aimed at a row while
    # the list is still changing may land on its neighbour.
    for remaining, name in ((2, "run.log"), (1, "screen.png")):
        page.get_by_role("button", name=f"Remove {name}").click()
        expect(page.locator(".file-row")).to_have_count(remaining)
    expect(page.locator(".file-row", has_text="shot.png")).to_have_count(1)
    _finish(page)
    expect(page.locator("#processing-public-link")).to_be_visible(timeout=PROCESSING_TIMEOUT)
    page.goto(f"{live_app.url}/me")
    wait_ready(page)
    expect(page.locator(".my-test").first.locator(".my-expiry")).to_have_count(0)


def test_submitting_with_a_blocked_file_sends_the_contributor_back_to_step_three(
    live_app: LiveApp, page: Page
) -> None:
    sign_in(page, live_app, _handle())
    page.goto(f"{live_app.url}/submit")
    wait_ready(page)
    _fill_steps_one_and_two(page, "A screenshot that is not really a PNG.")
    _upload(
        page, ("screen.png", "image/png", b"this is plain text, not an image\n"), expected_rows=1
    )
    expect(page.locator(".file-reason")).to_contain_text(
        "named like an image", timeout=PROCESSING_TIMEOUT
    )
    # A blocked file is not evidence: with no output text either, step 3 does not let go.
    page.click("#wizard-next")
    expect(page.locator("#error-output_text")).to_contain_text("Add the model's output")
    expect(page.locator("#wizard-step-title")).to_have_text("Output & evidence")
    page.fill("#field-output_text", "The page rendered, see the screenshot.")
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Details")
    page.click("#wizard-next")
    page.click("#wizard-submit")
    expect(page.locator("#wizard-step-title")).to_have_text("Output & evidence")
    expect(page.locator("#error-files")).to_contain_text("did not pass the safety checks")
    page.get_by_role("button", name="Remove screen.png").click()
    expect(page.locator(".file-row")).to_have_count(0)
    _upload(page, ("screen.png", "image/png", png((240, 90, 10))), expected_rows=1)
    _finish(page)
    expect(page.locator("#processing-public-link")).to_be_visible(timeout=PROCESSING_TIMEOUT)


def test_a_new_draft_past_the_accounts_cap_is_refused_with_a_message(
    live_app: LiveApp, page: Page
) -> None:
    handle = _handle()
    sign_in(page, live_app, handle)
    page.goto(f"{live_app.url}/submit")
    wait_ready(page)
    with Session(live_app.engine) as session:
        user = session.exec(select(User).where(User.handle == handle)).one()
        for _ in range(live_app.settings.max_open_drafts):  # opened elsewhere meanwhile
            submissions.create_draft(session, user, live_app.settings)
        user_id = user.id
        session.commit()
    page.fill("#field-prompt", "One draft too many.")
    page.click("#wizard-next")
    expect(page.locator("#error-form")).to_contain_text("open drafts, the most one account")
    expect(page.locator("#field-prompt")).to_have_value("One draft too many.")  # nothing lost
    expect(page.locator("#wizard-step-title")).to_have_text("Prompt")
    with Session(live_app.engine) as session:
        count = len(session.exec(select(Test).where(Test.contributor_id == user_id)).all())
    assert count == live_app.settings.max_open_drafts


def test_after_a_refused_first_save_the_next_save_creates_the_draft(
    live_app: LiveApp, page: Page
) -> None:
    handle, key = _open_wizard_with_a_key(live_app, page)
    page.fill("#field-prompt", f"Use {key} please")
    page.click("#wizard-next")
    expect(page.locator("#error-prompt")).to_contain_text("Anthropic API key")
    with Session(live_app.engine) as session:
        user = session.exec(select(User).where(User.handle == handle)).one()
        assert not session.exec(select(Test).where(Test.contributor_id == user.id)).all()
    # The contributor removes the key; this save must create the draft, not aim at the
    # refused one's id (which never existed) and fail.
    page.fill("#field-prompt", "Write a limerick about caches.")
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Declared setup")
    expect(page.locator("#error-prompt")).to_have_count(0)
    with Session(live_app.engine) as session:
        rows = session.exec(select(Test).where(Test.contributor_id == user.id)).all()
        assert [row.prompt for row in rows] == ["Write a limerick about caches."]
    page.reload()
    wait_ready(page)
    expect(page.locator("#wizard-step-title")).to_have_text("Declared setup")
    page.click("#step-1")
    expect(page.locator("#field-prompt")).to_have_value("Write a limerick about caches.")
