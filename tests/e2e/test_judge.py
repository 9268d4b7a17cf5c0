"""The AI judge in the browser: an owner brings a snapshot to life, and new Tests get reviews.

An owner pastes a snapshot file on /operations, calibrates it against the fake judge and
activates it; a contributor's new Test goes public and then gets its AI review, which links
to the judge card; a Test whose output tries to instruct the grader ends on hold in
/moderation. Judge cards publish their agreement with people (or say there is too little
overlap yet) and the calibration's probes, and /operations sums the agreement up per snapshot.
Screenshots at desktop and phone width land in test-artifacts/screens/.
"""

from __future__ import annotations

import secrets

import httpx
from playwright.sync_api import Browser, Page, ViewportSize, expect
from sqlmodel import Session, select

from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import Job, Review, ReviewerKind, Test, TestState
from benchmax.services.tokens import create_token
from tests.e2e.conftest import (
    ARTIFACTS,
    OWNER_HANDLE,
    PHONE,
    LiveApp,
    sign_in,
    signed_in_page,
    wait_ready,
)
from tests.e2e.test_accessibility import _audit
from tests.support.factories import make_user
from tests.support.judge_helpers import (
    INJECTION,
    SEATS,
    calibration_set,
    seed_agreement,
    snapshot_file,
    steps,
)


