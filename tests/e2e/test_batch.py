"""One prompt, several setups, one submission — typed as rows, or imported from a panel reply.

A batch of three where one output holds a key makes two public Tests and refuses the third
with its setup and line named, keeping what was typed in it and storing nothing of it. A
panel reply with five seats (one error, one empty) proposes three setups, says why two were
skipped, and each Test it becomes shows its gateway call id as plain text.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from playwright.sync_api import Locator, Page, expect
from sqlmodel import Session, select

from benchmax.models import Test, TestState, User
from benchmax.services.submissions.panel import MAX_REPLY_BYTES
from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE, LiveApp, sign_in, wait_ready
from tests.e2e.test_accessibility import AXE, _problems
from tests.e2e.test_submit import PROCESSING_TIMEOUT, _handle
from tests.support.panel_replies import reply_text, seat
from tests.unit.safety.corpus import canary_fragment, canary_key

SHOTS = ARTIFACTS / "screens" / "batch"
PROMPT = "Build a todo app in one HTML file."


def _to_step_two(app: LiveApp, page: Page) -> str:
    handle = _handle()
    sign_in(page, app, handle)
    page.goto(f"{app.url}/submit")
    wait_ready(page)
    page.fill("#field-prompt", PROMPT)
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Declared setup")
    # The step's heading takes focus once the new step is drawn; only then is the keyboard's.
    expect(page.locator("#wizard-step-title")).to_be_focused()
    page.focus("#mode-single")  # a radio group: arrows move between the choices, Space picks
    page.keyboard.press("ArrowDown")
    expect(page.locator("#mode-several")).to_be_focused()
    page.keyboard.press("Space")
    expect(page.locator("#mode-several")).to_be_checked()
    expect(page.locator(".batch-row")).to_have_count(2)
    expect(page.locator("#mode-several")).to_be_focused()  # the switch keeps the keyboard's place
    expect(page.locator("#step-3")).to_have_count(0)  # submitted from here, not step 5
    return handle


def _field(row: Locator, name: str) -> Locator:
    return row.locator(f"input[id$='-{name}'], textarea[id$='-{name}']")


def _fill(row: Locator, **values: str) -> None:
    for name, value in values.items():
        _field(row, name).fill(value)
        _field(row, name).blur()


def _tests_of(app: LiveApp, handle: str) -> list[Test]:
    with Session(app.engine) as session:
        user = session.exec(select(User).where(User.handle == handle)).one()
        return list(session.exec(select(Test).where(Test.contributor_id == user.id)).all())


def _submitted(app: LiveApp, handle: str, count: int) -> list[Test]:
    """The contributor's submitted Tests once ``count`` of them are public."""
    deadline = time.monotonic() + PROCESSING_TIMEOUT / 1000
    while True:
        made = [t for t in _tests_of(app, handle) if t.state != TestState.DRAFT]
        if sum(t.state == TestState.PUBLIC for t in made) >= count or time.monotonic() > deadline:
            return made
        time.sleep(0.5)


def _shots(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}-desktop.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(SHOTS / f"{name}-phone.png"), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name} scrolls sideways at phone width ({width}px)"
    page.set_viewport_size(DESKTOP)


def test_three_setups_one_holding_a_key_make_two_tests_and_name_the_third(
    live_app: LiveApp, page: Page
) -> None:
    handle = _to_step_two(live_app, page)
    page.focus("#row-add")
    page.keyboard.press("Enter")
    rows = page.locator(".batch-row")
    expect(rows).to_have_count(3)
    expect(_field(rows.nth(2), "model_label")).to_be_focused()  # the new row, ready to type
    key = canary_key()
    leaked = f"Here it is.\nexport ANTHROPIC_API_KEY={key}\nDone."
    _fill(rows.nth(0), model_label="Claude Sonnet 4.5", harness_label="Claude Code",
          reasoning_label="high", output_text="One file, works offline.")  # fmt: skip
    _fill(rows.nth(1), model_label="GPT-5", harness_label="Codex CLI",
          reasoning_label="medium", output_text=leaked)  # fmt: skip
    _fill(rows.nth(2), model_label="Gemini 2.5 Pro", harness_label="Gemini CLI",
          reasoning_label="low", attempts="2", output_text="Done in one go.")  # fmt: skip
    # Checked as it is typed, like any wizard field: refused beside it, kept in the browser.
    beside = rows.nth(1).locator("[id$='-error-output_text']")
    expect(beside).to_contain_text("Line 2 of the output looks like an Anthropic API key")
    _shots(page, "rows")

    page.click("#batch-submit")
    expect(page.locator("#batch-results-box")).to_be_focused(timeout=PROCESSING_TIMEOUT)
    results = page.locator("#batch-results")
    expect(results.locator(".batch-result")).to_have_count(3, timeout=PROCESSING_TIMEOUT)
    expect(page.locator("#result-1")).to_have_attribute("data-made", "1")
    expect(page.locator("#result-3")).to_have_attribute("data-made", "1")
    refused = page.locator("#result-2")
    expect(refused).to_have_attribute("data-made", "0")
    # Named as it was when sent, and as the one row left below is now numbered.
    expect(refused).to_contain_text("Setup 2 · GPT-5 was not submitted (now Setup 1 below)")
    expect(rows.nth(0)).to_contain_text("Setup 1")
    expect(refused).to_contain_text("Line 2 of the output looks like an Anthropic API key")
    expect(refused).not_to_contain_text(key[10:40])
    # The refused setup stays to be fixed, with everything typed in it.
    expect(rows).to_have_count(1)
    expect(_field(rows.nth(0), "model_label")).to_have_value("GPT-5")
    expect(_field(rows.nth(0), "output_text")).to_have_value(leaked)
    expect(rows.nth(0).locator("[id$='-error-output_text']")).to_contain_text(
        "Line 2 of the output"
    )
    _shots(page, "results")

    made = _submitted(live_app, handle, 2)
    assert sorted(t.model_label for t in made) == ["Claude Sonnet 4.5", "Gemini 2.5 Pro"]
    assert {t.state for t in made} == {TestState.PUBLIC}
    assert {t.prompt for t in made} == {PROMPT}
    assert len({t.prompt_key for t in made}) == 1
    # Nothing of the refused setup is stored: no row, no trace of its key anywhere on disk.
    assert all(t.model_label != "GPT-5" for t in _tests_of(live_app, handle))
    fragment = canary_fragment(key).encode()
    database = Path(live_app.settings.resolved_database_url.removeprefix("sqlite:///"))
    for path in [database, *database.parent.glob(database.name + "-*"), live_app.log_path]:
        if path.exists():
            assert fragment not in path.read_bytes(), path

    page.click("#result-link-1")
    expect(page.locator("#setup-model")).to_have_text("Claude Sonnet 4.5")
    expect(page.locator("#setup-gateway-call-id")).to_have_count(0)  # none declared


