"""The wizard as a contributor lives it: text saved while typing, the step in the address
bar, each step's required check, per-file verdicts, the review step and the success state."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import (
    APIResponse,
    Browser,
    Dialog,
    FloatRect,
    Locator,
    Page,
    Route,
    expect,
)
from sqlmodel import Session, select

from benchmax.models import EvidenceFile, EvidenceState, Test, User
from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE, LiveApp, sign_in, wait_ready
from tests.e2e.test_submit import (
    PROCESSING_TIMEOUT,
    _files,
    _fill_steps_one_and_two,
    _handle,
    _zip,
)
from tests.support.factories import png

SHOTS = ARTIFACTS / "screens" / "wizard"
SAVED = re.compile(r"^Saved")


def _saved(page: Page) -> None:
    """The status has the server's word for every keystroke (innerText: what is visible)."""
    expect(page.locator("#wizard-saved")).to_have_text(SAVED, use_inner_text=True, timeout=15_000)


def _prompt_of(app: LiveApp, handle: str) -> list[str]:
    with Session(app.engine) as session:
        user = session.exec(select(User).where(User.handle == handle)).one()
        return [t.prompt for t in session.exec(select(Test).where(Test.contributor_id == user.id))]


def _start(app: LiveApp, page: Page) -> str:
    handle = _handle()
    sign_in(page, app, handle)
    page.goto(f"{app.url}/submit")
    wait_ready(page)
    return handle


def _to_step_three(page: Page, prompt: str) -> None:
    _fill_steps_one_and_two(page, prompt)
    # The upload script's own buttons are for the script, never shown.
    expect(page.locator("#files-refresh")).to_be_hidden()
    expect(page.locator("#draft-create")).to_be_hidden()


def test_text_typed_is_saved_without_leaving_the_field_and_survives_a_reload(
    live_app: LiveApp, page: Page
) -> None:
    handle = _start(live_app, page)
    page.locator("#field-prompt").press_sequentially("Write a haiku about", delay=20)
    expect(page.locator("#wizard-saved")).to_have_text("Saving…", use_inner_text=True)
    _saved(page)
    assert _prompt_of(live_app, handle) == ["Write a haiku about"]
    page.locator("#field-prompt").press_sequentially(" caches.", delay=20)
    _saved(page)  # still in the field: nothing was blurred
    expect(page.locator("#wizard-saved")).to_contain_text(re.compile(r"just now|\d+ s ago"))
    page.reload()
    wait_ready(page)
    expect(page.locator("#field-prompt")).to_have_value("Write a haiku about caches.")


def test_a_reload_before_the_save_asks_first_and_staying_keeps_and_saves_the_text(
    live_app: LiveApp, page: Page
) -> None:
    """No local copy is kept (a field may hold a refused key); the browser asks instead."""
    handle = _start(live_app, page)
    dialogs: list[str] = []

    def stay(dialog: Dialog) -> None:
        dialogs.append(dialog.type)
        dialog.dismiss()  # "Stay on page"

    page.on("dialog", stay)
    page.locator("#field-prompt").press_sequentially("Typed and reloaded at once")
    page.evaluate("() => location.reload()")
    for _ in range(100):  # the question comes back through the page's event loop
        if dialogs:
            break
        page.wait_for_timeout(100)
    assert dialogs == ["beforeunload"]
    expect(page.locator("#field-prompt")).to_have_value("Typed and reloaded at once")
    _saved(page)
    assert _prompt_of(live_app, handle) == ["Typed and reloaded at once"]
    page.reload()  # saved now: no question asked
    wait_ready(page)
    expect(page.locator("#field-prompt")).to_have_value("Typed and reloaded at once")
    assert dialogs == ["beforeunload"]