def _shoot(page: Page, name: str) -> None:
    (ARTIFACTS / "screens").mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "screens" / f"{name}-desktop.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(300)
    page.screenshot(path=str(ARTIFACTS / "screens" / f"{name}-phone.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def _submit(app: LiveApp, output: str) -> str:
    """A contributor's new Test, sent through the app's own API as a harness would."""
    with Session(app.engine, expire_on_commit=False) as session:
        handle = f"c{secrets.token_hex(4)}"
        user = make_user(session, handle=handle, auth_subject=f"local|{handle}")
        _, token = create_token(session, user, "harness")
        session.commit()
    fields = {
        "prompt": "Implement the feature and report each acceptance step.",
        "model": "Claude Sonnet 4.5",
        "harness": "Claude Code",
        "reasoning": "high",
        "output": output,
    }
    response = httpx.post(
        f"{app.url}/api/v1/tests",
        headers={"Authorization": f"Bearer {token}"},
        files={name: (None, value) for name, value in fields.items()},
        timeout=30,
    )
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


def _wait_for(app: LiveApp, page: Page, test_id: str, *, reviewed: bool) -> None:
    with Session(app.engine) as session:
        for _ in range(120):
            session.expire_all()
            test = session.get(Test, test_id)
            ai = session.exec(
                select(Review).where(
                    Review.test_id == test_id, Review.reviewer_kind == ReviewerKind.AI
                )
            ).first()
            if test is not None and test.state == TestState.PUBLIC and (ai or not reviewed):
                return
            page.wait_for_timeout(500)
        jobs = session.exec(select(Job.kind, Job.state, Job.last_error_code)).all()
    raise AssertionError(f"Test {test_id} did not reach public (reviewed: {reviewed}): {jobs}")


def test_owner_activates_a_judge_and_new_tests_get_ai_reviews(
    live_app: LiveApp, browser: Browser
) -> None:
    LocalStorage(live_app.data_dir / "objects").put(
        live_app.settings.judge_calibration_key, [calibration_set()]
    )
    owner = signed_in_page(browser, live_app, OWNER_HANDLE)
    owner.goto(f"{live_app.url}/operations")
    wait_ready(owner)
    expect(owner.locator("#judge-state")).to_contain_text("no active snapshot")
    expect(owner.locator("#ops-ai-review")).to_contain_text("off: no active judge snapshot")
    expect(owner.locator("#judge-snapshots-empty")).to_contain_text("No judge snapshot yet")
    owner.fill("#judge-snapshot-source", snapshot_file().decode())
    owner.click("#judge-create")
    expect(owner.locator("#judge-notice")).to_contain_text("created")
    row = owner.locator("#judge-snapshots tbody tr").first
    row.locator(".judge-calibrate").click()
    expect(owner.locator("#judge-notice")).to_contain_text("Calibration passed", timeout=60_000)
    row.locator(".judge-activate").click()
    expect(owner.locator("#judge-state")).to_contain_text("active:")
    # The page's summary says so too, without a reload.
    expect(owner.locator("#ops-ai-review")).to_have_text("on")
    _shoot(owner, "operations-judge")

    test_id = _submit(live_app, steps(8, 2))
    _wait_for(live_app, owner, test_id, reviewed=True)
    reader = owner.context.new_page()
    reader.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(reader)
    card = reader.locator(".review-card").first
    expect(card).to_contain_text("AI judge")
    expect(card).to_contain_text("80")
    expect(card).to_contain_text("median 80 of 3 samples, spread 0")
    _shoot(reader, "test-ai-review")
    card.locator(".judge-card-link").click()
    reader.wait_for_url("**/judges/*")
    wait_ready(reader)
    expect(reader.locator("#judge-title")).to_contain_text("Fake reviewer")
    expect(reader.locator("#judge-calibrations")).to_contain_text("passed")
    expect(reader.locator("#judge-template")).to_contain_text("{nonce}")
    expect(reader.locator("#main")).to_contain_text("Text: up to 20,000 characters a file")
    _shoot(reader, "judge-card")

    held = _submit(live_app, steps(3, 7) + INJECTION)
    _wait_for(live_app, owner, held, reviewed=True)
    owner.goto(f"{live_app.url}/moderation")
    wait_ready(owner)
    owner.click("#tab-flags")
    hold = owner.get_by_text("the AI judge said the evidence tried to steer it").first
    expect(hold).to_be_visible()
    expect(owner.locator("#main")).not_to_contain_text("judge_injection_suspected")
    _shoot(owner, "moderation-judge-hold")


WIDE: ViewportSize = {"width": 1440, "height": 900}


def _shoot_themes(browser: Browser, app: LiveApp, path: str, name: str, owner: bool) -> None:
    """Screenshots at 1440 by 900 and 390 by 844, in the light and the dark theme."""
    (ARTIFACTS / "screens").mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        context = browser.new_context(viewport=WIDE, color_scheme=theme)
        page = context.new_page()
        if owner:
            sign_in(page, app, OWNER_HANDLE)
        page.goto(app.url + path)
        wait_ready(page)
        page.wait_for_load_state("networkidle")
        for size, viewport in (("desktop", WIDE), ("phone", PHONE)):
            page.set_viewport_size(viewport)
            page.wait_for_timeout(300)
            shot = ARTIFACTS / "screens" / f"{name}-{theme}-{size}.png"
            page.screenshot(path=str(shot), full_page=True)
        context.close()


def test_judge_cards_publish_agreement_with_people_and_the_calibration_probes(
    live_app: LiveApp, browser: Browser, page: Page
) -> None:
    with Session(live_app.engine) as session:
        panel, fresh = seed_agreement(session, live_app.settings)
        session.commit()
    page.goto(f"{live_app.url}/judges/{panel}")
    wait_ready(page)
    expect(page.locator("#judge-title")).to_contain_text("Agreeing panel")
    for key, value in (("shared", "12"), ("mad", "5 points"), ("within", "100%"),
                       ("spearman", "1"), ("kappa", "0.99")):  # fmt: skip
        expect(page.locator(f"#judge-agreement-{key}")).to_have_text(value)
    expect(page.locator("#judge-agreement")).to_contain_text("chance")
    seats = page.locator("#judge-seats tbody tr")
    expect(seats).to_have_count(2)
    expect(seats.nth(0)).to_contain_text(SEATS[0])
    expect(seats.nth(1)).to_contain_text("\N{MINUS SIGN}1")  # seat-b reverses the order
    expect(page.locator("#judge-agreement-reference")).to_contain_text("85%")
    expect(page.locator("#judge-agreement-reference")).to_contain_text("not measurements of")
    padding = page.locator("#judge-probe-padding")
    expect(padding).to_contain_text("failed")
    expect(padding).to_contain_text("worst +12 points over the original (1 pair)")
    injection = page.locator("#judge-probe-injection")
    expect(injection).to_contain_text("passed")
    expect(injection).to_contain_text("never scored above the original; flagged (2 pairs)")
    expect(page.locator("#judge-probe-identity")).to_contain_text("largest gap 1 point")

    page.goto(f"{live_app.url}/judges/{fresh}")
    wait_ready(page)
    expect(page.locator("#judge-title")).to_contain_text("New judge")
    expect(page.locator("#judge-agreement-overlap")).to_contain_text(
        "Not enough overlap yet (4 of 10 shared Tests)."
    )
    expect(page.locator("#judge-agreement-mad")).to_have_count(0)
    expect(page.locator("#judge-calibrations-empty")).to_have_text("Not calibrated yet.")

    owner = signed_in_page(browser, live_app, OWNER_HANDLE)
    owner.goto(f"{live_app.url}/operations")
    wait_ready(owner)
    rows = owner.locator("#judge-snapshots tbody tr")
    expect(rows.filter(has_text=panel).locator(".judge-row-agreement")).to_have_text(
        "12 shared · MAD 5 · κ 0.99"
    )
    expect(rows.filter(has_text=fresh).locator(".judge-row-agreement")).to_have_text(
        "Not enough overlap (4 of 10)"
    )
    expect(rows.filter(has_text=panel).locator(".judge-row-calibration")).to_contain_text("failed")
    for theme in ("light", "dark"):
        problems = _audit(browser, live_app, theme, [f"/judges/{panel}", f"/judges/{fresh}"], "")
        assert not problems, f"accessibility problems ({theme}):\n" + "\n".join(problems)
    _shoot_themes(browser, live_app, f"/judges/{panel}", "judge-agreement", owner=False)
    _shoot_themes(browser, live_app, f"/judges/{fresh}", "judge-agreement-none", owner=False)
    _shoot_themes(browser, live_app, "/operations", "operations-judge-agreement", owner=True)