def test_a_five_seat_panel_reply_proposes_three_setups_and_the_tests_show_their_call_ids(
    live_app: LiveApp, page: Page, tmp_path: Path
) -> None:
    handle = _to_step_two(live_app, page)
    # Not a reply: said plainly, naming what is missing, and the rows stay as they were.
    broken = tmp_path / "calls.jsonl"
    broken.write_text(json.dumps({"choices": []}))
    page.set_input_files("#panel-file", str(broken))
    expect(page.locator("#panel-error")).to_contain_text("This JSON has no bench field")
    expect(page.locator(".batch-row")).to_have_count(2)
    # One too large for the page to send is held back in the browser, and said so.
    huge = tmp_path / "huge.json"
    huge.write_text(reply_text([seat(1, "m", answer="a" * MAX_REPLY_BYTES)]))
    page.set_input_files("#panel-file", str(huge))
    expect(page.locator("#panel-error")).to_contain_text(f"at most {MAX_REPLY_BYTES:,} bytes")

    page.fill("#panel-paste", reply_text())
    page.click("#panel-import")
    rows = page.locator(".batch-row")
    expect(rows).to_have_count(3)
    expect(page.locator("#panel-note")).to_contain_text("3 setups proposed, 2 seats skipped")
    skipped = page.locator("#panel-skipped li")
    expect(skipped).to_have_count(2)
    expect(skipped.nth(0)).to_contain_text("Seat 3")
    expect(skipped.nth(0)).to_contain_text("The gateway reported an error: upstream timeout")
    expect(skipped.nth(1)).to_contain_text("Seat 4")
    expect(skipped.nth(1)).to_contain_text("empty answer")
    models = ["anthropic/claude-sonnet-4.5", "openai/gpt-5", "x-ai/grok-4"]
    for n, model in enumerate(models):
        expect(_field(rows.nth(n), "model_label")).to_have_value(model)
        expect(_field(rows.nth(n), "harness_label")).to_have_value("Benchwarmers web-ui")
        expect(_field(rows.nth(n), "reasoning_label")).to_have_value("")
    expect(_field(rows.nth(2), "gateway_call_id")).to_have_value("call_0005")
    # The contributor edits what was proposed and gives each setup its reasoning.
    _fill(rows.nth(1), model_label="GPT-5")
    for n in range(3):
        _fill(rows.nth(n), reasoning_label="high")
    page.add_script_tag(path=str(AXE))
    problems = _problems(page, "/submit (several setups, imported)")
    assert not problems, "\n".join(problems)
    _shots(page, "panel")

    page.click("#batch-submit")
    expect(page.locator("#batch-results .batch-result[data-made='1']")).to_have_count(
        3, timeout=PROCESSING_TIMEOUT
    )
    made = _submitted(live_app, handle, 3)
    assert {t.state for t in made} == {TestState.PUBLIC}
    by_call = {t.gateway_call_id: t for t in made}
    assert set(by_call) == {"call_0001", "call_0002", "call_0005"}
    assert by_call["call_0002"].model_label == "GPT-5"
    assert {t.harness_label for t in made} == {"Benchwarmers web-ui"}
    for call_id, test in by_call.items():
        page.goto(f"{live_app.url}/tests/{test.id}")
        wait_ready(page)
        shown = page.locator("#setup-gateway-call-id")
        expect(shown).to_have_text(call_id)
        expect(page.locator(f"a:has-text('{call_id}')")).to_have_count(0)  # never a link
    _shots(page, "test-page")