def test_a_key_pasted_mid_typing_is_refused_kept_in_the_field_and_never_stored(
    live_app: LiveApp, page: Page
) -> None:
    handle = _start(live_app, page)
    key = "sk-ant-" + "api03-" + secrets.token_urlsafe(70)[:93] + "AA"
    prompt = page.locator("#field-prompt")
    prompt.press_sequentially("Summarise this log.", delay=10)
    _saved(page)
    prompt.press("End")
    page.keyboard.insert_text(f"\nkey: {key}\n")
    prompt.press_sequentially("Thanks!", delay=10)
    status = page.locator("#wizard-saved")
    expect(status).to_have_text("Not saved — remove the key", use_inner_text=True, timeout=15_000)
    expect(page.locator("#error-prompt")).to_contain_text("Anthropic API key")
    expect(prompt).to_have_value(f"Summarise this log.\nkey: {key}\nThanks!")
    assert _prompt_of(live_app, handle) == ["Summarise this log."]
    assert key not in page.content().replace(prompt.input_value(), "")
    # Leaving now would lose text that is not stored: the step does not change either.
    page.click("#step-2")
    expect(page.locator("#wizard-notice")).to_contain_text("not saved")
    expect(page.locator("#wizard-step-title")).to_have_text("Prompt")
    prompt.fill("Summarise this log. Thanks!")
    _saved(page)
    assert _prompt_of(live_app, handle) == ["Summarise this log. Thanks!"]


def test_very_long_text_is_refused_with_its_size_and_kept(live_app: LiveApp, page: Page) -> None:
    handle = _start(live_app, page)
    page.fill("#field-prompt", "short first")
    _saved(page)
    page.fill("#field-prompt", "x" * 100_001)
    expect(page.locator("#wizard-saved")).to_have_text(
        "Not saved — the text is too long", use_inner_text=True, timeout=15_000
    )
    expect(page.locator("#error-prompt")).to_contain_text("100,000")
    assert len(page.locator("#field-prompt").input_value()) == 100_001
    assert _prompt_of(live_app, handle) == ["short first"]


def test_the_step_is_in_the_url_back_returns_and_focus_moves_to_the_heading(
    live_app: LiveApp, page: Page
) -> None:
    _start(live_app, page)
    _to_step_three(page, "Back and forth.")
    assert re.search(r"step=3", page.url)
    expect(page.locator("#wizard-step-title")).to_be_focused()
    page.go_back()
    expect(page.locator("#wizard-step-title")).to_have_text("Declared setup")
    expect(page.locator("#field-harness_label")).to_have_value("Claude Code")
    expect(page.locator("#field-attempts")).to_have_value("2")
    expect(page.locator("#wizard-step-title")).to_be_focused()
    page.go_back()
    expect(page.locator("#wizard-step-title")).to_have_text("Prompt")
    expect(page.locator("#field-prompt")).to_have_value("Back and forth.")
    page.go_forward()
    expect(page.locator("#wizard-step-title")).to_have_text("Declared setup")
    page.click("#wizard-back")
    expect(page.locator("#wizard-step-title")).to_have_text("Prompt")


def test_step_three_and_deep_links_check_required_fields_the_same_way(
    live_app: LiveApp, page: Page
) -> None:
    _start(live_app, page)
    page.goto(f"{live_app.url}/submit?step=4")  # nothing typed yet
    wait_ready(page)
    expect(page.locator("#wizard-step-title")).to_have_text("Prompt")
    expect(page.locator("#wizard-notice")).to_contain_text("Step 1, Prompt, needs this first")
    expect(page.locator("#error-prompt")).to_contain_text("Paste the prompt")
    _to_step_three(page, "No evidence yet.")
    page.dblclick("#wizard-next")  # a double click is one refusal, not two steps
    expect(page.locator("#error-output_text")).to_contain_text("Add the model's output")
    expect(page.locator("#wizard-step-title")).to_have_text("Output & evidence")
    draft = re.search(r"draft=(\w+)", page.url)
    assert draft
    page.goto(f"{live_app.url}/submit?draft={draft.group(1)}&step=5")
    wait_ready(page)
    expect(page.locator("#wizard-step-title")).to_have_text("Output & evidence")
    expect(page.locator("#wizard-notice")).to_contain_text("Step 3")
    assert "step=3" in page.url
    page.fill("#field-output_text", "Done.")
    page.dblclick("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Details")
    page.wait_for_timeout(500)  # a second step would have arrived by now
    expect(page.locator("#wizard-step-title")).to_have_text("Details")


