"""Comparison groups in the browser: "Try this prompt with your setup" from a Test, the group
page's members side by side at desktop and phone width, and a word diff of two members whose
address opens the same view in a fresh browser."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import Browser, Page, ViewportSize, expect
from sqlmodel import Session, select

from benchmax.adapters.storage import PREVIEW_PREFIX, build_storage
from benchmax.models import PreviewArtifact, PreviewArtifactKind, PreviewEvaluation, TestState
from benchmax.models import prompt_key as key_of
from benchmax.models._base import new_id
from benchmax.services.prompts.groups import prompt_headline
from benchmax.services.stored_bytes import put_bytes
from benchmax.state.prompts import PAGE
from tests.e2e.conftest import ARTIFACTS, PHONE, LiveApp, signed_in_page, wait_ready
from tests.e2e.test_accessibility import AXE, _problems
from tests.e2e.test_submit import PROCESSING_TIMEOUT, _finish
from tests.support.factories import make_stored_image, make_test, make_user, png
from tests.support.preview_rows import done

WIDE: ViewportSize = {"width": 1440, "height": 900}
SHOTS = ARTIFACTS / "screens" / "groups"
HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _no_sideways_scroll(page: Page) -> None:
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px"


def test_try_this_prompt_opens_the_wizard_with_it_and_the_new_test_joins_the_group(
    live_app: LiveApp, browser: Browser
) -> None:
    suffix = secrets.token_hex(3)
    prompt = f"Write a sea shanty about merge conflicts, verse {suffix}.\nKeep it to four lines."
    with Session(live_app.engine) as session:
        source = make_test(
            session,
            title=f"Shanty {suffix}",
            prompt=prompt,
            model_label="GPT-5",
            harness_label="Codex CLI",
            settings_text="temperature 0.9",
            notes="The source's own notes.",
        )
        removed = make_test(session, prompt=f"Removed {suffix}", state=TestState.REMOVED)
        session.commit()
        source_id, removed_id, key = source.id, removed.id, source.prompt_key

    page = signed_in_page(browser, live_app, f"try{suffix}")
    page.set_viewport_size(WIDE)
    page.goto(f"{live_app.url}/tests/{source_id}")
    wait_ready(page)
    _shot(page, "test-try-prompt-desktop")
    page.click("#try-prompt")
    page.wait_for_url(re.compile(r"/submit\?draft=\w+&step=1"))
    wait_ready(page)
    expect(page.locator("#field-prompt")).to_have_value(prompt)
    expect(page.locator("#wizard-notice")).to_contain_text("nothing else was copied")
    _shot(page, "try-prompt-wizard-desktop")
    page.set_viewport_size(PHONE)
    _no_sideways_scroll(page)
    _shot(page, "try-prompt-wizard-phone")
    page.set_viewport_size(WIDE)
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Declared setup")
    for field in ("model_label", "harness_label", "reasoning_label", "settings_text"):
        expect(page.locator(f"#field-{field}")).to_have_value("")  # nothing else copied
    page.fill("#field-model_label", "Kimi K2")
    page.fill("#field-harness_label", "Cline")
    page.fill("#field-reasoning_label", "none")
    page.click("#wizard-next")
    expect(page.locator("#wizard-step-title")).to_have_text("Output & evidence")
    page.fill("#field-output_text", "Oh the branches they diverged, heave ho!")
    _finish(page)
    expect(page.locator("#processing-public-link")).to_be_visible(timeout=PROCESSING_TIMEOUT)

    page.goto(f"{live_app.url}/prompts/{key}")
    wait_ready(page)
    members = page.locator("#group-members .group-member")
    expect(members).to_have_count(2)
    expect(page.locator("#group-members")).to_contain_text("Kimi K2 · Cline")
    expect(page.locator("#group-members")).to_contain_text("heave ho")

    # A Test that is not public lends no prompt, and says so.
    page.goto(f"{live_app.url}/submit?same_prompt_as={removed_id}")
    wait_ready(page)
    expect(page.locator("#wizard-notice")).to_contain_text("not public")
    expect(page.locator("#field-prompt")).to_have_value("")


def test_a_signed_out_reader_is_brought_back_to_the_prompt_after_signing_in(
    live_app: LiveApp, browser: Browser
) -> None:
    prompt = f"List three uses of a paperclip, take {secrets.token_hex(3)}."
    with Session(live_app.engine) as session:
        source_id = make_test(session, prompt=prompt).id
        session.commit()
    context = browser.new_context(viewport=WIDE)
    page = context.new_page()
    page.goto(f"{live_app.url}/tests/{source_id}")
    wait_ready(page)
    page.click("#try-prompt")
    page.wait_for_url(re.compile(r"/submit\?same_prompt_as="))
    wait_ready(page)
    page.click("#submit-sign-in")
    page.wait_for_url(re.compile(r"/sign-in\?next="))
    wait_ready(page)
    page.fill("#handle", f"back{secrets.token_hex(3)}")
    page.click("#sign-in-submit")
    page.wait_for_url(re.compile(r"/submit\?draft=\w+&step=1"))
    wait_ready(page)
    expect(page.locator("#field-prompt")).to_have_value(prompt)
    context.close()


def _seed_group(app: LiveApp) -> tuple[str, list[str], str]:
    """Three members (a long Markdown output holding markup, a near copy of it, and one with
    a finished preview and its screenshot), an image on the first, and a Test of another
    prompt; returns the key, the member ids and that other Test's id."""
    suffix = secrets.token_hex(3)
    prompt = (
        f"Explain how a lighthouse lens focuses light {suffix}. Use a heading, a list and a "
        "short code sample, and keep it under three hundred words. " * 3
    )
    paragraph = "The Fresnel lens bends light from the lamp into a narrow horizontal beam. "
    first_output = (
        f"## How it works\n\n{paragraph * 6}\n\n- rings of prisms\n- a rotating drum\n\n"
        f"{HOSTILE}\n\n```python\nbeam = lamp.focus(angle=0)\n```\n\n{paragraph * 10}"
    )
    second_output = first_output.replace("narrow horizontal", "tight level").replace(
        "a rotating drum", "a drum that turns slowly"
    )
    storage = build_storage(app.settings)
    with Session(app.engine) as session:
        contributor = make_user(session)
        first = make_test(
            session, contributor, prompt=prompt, title=f"Lens Claude {suffix}",
            output_text=first_output, model_label="Claude Sonnet 4.5",
        )  # fmt: skip
        second = make_test(
            session, contributor, prompt=prompt, title=f"Lens GPT {suffix}",
            output_text=second_output, model_label="GPT-5", harness_label="Codex CLI",
        )  # fmt: skip
        third = done(session, prompt, 840, 2)
        third.title, third.output_text = f"Lens Gemini {suffix}", "A short answer."
        make_stored_image(session, storage, first, png((200, 120, 20)))
        evaluation_id = session.exec(
            select(PreviewEvaluation.id).where(PreviewEvaluation.test_id == third.id)
        ).one()
        columns = put_bytes(
            storage,
            f"{PREVIEW_PREFIX}{evaluation_id}/screenshot.png",
            png((30, 60, 200), (640, 400)),
            "image/png",
        )
        session.add(
            PreviewArtifact(
                evaluation_id=evaluation_id, kind=PreviewArtifactKind.SCREENSHOT, **columns
            )
        )
        other = make_test(session, prompt=f"Another prompt entirely {suffix}.")
        session.commit()
        return first.prompt_key, [first.id, second.id, third.id], other.id


