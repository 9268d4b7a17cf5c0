"""The feed's and a contributor page's first paint in Chromium: the server's cards before any
script has run (a title with a script in it reads as text), then the live list in their place."""

from __future__ import annotations

import secrets

from playwright.sync_api import Browser, expect
from sqlmodel import Session

from benchmax.models import TestState
from tests.e2e.conftest import ARTIFACTS, BLOCKED_LOAD, DESKTOP, PHONE, LiveApp, allow_console_error
from tests.support.factories import make_test, make_user
from tests.support.page_metrics import LAYOUT_SHIFT

EVIL = "<script>window.__pwned=1</script><img src=x onerror=window.__pwned=2>"
# Every frame from the first card on: does some card show, the server's or the live one's?
NO_GAP = """() => new Promise(resolve => {
  let seen = false, gaps = 0;
  const tick = () => {
    const card = document.querySelector('#bm-first-paint .fp-card, .test-card');
    if (card && card.getClientRects().length) seen = true; else if (seen) gaps++;
    if (document.querySelector('.test-card') && !document.getElementById('bm-first-paint'))
      resolve({seen, gaps});
    else requestAnimationFrame(tick);
  };
  tick();
})"""


def _contributor(app: LiveApp) -> tuple[str, str]:
    handle = "fp" + secrets.token_hex(3)
    with Session(app.engine) as session:
        who = make_user(session, handle=handle, display_name="First Painter")
        make_test(session, who, title=EVIL)
        make_test(session, who, title="Hidden first paint", state=TestState.REMOVED)
        session.commit()
    return handle, f"/u/{handle}"


def test_lists_paint_from_the_server_escaped_then_give_way_in_place(
    live_app: LiveApp, browser: Browser
) -> None:
    handle, profile = _contributor(live_app)
    for path in ("/", profile):
        for theme in ("light", "dark"):
            for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
                context = browser.new_context(viewport=size, color_scheme=theme)
                page = context.new_page()
                page.route("**/assets/**/*.js", lambda route: route.abort())  # no script runs
                # The blocked scripts are reported as failed loads; nothing else may fail.
                allow_console_error(page, BLOCKED_LOAD)
                page.goto(live_app.url + path, wait_until="domcontentloaded")
                titles = page.locator("#bm-first-paint .fp-card-title")
                expect(titles.first).to_be_visible()
                if path == profile:
                    expect(titles).to_have_text([EVIL])
                assert "Hidden first paint" not in page.content()
                assert page.evaluate("window.__pwned") is None
                slug = "feed" if path == "/" else "profile"
                shot = ARTIFACTS / "shots" / f"first-paint-{slug}-{name}-{theme}.png"
                page.screenshot(path=str(shot))
                context.close()

    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.goto(f"{live_app.url}/u/{handle}", wait_until="commit")
    result = page.evaluate(NO_GAP)
    assert result == {"seen": True, "gaps": 0}, result
    expect(page.locator(".test-card h2")).to_have_text([EVIL])
    assert page.evaluate("window.__pwned") is None
    shift = page.evaluate(LAYOUT_SHIFT, 500)
    assert shift < 0.1, shift
    context.close()