def test_errors_put_right_stay_in_place_marked_done_so_next_does_not_move(
    live_app: LiveApp, page: Page
) -> None:
    """A click on Next that lands as the button moves up is lost, so fixing a field must not
    move it: the error's line stays, marked as met, until the step changes."""
    _start(live_app, page)
    page.fill("#field-prompt", "A prompt.")
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Declared setup")
    page.click("#wizard-next")
    expect(page.locator("[role=alert][id^=error-]")).to_have_count(3)
    flagged = page.locator("#wizard-next").bounding_box()
    page.fill("#field-model_label", "claude sonnet 4.5")
    page.fill("#field-harness_label", "Claude Code")
    page.fill("#field-reasoning_label", "high")
    page.locator("#field-attempts").focus()
    expect(page.locator(".field-met")).to_have_count(3)
    expect(page.locator("[id^=error-]")).to_have_count(0)
    expect(page.locator(".field-met").first).to_contain_text("Say which model you tested")
    assert page.locator("#wizard-next").bounding_box() == flagged
    _shots(page, "step-2-put-right")
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Output & evidence")
    expect(page.locator(".field-met")).to_have_count(0)


def _row(page: Page, name: str) -> Locator:
    """The row of the file named exactly ``name`` (another row's warning may mention it)."""
    return page.locator(".file-row").filter(
        has=page.locator(".file-name", has_text=re.compile(rf"^{re.escape(name)}$"))
    )


def _remove(page: Page, name: str, remaining: int) -> None:
    # One at a time: a click aimed at a row while the list re-renders may hit its neighbour.
    page.get_by_role("button", name=f"Remove {name}").click()
    expect(page.locator(".file-row")).to_have_count(remaining)