def test_members_side_by_side_and_a_shared_word_diff(live_app: LiveApp, browser: Browser) -> None:
    key, ids, other_id = _seed_group(live_app)
    context = browser.new_context(viewport=WIDE)
    page = context.new_page()
    page.goto(f"{live_app.url}/prompts/{key}")
    wait_ready(page)
    title = page.locator("#group-title")
    whole = str(page.locator("#group-prompt").text_content())
    assert len(whole) > 300
    expect(title).to_have_text(prompt_headline(whole))  # shortened
    assert str(title.text_content()).endswith("…")
    expect(page.locator("#group-prompt")).not_to_be_visible()  # one click away
    page.click("#group-prompt-toggle")
    expect(page.locator("#group-prompt")).to_be_visible()
    expect(page.locator("#group-intro")).not_to_contain_text("=")  # no formula symbols
    expect(page.locator("#try-prompt")).to_have_attribute(
        "href", re.compile(r"/submit\?same_prompt_as=\w{16}$")
    )
    members = page.locator("#group-members .group-member")
    expect(members).to_have_count(3)
    boxes = [members.nth(i).bounding_box() for i in range(3)]
    assert all(box is not None for box in boxes)
    tops = {round(box["y"]) for box in boxes if box}
    lefts = [box["x"] for box in boxes if box]
    assert len(tops) == 1, "members are not side by side"
    assert lefts == sorted(lefts)
    assert all(box["width"] > 250 for box in boxes if box)
    page_width = page.evaluate("() => document.documentElement.clientWidth")
    assert all(box["x"] + box["width"] <= page_width for box in boxes if box)  # three fit
    # Rendered as on the Test page, markup as text; the long one starts folded.
    first = members.filter(has_text="Lens Claude")
    expect(first.locator("details.member-output-details")).not_to_have_attribute("open", "")
    first.locator(".member-output-summary").click()
    expect(first.locator(".member-output h4.md-h2")).to_have_text("How it works")
    expect(first.locator(".member-output")).to_contain_text("<script>window.__pwned = 1</script>")
    expect(first.locator(".member-images img")).to_have_count(1)
    third = members.filter(has_text="Lens Gemini")
    expect(third.locator(".preview-shot")).to_have_count(1)
    expect(third.locator(".preview-load")).to_have_text("Load time 0.84 s")
    expect(third.locator(".preview-errors")).to_have_text("Console errors: 2")
    _shot(page, "group-desktop")

    # Pick two: the comparison opens at its own address.
    first.locator(".member-pick").click()
    expect(first.locator(".member-pick")).to_have_attribute("aria-pressed", "true")
    members.filter(has_text="Lens GPT").locator(".member-pick").click()
    page.wait_for_url(re.compile(rf"/prompts/{key}\?compare={ids[0]},{ids[1]}$"))
    wait_ready(page)
    diff = page.locator("#word-diff")
    expect(diff.locator("del").first).to_contain_text("narrow")
    expect(diff.locator("ins").first).to_contain_text("tight")
    expect(diff.locator("ins .visually-hidden").first).to_have_text("[added: ")
    expect(diff).to_contain_text("<script>window.__pwned = 1</script>")
    counts = page.locator("#compare-counts").inner_text()
    assert re.fullmatch(r"\d+ words? added and \d+ words? removed\.", counts)
    assert page.evaluate("() => window.__pwned") is None
    shared = page.url
    diff_html = diff.inner_html()
    page.add_script_tag(path=str(AXE))
    problems = _problems(page, "/prompts/KEY?compare=A,B")
    assert not problems, "\n".join(problems)
    _shot(page, "group-compare-desktop")

    # The same address in a fresh browser (no cookies, no state) shows the same comparison.
    fresh = browser.new_context(viewport=PHONE)
    phone = fresh.new_page()
    phone.goto(shared)
    wait_ready(phone)
    expect(phone.locator("#compare-counts")).to_have_text(counts)
    assert phone.locator("#word-diff").inner_html() == diff_html
    _no_sideways_scroll(phone)
    _shot(phone, "group-compare-phone")
    phone.click("#compare-swap")
    phone.wait_for_url(re.compile(rf"compare={ids[1]},{ids[0]}$"))
    expect(phone.locator("#word-diff del").first).to_contain_text("tight")

    # On a phone the members are a strip to swipe: one column and the edge of the next.
    phone.goto(f"{live_app.url}/prompts/{key}")
    wait_ready(phone)
    strip = phone.locator("#group-members")
    widths = phone.evaluate(
        "() => { const s = document.getElementById('group-members');"
        " return [s.scrollWidth, s.clientWidth, s.firstElementChild.clientWidth]; }"
    )
    assert widths[0] > widths[1], widths  # the strip scrolls sideways
    assert 0.7 * widths[1] < widths[2] < widths[1], widths  # the next column's edge shows
    _no_sideways_scroll(phone)
    expect(strip).to_have_attribute("tabindex", "0")
    _shot(phone, "group-phone")
    phone.add_script_tag(path=str(AXE))
    problems = _problems(phone, "/prompts/KEY (phone)")
    assert not problems, "\n".join(problems)
    fresh.close()
    dark = browser.new_context(viewport=WIDE, color_scheme="dark")
    night = dark.new_page()
    night.goto(shared)
    wait_ready(night)
    night.add_script_tag(path=str(AXE))
    problems = _problems(night, "/prompts/KEY?compare=A,B (dark)")
    assert not problems, "\n".join(problems)
    _shot(night, "group-compare-desktop-dark")
    dark.close()

    # What the address may name: anything else is a plain message, and the group stays.
    for raw, message in (
        ("garbage", "exactly two"),
        (ids[0], "exactly two"),
        (",".join([ids[0]] * 5), "exactly two"),
        (f"{ids[0]},{ids[0]}", "same Test"),
        (f"{ids[0]},{other_id}", "not a public Test of this prompt"),
        (f"{ids[0]},{new_id()}", "not a public Test of this prompt"),
        ("%3Cscript%3E,%3C/script%3E", "does not name two Tests"),
    ):
        page.goto(f"{live_app.url}/prompts/{key}?compare={raw}")
        wait_ready(page)
        expect(page.locator("#compare-error")).to_contain_text(message)
        expect(members).to_have_count(3)
        expect(page.locator("#word-diff")).to_have_count(0)
    _shot(page, "group-compare-refused-desktop")

    # The feed's "2+ setups" cards and a Test's group line lead to the comparison.
    page.goto(f"{live_app.url}/?compare=on")
    wait_ready(page)
    expect(page.locator(f'.card-compare[href="/prompts/{key}"]').first).to_be_visible()
    page.goto(f"{live_app.url}/tests/{ids[0]}")
    wait_ready(page)
    link = page.locator("#test-group-link")
    expect(link).to_have_text("2 other setups tried this prompt")
    link.click()
    page.wait_for_url(re.compile(rf"/prompts/{key}\?compare={ids[0]},\w{{16}}$"))
    wait_ready(page)
    expect(page.locator("#comparison")).to_be_visible()
    context.close()


def test_a_large_group_shows_its_columns_a_page_at_a_time(
    live_app: LiveApp, browser: Browser
) -> None:
    prompt = f"Name a colour that rhymes with orange, attempt {secrets.token_hex(3)}."
    with Session(live_app.engine) as session:
        contributor = make_user(session)
        for n in range(PAGE + 3):
            make_test(session, contributor, prompt=prompt, title=f"Rhyme {n}")
        session.commit()
    page = browser.new_page(viewport=WIDE)
    page.goto(f"{live_app.url}/prompts/{key_of(prompt)}")
    wait_ready(page)
    members = page.locator("#group-members .group-member")
    expect(members).to_have_count(PAGE)
    page.click("#group-more")
    expect(members).to_have_count(PAGE + 3)
    expect(page.locator("#group-more")).to_have_count(0)
    page.close()
