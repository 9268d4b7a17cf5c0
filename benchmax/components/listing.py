"""Pieces every showcase list draws the same way: a thumbnail, a code box, an empty list."""

from __future__ import annotations

from typing import Any

import reflex as rx

from benchmax.components.blocks import list_or
from benchmax.components.layout import once_loaded

# A hairline round every evidence image: a white screenshot on a white page still shows its
# edge (and a black one on the dark theme).
IMAGE_BORDER = "1px solid var(--gray-a6)"


def evidence_image(src: rx.Var[str], alt: rx.Var[str] | str, **look: Any) -> rx.Component:
    """An image from the user-content origin, asked for without a referrer, so no page
    address leaks to that origin."""
    look.setdefault("border", IMAGE_BORDER)
    return rx.image(src=src, alt=alt, referrer_policy="no-referrer", **look)


def thumbnail(src: rx.Var[str], alt: str = "Evidence thumbnail", **size: Any) -> rx.Component:
    """An evidence thumbnail, loaded only when scrolled near; nothing when there is none."""
    crop = {"object_fit": "cover", "border_radius": "var(--radius-2)", "loading": "lazy"}
    return rx.cond(src != "", evidence_image(src, alt, **crop, **size))


def code_box(text: rx.Var[str], box_id: str = "", **box: Any) -> rx.Component:
    """Verbatim text (a prompt, settings, a template) in a grey box that keeps its line breaks;
    a word too long for the box scrolls inside it."""
    if box_id:
        box["id"] = box_id
    return rx.box(
        rx.text(text, white_space="pre-wrap", font_family="var(--code-font-family)", size="2"),
        padding="0.75rem",
        background="var(--gray-a3)",
        border_radius="var(--radius-3)",
        width="100%",
        overflow_x="auto",
        **box,
    )


def list_or_empty(
    items: rx.Var[list[Any]], shown: rx.Component, empty: str, empty_id: str
) -> rx.Component:
    """The list, or one sentence saying it is empty and why."""
    return list_or(items, shown, rx.callout(empty, icon="inbox", width="100%", id=empty_id))


def when_loaded(loaded: rx.Var[bool], body: rx.Component) -> rx.Component:
    """A spinner until the state has loaded, for pages that every visitor may see."""
    return once_loaded(loaded, loaded, body, rx.fragment())


def section_intro(title: str, intro: str) -> tuple[rx.Component, rx.Component]:
    """A section's heading and the grey sentence under it that says what the section holds."""
    return rx.heading(title, size="4", as_="h2"), rx.text(intro, size="2", color_scheme="gray")