def test_files_show_verdicts_thumbnails_and_duplicates_then_review_and_success(
    live_app: LiveApp, page: Page
) -> None:
    _start(live_app, page)
    _to_step_three(page, "Draw a blue square; screenshot and source attached.")
    page.fill("#field-output_text", "Here is **the page**:\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    shot = png()
    page.set_input_files(
        "#evidence-input",
        files=_files(
            ("shot.png", "image/png", shot),
            ("screen.png", "image/png", b"this is plain text, not an image\n"),
            ("site.zip", "application/zip", _zip()),
        ),
    )
    expect(page.locator(".file-row")).to_have_count(3, timeout=30_000)
    page.set_input_files("#evidence-input", files=_files(("copy.png", "image/png", shot)))
    expect(page.locator(".file-row")).to_have_count(4, timeout=30_000)
    row = {n: _row(page, f"{n}.png") for n in ("shot", "screen", "copy")}
    expect(row["shot"].locator(".file-verdict")).to_have_text(
        "✓ passed the safety scan", timeout=PROCESSING_TIMEOUT
    )
    expect(row["screen"].locator(".file-verdict")).to_have_text(
        "✗ blocked", timeout=PROCESSING_TIMEOUT
    )
    expect(row["screen"].locator(".file-reason")).to_contain_text(
        "named like an image but its contents are text"
    )
    expect(row["copy"].locator(".file-duplicate")).to_contain_text(
        "Same contents as “shot.png”", timeout=PROCESSING_TIMEOUT
    )
    expect(row["shot"].locator(".file-duplicate")).to_have_count(0)
    # The thumbnail is the browser's own copy, never bytes fetched from a server.
    thumb = row["shot"].locator("img.file-thumb-image")
    expect(thumb).to_be_visible()
    assert (thumb.get_attribute("src") or "").startswith("blob:")
    page.wait_for_function("() => document.querySelector('img.file-thumb-image').naturalWidth > 0")
    expect(row["screen"].locator("img")).to_have_count(0)
    _shots(page, "step3")
    _remove(page, "screen.png", 3)
    _remove(page, "copy.png", 2)
    expect(page.locator("img.file-thumb-image")).to_have_count(1)
    page.locator("#source-public").click()
    page.click("#wizard-next")
    page.fill("#field-title", "Blue square")
    page.fill("#field-notes", "Ran it twice.")
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Review & submit")
    _check_review(page)
    _back_then_submit(page)
    _shots(page, "step5-review")
    page.click("#review-edit-2")
    expect(page.locator("#wizard-step-title")).to_have_text("Declared setup")
    expect(page.locator("#wizard-step-title")).to_be_focused()
    page.go_back()
    expect(page.locator("#wizard-step-title")).to_have_text("Review & submit")
    page.dblclick("#wizard-submit")
    expect(page.locator("#processing-status")).to_have_text(
        "Your Test is public", timeout=PROCESSING_TIMEOUT
    )
    # Secondary news, and honest: the browser suite's AI judge may already have reviewed it.
    expect(page.locator("#processing-review-state")).to_have_text(
        re.compile(
            r"^(Awaiting review — reviewers and the AI judge may score it later; it is public "
            r"already\.|Reviewed — see its reviews on the Test page\.)$"
        )
    )
    link = page.locator("#processing-public-url").inner_text()
    assert re.fullmatch(rf"{re.escape(live_app.url)}/tests/\w+", link), link
    page.click("#processing-copy-link")
    expect(page.locator("#processing-copy-link")).to_have_text("Copied")
    _actions_in_line(
        page.locator("#processing-public-link"), page.locator("#processing-submit-another")
    )
    _shots(page, "success")
    # Another Test starts from a blank wizard at a plain address: nothing names the one sent.
    assert "draft=" in page.url
    plain = re.compile(rf"^{re.escape(live_app.url)}/submit/?$")
    page.click("#processing-submit-another")
    page.wait_for_url(plain)
    wait_ready(page)
    expect(page.locator("#wizard-step-title")).to_have_text("Prompt")
    expect(page.locator("#field-prompt")).to_have_value("")
    page.reload()
    wait_ready(page)
    assert plain.match(page.url), page.url
    expect(page.locator("#field-prompt")).to_have_value("")


def _box(locator: Locator) -> FloatRect:
    box = locator.bounding_box()
    assert box is not None
    return box


def _actions_in_line(first: Locator, second: Locator) -> None:
    """Two buttons of one row: the same height on the same line, so neither sits lower."""
    a, b = _box(first), _box(second)
    assert abs(a["y"] - b["y"]) < 1, (a, b)
    assert abs(a["height"] - b["height"]) < 1, (a, b)
    assert a["x"] + a["width"] <= b["x"]


def _back_then_submit(page: Page) -> None:
    """Back comes first and the step's forward action last, as on every other step; the
    notes are named by a visible label the way the title is."""
    back, submit = page.locator("#wizard-back"), page.locator("#wizard-submit")
    _actions_in_line(back, submit)
    order = page.evaluate(
        "() => document.getElementById('wizard-back')"
        ".compareDocumentPosition(document.getElementById('wizard-submit'))"
    )
    assert order & 4, "Back must come before Submit in reading and Tab order"
    label = page.locator("#review-notes-label")
    expect(label).to_be_visible()
    expect(label).to_have_text("Notes")
    notes = page.get_by_label("Notes", exact=True)
    expect(notes).to_contain_text("Ran it twice.")


def _check_review(page: Page) -> None:
    """Every part of the submission, as it will read, each with its Edit link."""
    expect(page.locator("#review-prompt")).to_have_text(
        "Draw a blue square; screenshot and source attached."
    )
    expect(page.locator("#review-model")).to_have_text("claude sonnet 4.5 ")
    expect(page.locator("#review-attempts")).to_have_text("2")
    expect(page.locator("#review-settings")).to_have_text("none declared")
    expect(page.locator("#review-output strong")).to_have_text("the page")
    expect(page.locator("#review-output table")).to_have_count(1)
    expect(page.locator("#review-title")).to_have_text("Blue square")
    expect(page.locator("#review-notes")).to_contain_text("Ran it twice.")
    names = page.locator("#review-section-3 .file-name").all_inner_texts()
    assert sorted(names) == ["shot.png", "site.zip"]
    expect(page.locator("#review-zip")).to_contain_text("public — anyone can download it")
    for step in (1, 2, 3, 4):
        expect(page.locator(f"#review-edit-{step}")).to_have_attribute(
            "href", re.compile(rf"step={step}&draft=\w+")
        )


def test_an_unsupported_file_is_refused_in_the_browser_and_an_upload_can_be_cancelled(
    live_app: LiveApp, page: Page
) -> None:
    _start(live_app, page)
    _to_step_three(page, "Cancel me.")
    page.set_input_files(
        "#evidence-input", files=_files(("tool.exe", "application/x-msdownload", b"MZ\x90\x00"))
    )
    expect(page.locator(".upload-failed")).to_contain_text("Not accepted")
    # A slow uplink, so there is time to press Cancel while the file is on its way.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    slow = {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 20_000}
    cdp.send("Network.emulateNetworkConditions", slow)
    big = png() + secrets.token_bytes(1_000_000)  # a PNG with a megabyte of trailing bytes
    page.set_input_files("#evidence-input", files=_files(("big.png", "image/png", big)))
    page.get_by_role("button", name="Cancel uploading big.png").click()
    expect(page.locator(".upload-cancelled")).to_contain_text("Cancelled: big.png was not added")
    cdp.send("Network.emulateNetworkConditions", {**slow, "uploadThroughput": -1})
    page.evaluate("() => document.getElementById('files-refresh').click()")
    expect(page.locator(".file-row")).to_have_count(0)
    # Whether the click beat the last byte or not, nothing of the file is left that counts.
    with Session(live_app.engine) as session:
        draft = session.exec(select(Test).where(Test.prompt == "Cancel me.")).one()
        files = session.exec(select(EvidenceFile).where(EvidenceFile.test_id == draft.id)).all()
        assert [file.state for file in files] in ([], [EvidenceState.REMOVED])


def test_a_cancel_after_every_byte_arrived_still_leaves_nothing_added(
    live_app: LiveApp, page: Page
) -> None:
    _start(live_app, page)
    _to_step_three(page, "Cancel me late.")
    held: list[tuple[Route, APIResponse]] = []

    def store_then_hold(route: Route) -> None:
        # The server stores the file; the browser hears nothing back until Cancel is pressed.
        held.append((route, route.fetch()))

    page.route("**/api/v1/tests/*/files", store_then_hold)
    page.set_input_files("#evidence-input", files=_files(("late.txt", "text/plain", b"ok\n")))
    for _ in range(100):  # route handlers run while the page waits
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the upload never reached the server"
    assert held[0][1].status == 201
    page.get_by_role("button", name="Cancel uploading late.txt").click()
    expect(page.locator(".upload-cancelled")).to_contain_text("Cancelled: late.txt was not added")
    expect(page.locator(".file-row")).to_have_count(0)
    with Session(live_app.engine) as session:
        draft = session.exec(select(Test).where(Test.prompt == "Cancel me late.")).one()
        files = session.exec(select(EvidenceFile).where(EvidenceFile.test_id == draft.id)).all()
        assert [file.state for file in files] == [EvidenceState.REMOVED]


def test_two_tabs_on_one_draft_keep_the_last_save_of_each_field(
    live_app: LiveApp, page: Page, browser: Browser
) -> None:
    handle = _start(live_app, page)
    page.fill("#field-prompt", "From the first tab.")
    _saved(page)
    other = page.context.new_page()
    other.goto(page.url)
    wait_ready(other)
    expect(other.locator("#field-prompt")).to_have_value("From the first tab.")
    other.fill("#field-prompt", "From the second tab.")
    _saved(other)
    assert _prompt_of(live_app, handle) == ["From the second tab."]
    page.reload()
    wait_ready(page)
    expect(page.locator("#field-prompt")).to_have_value("From the second tab.")
    other.close()


def _shots(page: Page, name: str) -> None:
    """The current screen at desktop and phone width, light and dark, into the shots folder."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for viewport, size in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(size)
            page.wait_for_timeout(300)
            width = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
            assert width <= 0, f"{name} scrolls sideways at {viewport}"
            # The steps (none once submitted) take one row at either width, each still named
            # in full.
            tops = page.locator(".wizard-steps button").evaluate_all(
                "els => els.map(e => Math.round(e.getBoundingClientRect().top))"
            )
            assert len(set(tops)) <= 1, f"{name}: the steps take {len(set(tops))} rows"
            if tops:
                expect(page.locator("#step-1")).to_have_accessible_name("1. Prompt")
            page.screenshot(path=str(SHOTS / f"{name}-{viewport}-{scheme}.png"), full_page=True)
    page.emulate_media(color_scheme="light")
    page.set_viewport_size(DESKTOP)


def test_screens_of_steps_one_to_four(live_app: LiveApp, page: Page) -> None:
    _start(live_app, page)
    _shots(page, "step1")
    _to_step_three(page, "Screens.")
    page.go_back()
    expect(page.locator("#wizard-step-title")).to_have_text("Declared setup")
    _shots(page, "step2")
    page.go_forward()
    page.fill("#field-output_text", "Output.")
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Details")
    _shots(page, "step4")
