"""The status colours and the badge palette, read by the live badges (``components.badges``),
the states that pick a badge's colour and the first paint's chips, so all three agree."""

from __future__ import annotations

REVIEW_COLORS = {"awaiting": "amber", "reviewed": "green", "ranked": "iris"}

# Badge text and background per colour scheme and theme: step 12 on step 3 of the Radix
# scale (slate for gray, iris as the accent — see rxconfig.py). Radix's own soft badge puts
# step 11 on a translucent step 3, which is 4.2:1 for amber; these are all above 4.5:1,
# which tests/unit/test_badge_contrast.py computes from this table.
BadgeColors = tuple[str, str]  # (text, background)
BADGE_TOKENS: dict[str, dict[str, BadgeColors]] = {
    "gray": {"light": ("#1c2024", "#f0f0f3"), "dark": ("#edeef0", "#212225")},
    "amber": {"light": ("#4f3422", "#fff7c2"), "dark": ("#ffe7b3", "#302008")},
    "green": {"light": ("#193b2d", "#e6f6eb"), "dark": ("#b1f1cb", "#132d21")},
    "iris": {"light": ("#272962", "#f0f1fe"), "dark": ("#e0dffe", "#202248")},
    "blue": {"light": ("#113264", "#e6f4fe"), "dark": ("#c2e6ff", "#0d2847")},
    "red": {"light": ("#641723", "#feebec"), "dark": ("#ffd1d9", "#3b1219")},
}
ACCENT = "iris"
# What an outline badge sits on: the page and the panel backgrounds of each theme.
PAGE_BACKGROUNDS = {"light": ("#ffffff", "#fcfcfd", "#f9f9fb"), "dark": ("#111113", "#18191b")}


def review_color(review: str) -> str:
    """The badge colour of a public Test's review state."""
    return REVIEW_COLORS.get(review, "gray")


# What highlighted code sits on: the page and panel backgrounds, under the code block's
# translucent grey (up to Radix's gray step 3).
CODE_BACKGROUNDS = {
    "light": ("#ffffff", "#f9f9fb", "#f0f0f3"),
    "dark": ("#111113", "#18191b", "#212225"),
}
