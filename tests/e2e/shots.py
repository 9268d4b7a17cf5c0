"""One screen in the four looks a reviewer checks: 1440x900 and 390x844, light and dark.

Each shot lands in ``test-artifacts/screens/<name>-<wide|phone>-<scheme>.png``; the page must not
scroll sideways in any of them.
"""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Browser, Page, ViewportSize

from tests.e2e.conftest import ARTIFACTS, PHONE, LiveApp, sign_in, wait_ready

WIDE: ViewportSize = {"width": 1440, "height": 900}
LOOKS = (("wide", WIDE), ("phone", PHONE))


def four_shots(
    browser: Browser,
    app: LiveApp,
    path: str,
    name: str,
    *,
    handle: str = "",
    then: Callable[[Page], object] | None = None,
    full_page: bool = True,
) -> None:
    """``path`` (signed in as ``handle`` if given) in each look, after ``then`` has brought
    the page to the state worth showing (it runs in every look)."""
    out = ARTIFACTS / "screens"
    out.mkdir(parents=True, exist_ok=True)
    for look, viewport in LOOKS:
        for scheme in ("light", "dark"):
            context = browser.new_context(viewport=viewport, color_scheme=scheme)
            context.set_default_timeout(20_000)
            page = context.new_page()
            if handle:
                sign_in(page, app, handle)
            page.goto(app.url + path)
            wait_ready(page)
            if then is not None:
                then(page)
            overflow = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
            page.screenshot(path=str(out / f"{name}-{look}-{scheme}.png"), full_page=full_page)
            context.close()
            assert overflow <= 0, f"{path} scrolls sideways by {overflow}px ({look}, {scheme})"
