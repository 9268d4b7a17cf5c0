"""Badge text stays readable: at least 4.5:1 (WCAG 2.2 AA for small text) in both themes.

Computed from the very table the badge CSS is generated from, so a colour edited to look
nicer cannot quietly fall below the bar; the browser suite's axe run checks the pages too.
"""

from __future__ import annotations

import pytest

from benchmax.components.badges import badge_style
from benchmax.presentation.colours import ACCENT, BADGE_TOKENS, PAGE_BACKGROUNDS, REVIEW_COLORS
from benchmax.presentation.contrast import AA, contrast


def test_the_contrast_formula_matches_known_pairs() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#ffffff", "#ffffff") == pytest.approx(1.0)
    # Radix's own soft amber badge text on its background: the pair this table replaces.
    assert contrast("#ab6400", "#fff7c2") < AA


CASES = [
    (scheme, theme, colours[theme])
    for scheme, colours in BADGE_TOKENS.items()
    for theme in ("light", "dark")
]


@pytest.mark.parametrize(("scheme", "theme", "colours"), CASES)
def test_badge_text_on_its_background_meets_aa(
    scheme: str, theme: str, colours: tuple[str, str]
) -> None:
    text, background = colours
    assert contrast(text, background) >= AA, (scheme, theme)


@pytest.mark.parametrize(("scheme", "theme", "colours"), CASES)
def test_outline_badge_text_on_every_page_background_meets_aa(
    scheme: str, theme: str, colours: tuple[str, str]
) -> None:
    text, _ = colours
    for page in PAGE_BACKGROUNDS[theme]:
        assert contrast(text, page) >= AA, (scheme, theme, page)


def test_every_colour_a_badge_is_given_has_tokens() -> None:
    assert ACCENT in BADGE_TOKENS
    assert set(REVIEW_COLORS.values()) <= set(BADGE_TOKENS)


def test_the_css_uses_the_table_in_both_themes() -> None:
    rules = badge_style()
    amber = BADGE_TOKENS["amber"]
    assert rules[".rt-Badge.rt-Badge[data-accent-color='amber']"]["color"] == amber["light"][0]
    dark = rules[".dark & .rt-Badge.rt-Badge[data-accent-color='amber']"]
    assert (dark["color"], dark["background_color"]) == amber["dark"]
