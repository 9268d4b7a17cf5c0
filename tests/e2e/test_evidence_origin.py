"""Evidence in the browser: it comes from the user-content origin and never runs as a page."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError
from sqlmodel import Session

from benchmax.adapters.storage import build_storage
from benchmax.models import EvidenceKind, Test, TestState
from benchmax.services.moderation import takedowns
from tests.e2e.conftest import LiveApp, wait_ready
from tests.support.factories import make_stored_evidence, make_test, make_user, png

MARKER_SCRIPT = "<script>document.title='PWNED';window.parent.postMessage('PWNED','*')</script>"


def _test_with(app: LiveApp, *files: tuple[str, EvidenceKind, str, bytes]) -> tuple[str, list[str]]:
    storage = build_storage(app.settings)
    with Session(app.engine) as session:
        test = make_test(session, make_user(session), title="Evidence origin check")
        ids = [
            make_stored_evidence(
                session,
                storage,
                test,
                data,
                kind=kind,
                original_name=name,
                safe_name=name,
                content_type=content_type,
            ).id
            for name, kind, content_type, data in files
        ]
        session.commit()
        return test.id, ids


def test_images_load_from_the_usercontent_origin_and_stop_after_removal(
    live_app: LiveApp, page: Page
) -> None:
    test_id, (image_id,) = _test_with(
        live_app, ("shot.png", EvidenceKind.IMAGE, "image/png", png((200, 30, 30), (64, 48)))
    )
    page.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(page)
    image = page.locator("img.evidence-image")
    expect(image).to_have_attribute("src", f"{live_app.usercontent_url}/e/{image_id}/shot.png")
    page.wait_for_function("() => document.querySelector('img.evidence-image').naturalWidth > 0")
    assert image.evaluate("img => img.naturalWidth") == 64

    # Moderator-style removal through the service layer: the next request must 404.
    with Session(live_app.engine) as session:
        moderator = make_user(session, role="moderator")
        takedowns.remove_test(session, moderator, test_id, "Removed in a browser test.")
        session.commit()
        assert session.get(Test, test_id).state == TestState.REMOVED  # type: ignore[union-attr]

    probe = live_app.usercontent_url + f"/e/{image_id}/shot.png?after-removal"
    loaded = page.evaluate(
        """src => new Promise(resolve => {
            const img = new Image();
            img.onload = () => resolve(img.naturalWidth);
            img.onerror = () => resolve(-1);
            img.src = src;
        })""",
        probe,
    )
    assert loaded == -1


def test_html_and_svg_evidence_download_and_never_run(
    live_app: LiveApp, context: BrowserContext, page: Page
) -> None:
    # The scanner refuses HTML and SVG; these rows are planted as if it had let them through,
    # to show the origin still never renders them.
    html = f"<html><body><h1>hi</h1>{MARKER_SCRIPT}</body></html>".encode()
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" onload="document.title=\'PWNED\'">'
        f"{MARKER_SCRIPT}</svg>"
    ).encode()
    test_id, ids = _test_with(
        live_app,
        ("page.html", EvidenceKind.TEXT, "text/html", html),
        ("image.svg", EvidenceKind.TEXT, "image/svg+xml", svg),
    )
    messages: list[str] = []
    page.on("console", lambda m: messages.append(m.text))
    page.goto(f"{live_app.url}/tests/{test_id}")
    wait_ready(page)
    page.evaluate("() => window.addEventListener('message', e => console.log('msg:' + e.data))")
    links = page.locator("a.evidence-link")
    expect(links).to_have_count(2)
    for index in range(2):
        with page.expect_download() as download_info:
            links.nth(index).click()
        assert download_info.value.suggested_filename.endswith((".txt", ".bin"))
    assert page.title() != "PWNED"

    # Opening each URL directly in a tab downloads it too; the marker never appears anywhere.
    for evidence_id, name in zip(ids, ("page.html", "image.svg"), strict=True):
        tab = context.new_page()
        # A download aborts the navigation, which is the point.
        with tab.expect_download(), pytest.raises(PlaywrightError, match="Download is starting"):
            tab.goto(f"{live_app.usercontent_url}/e/{evidence_id}/{name}")
        assert tab.title() != "PWNED"
        tab.close()
    assert not any("PWNED" in m for m in messages)
