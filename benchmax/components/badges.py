"""Small labels that carry BenchMax's honesty rules: status and the declared-setup caveat."""

from __future__ import annotations

import reflex as rx

from benchmax.services.labels import DECLARED_LABEL

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
DARK = ".dark & "  # see badge_style
PAGE_BACKGROUNDS = {"light": ("#ffffff", "#fcfcfd", "#f9f9fb"), "dark": ("#111113", "#18191b")}


def badge_style() -> dict[str, dict[str, str]]:
    """Global rules that give every ``rx.badge`` (shared or on a page) the colours above.

    Doubled classes outrank Radix's single-class rules whatever order the sheets load in;
    the dark rules carry one more class, so they win in dark mode. The app's style is
    nested under the theme's root element while ``.dark`` sits on ``<html>`` above it, so
    dark rules name the root as ``&``.
    """
    rules: dict[str, dict[str, str]] = {}
    for theme, prefix in (("light", ""), ("dark", DARK)):
        text, background = BADGE_TOKENS[ACCENT][theme]
        rules[f"{prefix}.rt-Badge.rt-Badge"] = {"color": text, "background_color": background}
        for scheme, colours in BADGE_TOKENS.items():
            text, background = colours[theme]
            rules[f"{prefix}.rt-Badge.rt-Badge[data-accent-color='{scheme}']"] = {
                "color": text,
                "background_color": background,
            }
    outline = ".rt-Badge.rt-Badge.rt-Badge.rt-variant-outline"
    rules[outline] = {"background_color": "transparent"}
    rules[f"{DARK}{outline}"] = {"background_color": "transparent"}
    return rules


def declared_label() -> rx.Component:
    return rx.hstack(
        rx.icon("info", size=14),
        rx.text(DECLARED_LABEL, size="1"),
        color="var(--gray-11)",
        spacing="1",
        align="center",
        class_name="declared-label",
    )


def status_badge(label: rx.Var[str], color: rx.Var[str]) -> rx.Component:
    return rx.badge(
        label,
        color_scheme=color,
        variant="soft",
        size="2",
        class_name="status-badge",
    )


def sample_badge(sample: rx.Var[bool]) -> rx.Component:
    """Marks a Test the project seeded as an example, so no one takes it for a real result."""
    return rx.cond(sample, rx.badge("Sample", color_scheme="gray"))


def kind_chip(kind: rx.Var[str]) -> rx.Component:
    return rx.badge(kind, variant="outline", color_scheme="gray", size="1")


def kind_icon(kind: rx.Var[str], size: int) -> rx.Component:
    """The icon for an evidence kind, so a file looks the same in the wizard and on the Test."""
    return rx.icon(
        rx.match(
            kind, ("image", "image"), ("video", "film"), ("source", "file-archive"), "file-text"
        ),
        size=size,
    )
