"""A pasted key is refused beside the field it was typed into, and what was typed stays.

Review, report and dispute on a Test page, an API token's name on /me, the display name at
sign-in, a moderator's reason and an operator's reason: each form gets a fresh fake key,
shows the wizard's kind of message next to the field, keeps the text for editing, and the
app's database file and server log hold no trace of the key afterwards.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session

from benchmax.models import Job, JobState
from benchmax.services.moderation import reports
from tests.e2e.conftest import (
    ARTIFACTS,
    OWNER_HANDLE,
    PHONE,
    LiveApp,
    make_people,
    sign_in,
    signed_in_page,
    wait_ready,
)
from tests.support.factories import make_review, make_test
from tests.unit.safety.corpus import canary_fragment, canary_key

SCREENS = ARTIFACTS / "screens"


def _people(app: LiveApp) -> dict[str, str]:
    return make_people(app, "contributor", "reviewer", "moderator")


def _published_with_review(app: LiveApp, people: dict[str, str]) -> tuple[str, str, str]:
    """A public Test by the contributor, reviewed once, and a report on it: their ids."""
    from benchmax.services.accounts import find_user_by_handle

    with Session(app.engine) as session:
        contributor = find_user_by_handle(session, people["contributor"])
        reviewer = find_user_by_handle(session, people["reviewer"])
        assert contributor is not None
        assert reviewer is not None
        test = make_test(session, contributor, title=f"Keys {secrets.token_hex(3)}")
        review = make_review(session, test, reviewer)
        report = reports.create_report(session, reviewer, test.id, "spam", "", per_hour=9)
        session.commit()
        return test.id, review.id, report.id


def _paste(key: str) -> str:
    return f"I ran it with this.\nexport ANTHROPIC_API_KEY={key}"


def _refused_beside(page: Page, error: str, field: str, typed: str, where: str) -> None:
    message = page.locator(error)
    expect(message).to_contain_text(f"Line 2 of the {where} looks like an Anthropic API key")
    expect(message).not_to_contain_text(typed.split("=")[-1][10:40])
    expect(page.locator(field)).to_have_value(typed)


def _no_trace(app: LiveApp, key: str) -> None:
    fragment = canary_fragment(key).encode()
    database = Path(app.settings.resolved_database_url.removeprefix("sqlite:///"))
    files = [database, *database.parent.glob(database.name + "-*"), app.log_path]
    for path in files:
        if path.exists():
            assert fragment not in path.read_bytes(), path


def test_review_report_and_dispute_forms_refuse_a_key_beside_the_field(
    live_app: LiveApp, browser: Browser
) -> None:
    key = canary_key()
    people = _people(live_app)
    test_id, review_id, _report = _published_with_review(live_app, people)

    reviewer = signed_in_page(browser, live_app, people["reviewer"])
    reviewer.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(reviewer)
    reviewer.fill("#review-score", "40")
    reviewer.fill("#review-reasoning", _paste(key))
    reviewer.click("#review-submit")
    _refused_beside(
        reviewer, "#review-reasoning-error", "#review-reasoning", _paste(key), "review reasoning"
    )
    reviewer.locator("#review-reasoning").scroll_into_view_if_needed()
    reviewer.screenshot(path=str(SCREENS / "secret-refused-review-desktop.png"))
    reviewer.set_viewport_size(PHONE)
    reviewer.locator("#review-reasoning-error").scroll_into_view_if_needed()
    reviewer.screenshot(path=str(SCREENS / "secret-refused-review-phone.png"))

    reviewer.click("#report-open")
    reviewer.select_option("#report-reason", "other")
    reviewer.fill("#report-details", _paste(key))
    reviewer.click("#report-submit")
    _refused_beside(reviewer, "#report-error", "#report-details", _paste(key), "report details")

    contributor = signed_in_page(browser, live_app, people["contributor"])
    contributor.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(contributor)
    contributor.click(f"#dispute-open-{review_id}")
    contributor.fill("#dispute-reason", _paste(key))
    contributor.click("#dispute-submit")
    _refused_beside(contributor, "#dispute-error", "#dispute-reason", _paste(key), "dispute reason")
    # Fixing the text is all it takes: the same form then goes through.
    contributor.fill("#dispute-reason", "The screenshot shows every requirement met.")
    contributor.click("#dispute-submit")
    expect(contributor.locator("#dispute-notice")).to_be_visible()
    _no_trace(live_app, key)


def test_a_token_name_and_a_display_name_refuse_a_key(live_app: LiveApp, page: Page) -> None:
    key = canary_key()
    handle = f"name{secrets.token_hex(3)}"
    page.goto(f"{live_app.url}/sign-in")
    wait_ready(page)
    page.fill("#handle", handle)
    page.fill("#display_name", key)  # the field keeps 80 characters, still a key
    page.click("#sign-in-submit")
    error = page.locator("#sign-in-error")
    expect(error).to_contain_text("Line 1 of the display name looks like an Anthropic API key")
    expect(page.locator("#display_name")).to_have_value(key[:80])
    expect(page.locator("#handle")).to_have_value(handle)

    sign_in(page, live_app, handle, display_name="Ada")
    page.goto(f"{live_app.url}/me")
    wait_ready(page)
    page.fill("#token-name", key)
    page.click("#token-create")
    token_error = page.locator("#token-error")
    expect(token_error).to_contain_text("Line 1 of the token name looks like an Anthropic API key")
    expect(page.locator("#token-name")).to_have_value(key[:80])
    expect(page.locator("#new-token")).to_have_count(0)
    page.screenshot(path=str(SCREENS / "secret-refused-token-desktop.png"))
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(SCREENS / "secret-refused-token-phone.png"))
    _no_trace(live_app, key)


def test_moderator_and_operator_reasons_refuse_a_key(live_app: LiveApp, browser: Browser) -> None:
    key = canary_key()
    people = _people(live_app)
    _test_id, _review, report_id = _published_with_review(live_app, people)
    moderator = signed_in_page(browser, live_app, people["moderator"])
    moderator.goto(f"{live_app.url}/moderation")
    wait_ready(moderator)
    moderator.click("#tab-reports")
    case = f"report-{report_id}"
    moderator.fill(f"#reason-{case}", _paste(key))
    moderator.click(f"#remove-{case}")  # removal asks in a dialog first
    moderator.click(f"#confirm-remove-{case}")
    _refused_beside(moderator, f"#error-{case}", f"#reason-{case}", _paste(key), "reason")

    with Session(live_app.engine) as session:
        job = Job(kind="publish_test", subject_id="nothing", state=JobState.DEAD, attempts=5)
        session.add(job)
        session.commit()
        job_id = job.id
    owner = signed_in_page(browser, live_app, OWNER_HANDLE)
    owner.goto(f"{live_app.url}/operations")
    wait_ready(owner)
    expect(owner.locator(f"#ops-dead-{job_id}")).to_be_visible(timeout=20_000)
    owner.fill(f"#ops-reason-{job_id}", f"Retry with {key}")
    owner.click(f"#ops-requeue-{job_id}")
    expect(owner.locator(f"#ops-reason-error-{job_id}")).to_contain_text(
        "Line 1 of the reason looks like an Anthropic API key"
    )
    expect(owner.locator(f"#ops-reason-{job_id}")).to_have_value(f"Retry with {key}")
    expect(owner.locator(f"#ops-dead-{job_id}")).to_be_visible()
    owner.screenshot(path=str(SCREENS / "secret-refused-operations-desktop.png"))
    owner.set_viewport_size(PHONE)
    owner.locator(f"#ops-reason-error-{job_id}").scroll_into_view_if_needed()
    owner.screenshot(path=str(SCREENS / "secret-refused-operations-phone.png"))
    _no_trace(live_app, key)
