"""The small pieces pages are built from, each drawn one way.

A page says what a piece is (a wrapping row of badges, a card's text column, a titled
section, a notice) and its look lives here, so two screens never draw one thing two ways.
"""

from __future__ import annotations

from typing import Any, Literal

import reflex as rx

Tone = Literal["error", "warning", "success"]
# What each kind of notice looks like: (colour scheme, icon).
TONES: dict[Tone, tuple[str, str]] = {
    "error": ("red", "circle_alert"),
    "warning": ("amber", "triangle_alert"),
    "success": ("green", "check"),
}


def column(*children: Any, spacing: str = "4", **props: Any) -> rx.Component:
    """A full-width stack: a page's body, a card's contents, a list, a form."""
    return rx.vstack(*children, spacing=spacing, width="100%", **props)


def row(*children: Any, spacing: str = "2", **props: Any) -> rx.Component:
    """Inline pieces on one centred line that wraps on a narrow screen: badges, a toolbar,
    a file's name and size."""
    look = {"align": "center", "wrap": "wrap"} | props
    return rx.hstack(*children, spacing=spacing, **look)


def grow_column(*children: Any, spacing: str = "1", **props: Any) -> rx.Component:
    """A card's text beside its picture or button: it takes the free width and may shrink
    below its content, so a long title wraps instead of widening the card."""
    look = {"align": "start", "min_width": "0", "flex": "1"} | props
    return rx.vstack(*children, spacing=spacing, **look)


def muted(*children: Any, size: str = "2", **props: Any) -> rx.Component:
    """Secondary text in grey: dates, counts, hints, what an empty list means."""
    return rx.text(*children, size=size, color_scheme="gray", **props)


def list_or(items: rx.Var[list[Any]], shown: rx.Component, otherwise: rx.Component) -> rx.Component:
    """``shown`` while ``items`` holds anything, else ``otherwise`` (what the empty list
    means, never a blank space)."""
    return rx.cond(items.length() > 0, shown, otherwise)  # type: ignore[attr-defined]


def quiet_link(*children: Any, href: str | rx.Var[str], **props: Any) -> rx.Component:
    """A link in the text's own colour, for titles and navigation, where accent blue on
    every line would drown the page."""
    return rx.link(*children, href=href, color_scheme="gray", high_contrast=True, **props)


def section(title: str, *children: rx.Component, spacing: str = "2", **props: Any) -> rx.Component:
    """A titled part of a page: its ``<h2>`` and what it holds."""
    return column(rx.heading(title, size="4", as_="h2"), *children, spacing=spacing, **props)


def notice(text: rx.Var[str], tone: Tone, **props: Any) -> rx.Component:
    """A callout saying what just happened or went wrong, shown only while ``text`` is set."""
    color, icon = TONES[tone]
    return rx.cond(text != "", rx.callout(text, color_scheme=color, icon=icon, **props))


def error_text(text: rx.Var[str], **props: Any) -> rx.Component:
    """A form's refusal in red beside the form, announced when it appears."""
    return rx.cond(text != "", rx.text(text, color_scheme="red", size="2", role="alert", **props))


def callout_box(icon: str, *children: rx.Component, **props: Any) -> rx.Component:
    """A full-width callout holding more than a sentence: a state and what to do next, a
    token to copy."""
    return rx.callout.root(rx.callout.icon(rx.icon(icon)), *children, width="100%", **props)


def message_callout(*text: Any, icon: str, **props: Any) -> rx.Component:
    """A callout whose one message has parts (a sentence with a link in it): what an empty
    list means, or what to do before a page can be used."""
    return callout_box(icon, rx.callout.text(*text), **props)
