"""The keyboard focus ring: at least 3:1 against the page and the header in both themes (the
shell's own ring and Radix's, one colour), and one ring on a tab, never two.

Screenshots land in ``test-artifacts/screens/focus/``."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.conftest import ARTIFACTS, DESKTOP, OWNER_HANDLE, LiveApp, Theme, sign_in, wait_ready
from tests.e2e.contrast import contrast

SHOTS = ARTIFACTS / "screens" / "focus"


def _style(locator: Locator, prop: str) -> str:
    return str(locator.evaluate(f"(el) => getComputedStyle(el).{prop}"))


def _backgrounds(page: Page) -> dict[str, str]:
    """The page's background (the theme root's) and the header's."""
    return {
        "page": _style(page.locator(".radix-themes").first, "backgroundColor"),
        "header": _style(page.locator("header"), "backgroundColor"),
    }


def _ring_contrast(page: Page, ring: str) -> dict[str, float]:
    return {
        name: contrast(page, ring, background) for name, background in _backgrounds(page).items()
    }


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_focus_ring_stands_out_from_light_and_dark_backgrounds(
    live_app: LiveApp, browser: Browser, theme: Theme
) -> None:
    context = browser.new_context(viewport=DESKTOP, color_scheme=theme)
    page = context.new_page()
    page.goto(live_app.url + "/sign-in")
    wait_ready(page)
    page.locator("body").press("Tab")  # the skip link
    page.keyboard.press("Tab")
    home = page.locator("#nav-home")
    expect(home).to_be_focused()
    assert _style(home, "outlineStyle") == "solid"
    link_ring = _style(home, "outlineColor")
    for name, ratio in _ring_contrast(page, link_ring).items():
        assert ratio >= 3, f"the link's ring on the {name} ({theme}): {ratio:.2f}:1"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("header").screenshot(path=str(SHOTS / f"link-{theme}.png"))
    # A Radix button draws its own ring, in the same colour.
    button = page.locator("#sign-in-submit")
    page.locator("#handle").focus()
    for _ in range(5):  # past the form's other fields
        page.keyboard.press("Tab")
        if button.evaluate("(el) => el === document.activeElement"):
            break
    expect(button).to_be_focused()
    assert _style(button, "outlineStyle") == "solid"
    ring = _style(button, "outlineColor")
    assert ring == link_ring
    for name, ratio in _ring_contrast(page, ring).items():
        assert ratio >= 3, f"the button's ring on the {name} ({theme}): {ratio:.2f}:1"
    page.locator("#main").screenshot(path=str(SHOTS / f"button-{theme}.png"))
    context.close()


def test_a_moderation_tab_draws_one_ring(live_app: LiveApp, browser: Browser) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    sign_in(page, live_app, OWNER_HANDLE)
    page.goto(live_app.url + "/moderation")
    wait_ready(page)
    first = page.get_by_role("tab").first
    first.click()
    page.keyboard.press("ArrowRight")  # by keyboard, so the browser shows focus
    tab = page.get_by_role("tab").nth(1)
    expect(tab).to_be_focused()
    inner = tab.locator(".rt-BaseTabListTriggerInner")
    rings = [
        style
        for style in (_style(tab, "outlineStyle"), _style(inner, "outlineStyle"))
        if style != "none"
    ]
    assert rings == ["solid"], f"the tab and its label draw {len(rings)} rings"
    ratio = contrast(page, _style(inner, "outlineColor"), "white")
    assert ratio >= 3, f"the tab's ring on white: {ratio:.2f}:1"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.get_by_role("tablist").screenshot(path=str(SHOTS / "moderation-tab-light.png"))
    context.close()
