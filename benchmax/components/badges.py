"""Small labels that carry BenchMax's honesty rules: status and the declared-setup caveat."""

from __future__ import annotations

import reflex as rx

from benchmax.presentation.colours import ACCENT, BADGE_TOKENS
from benchmax.services.labels import DECLARED_LABEL

DARK = ".dark & "  # see badge_style


def badge_style() -> dict[str, dict[str, str]]:
    """Global rules that give every ``rx.badge`` (shared or on a page) the palette's colours.

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
