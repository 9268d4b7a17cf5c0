"""Reading a Test: what the server sends first, GitHub-style Markdown, inline text evidence,
one card per review and honest states — in real Chromium against the running app."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session

from benchmax.adapters.storage import build_storage
from benchmax.models import EvidenceKind, EvidenceState, SourceVisibility, TestState
from benchmax.services.accounts import find_user_by_handle
from benchmax.services.link_preview import GENERIC_TITLE
from tests.e2e.conftest import (
    BLOCKED_LOAD,
    DESKTOP,
    PHONE,
    LiveApp,
    allow_console_error,
    make_people,
    not_found_load,
    sign_in,
    wait_ready,
)
from tests.support.factories import (
    make_dispute,
    make_evidence,
    make_review,
    make_stored_evidence,
    make_stored_image,
    make_test,
    make_user,
    png,
)

SHOTS = Path(os.environ.get("BENCHMAX_SHOTS_DIR", "test-artifacts/shots"))
HAIKU = "An old silent pond\nA frog jumps into the pond\nSplash! Silence again"
OUTPUT = (
    "| model | score |\n|:--|--:|\n| a | 1 |\n\n"
    "```python\nprint('hello')\n```\n\nSee https://example.com for more."
)
LOG = "".join(f"line {n}: step ok\n" for n in range(200))


def _reading_test(app: LiveApp, title: str = "Haiku about ponds") -> dict[str, str]:
    """A public Test with Markdown output, haiku notes, an image, a log and a review."""
    storage = build_storage(app.settings)
    with Session(app.engine) as session:
        handle = "read" + secrets.token_hex(3)
        who = make_user(session, handle=handle, display_name="Reader Bot")
        test = make_test(
            session,
            who,
            title=title,
            prompt="Write a haiku about a pond.\nKeep it to three lines.",
            output_text=OUTPUT,
            notes=HAIKU,
            model_label="Claude Sonnet 4.5",
        )
        log = make_stored_evidence(
            session, storage, test, LOG.encode(), kind=EvidenceKind.TEXT, safe_name="run.log"
        )
        image = make_stored_image(session, storage, test, png((40, 90, 200)))
        session.commit()
        return {"id": test.id, "log": log.id, "image": image.id, "handle": handle}


def _open_as(browser: Browser, app: LiveApp, handle: str, test_id: str) -> Page:
    """The Test page in a fresh context signed in as ``handle``."""
    page = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(page, app, handle)
    page.goto(f"{app.url}/tests/{test_id}")
    wait_ready(page)
    return page


def test_link_preview_tags_are_in_the_html_the_server_sends(live_app: LiveApp) -> None:
    made = _reading_test(live_app, title='Ponds "quoted" </title><script>x()</script>')
    html = httpx.get(f"{live_app.url}/tests/{made['id']}", timeout=30).text
    head = html.split("</head>")[0]
    assert "<title data-first-paint>Ponds &quot;quoted&quot; &lt;/title&gt;" in head
    assert "<script>x()</script>" not in html
    assert 'property="og:title"' in head
    assert "Claude Sonnet 4.5" in head
    assert "Reader Bot" in head
    image_url = f"{live_app.usercontent_url}/e/{made['image']}/shot.png"
    assert f'property="og:image" content="{image_url}"' in head
    assert "Write a haiku about a pond." in html.split("</head>")[1]

    with Session(live_app.engine) as session:
        hidden = make_test(session, title="Secret removed Test", state=TestState.REMOVED)
        session.commit()
        hidden_id = hidden.id
    hidden_html = httpx.get(f"{live_app.url}/tests/{hidden_id}", timeout=30).text
    assert f"<title data-first-paint>{GENERIC_TITLE}</title>" in hidden_html
    assert "Secret removed Test" not in hidden_html


def test_tab_title_markdown_copy_and_haiku(live_app: LiveApp, browser: Browser) -> None:
    made = _reading_test(live_app)
    context = browser.new_context(viewport=DESKTOP)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_app.url)
    page = context.new_page()
    page.goto(f"{live_app.url}/tests/{made['id']}")
    wait_ready(page)
    expect(page.locator("#test-title")).to_have_text("Haiku about ponds")
    page.wait_for_function("() => document.title === 'Haiku about ponds · BenchMax'")

    output = page.locator("#test-output")
    expect(output.locator("table th").first).to_have_text("model")
    expect(output.locator(".code-lang")).to_have_text("python")
    expect(output.locator("a[href='https://example.com']")).to_have_attribute(
        "rel", "nofollow ugc noopener noreferrer"
    )
    output.locator(".copy-code").click()
    expect(output.locator(".copy-code")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == "print('hello')\n"

    notes = page.locator("#test-notes")
    assert notes.inner_text().strip().split("\n") == HAIKU.split("\n")

    page.click("#copy-prompt")
    page.wait_for_function(
        "async () => (await navigator.clipboard.readText()).startsWith('Write a haiku')"
    )
    context.close()


def test_log_is_read_inline_from_the_usercontent_origin(live_app: LiveApp, page: Page) -> None:
    made = _reading_test(live_app)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{live_app.url}/tests/{made['id']}")
    wait_ready(page)
    pre = page.locator(f"#evidence-text-{made['log']}")
    expect(pre).to_have_attribute("data-state", "complete")
    assert pre.inner_text().startswith("line 0: step ok")
    evidence_requests = [url for url in requested if f"/e/{made['log']}/" in url]
    assert evidence_requests
    assert all(url.startswith(live_app.usercontent_url) for url in evidence_requests)
    download = page.locator(".evidence-link", has_text="Download run.log")
    expect(download).to_have_attribute(
        "href", f"{live_app.usercontent_url}/e/{made['log']}/run.log"
    )
    # Images come first.
    first = page.locator(".evidence-item").first
    expect(first.locator("img.evidence-image")).to_be_visible()


def test_dark_first_paint_is_dark_before_any_script_bundle(
    live_app: LiveApp, browser: Browser
) -> None:
    made = _reading_test(live_app)
    context = browser.new_context(viewport=PHONE, color_scheme="dark")
    page = context.new_page()
    # No bundle ever arrives: what shows is only what the server sent.
    page.route("**/assets/**", lambda route: route.abort())
    # The blocked bundles are reported as failed loads; nothing else may fail.
    allow_console_error(page, BLOCKED_LOAD)
    page.goto(f"{live_app.url}/tests/{made['id']}", wait_until="domcontentloaded")
    background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert background == "rgb(17, 17, 19)"
    expect(page.locator("#fp-prompt")).to_contain_text("Write a haiku about a pond.")
    expect(page.locator("#bm-first-paint .fp-title")).to_have_text("Haiku about ponds")
    context.close()

    # With the app running, the first-paint view gives way to the real page.
    context = browser.new_context(viewport=PHONE, color_scheme="dark")
    page = context.new_page()
    page.goto(f"{live_app.url}/tests/{made['id']}")
    wait_ready(page)
    expect(page.locator("#test-prompt")).to_be_visible()
    expect(page.locator("#bm-first-paint")).to_be_hidden()
    assert page.evaluate("document.documentElement.classList.contains('dark')")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    context.close()


def test_a_disputed_review_is_shown_once(live_app: LiveApp, browser: Browser) -> None:
    people = make_people(live_app, "owner")
    with Session(live_app.engine) as session:
        owner = find_user_by_handle(session, people["owner"])
        reviewer = make_user(session)
        assert owner is not None
        test = make_test(session, owner, title="Disputed once")
        review = make_review(session, test, reviewer, reasoning="Misses the third line.")
        make_dispute(session, review)
        session.commit()
        test_id = test.id
    page = _open_as(browser, live_app, people["owner"], test_id)
    expect(page.locator(".review-card")).to_have_count(1)
    expect(page.get_by_text("Misses the third line.")).to_have_count(1)
    expect(page.get_by_text("Dispute open")).to_have_count(1)
    stamp = page.locator(".review-card time.time-ago")
    assert stamp.get_attribute("title", timeout=5000)
    assert stamp.get_attribute("datetime")
    page.context.close()


@pytest.mark.parametrize("state", [TestState.REMOVED, TestState.NEEDS_ATTENTION])
def test_honest_states_for_owner_and_stranger(
    live_app: LiveApp, browser: Browser, state: TestState
) -> None:
    people = make_people(live_app, "owner")
    with Session(live_app.engine) as session:
        owner = find_user_by_handle(session, people["owner"])
        assert owner is not None
        test = make_test(
            session,
            owner,
            title="Not public",
            state=state,
            failure_reason="A file was blocked.",
            source_visibility=SourceVisibility.PRIVATE,
        )
        make_evidence(
            session,
            test,
            kind=EvidenceKind.IMAGE,
            safe_name="fake.png",
            state=EvidenceState.BLOCKED,
            block_reason="named .png but the contents aren't an image",
        )
        make_evidence(session, test, kind=EvidenceKind.SOURCE, safe_name="src.zip")
        session.commit()
        test_id = test.id

    page = _open_as(browser, live_app, people["owner"], test_id)
    notice = page.locator("#owner-notice")
    label = "Removed" if state == TestState.REMOVED else "Needs attention"
    expect(notice).to_contain_text(f"State: {label}")
    expect(page.locator("#owner-reason")).to_contain_text("A file was blocked.")
    main = page.locator("#main").inner_text().lower()
    for dishonest in ("published", "awaiting review", "is public"):
        assert dishonest not in main
    chips = page.locator(".evidence-chip")
    expect(chips.filter(has_text="Blocked: named .png")).to_have_count(1)
    expect(chips.filter(has_text="Source: private ZIP (not downloadable)")).to_have_count(1)
    expect(page.locator("#main a[href*='/e/']")).to_have_count(0)
    page.context.close()

    stranger = browser.new_context(viewport=DESKTOP).new_page()
    # A Test that is not public answers 404 to a stranger, which Chromium logs.
    allow_console_error(stranger, not_found_load(f"/tests/{test_id}"))
    stranger.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(stranger)
    expect(stranger.locator("#not-found")).to_be_visible()
    assert "Not public" not in stranger.content()
    stranger.context.close()


def test_screenshots(live_app: LiveApp, browser: Browser) -> None:
    """Test page and contributor page at desktop and phone, light and dark."""
    made = _reading_test(live_app)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            context = browser.new_context(viewport=viewport, color_scheme=theme)
            page = context.new_page()
            page.goto(f"{live_app.url}/tests/{made['id']}")
            wait_ready(page)
            expect(page.locator(f"#evidence-text-{made['log']}")).to_have_attribute(
                "data-state", "complete"
            )
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            page.screenshot(path=str(SHOTS / f"test-{name}-{theme}.png"), full_page=True)
            page.goto(f"{live_app.url}/u/{made['handle']}")
            wait_ready(page)
            expect(page.locator("#profile-name")).to_have_text("Reader Bot")
            page.screenshot(path=str(SHOTS / f"profile-{name}-{theme}.png"), full_page=True)
            context.close()
