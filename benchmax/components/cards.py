"""The Test card used by the feed, contributor pages and model pages."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.event import EventType
from reflex.vars import ArrayVar, ObjectVar

from benchmax.components.badges import declared_label, status_badge
from benchmax.state.views import CardView, MarkPart

KIND_ICONS = {
    "image": ("image", "Image evidence"),
    "video": ("video", "Video evidence"),
    "text": ("file-text", "Text or log file"),
    "source": ("archive", "Source archive"),
}
# Cards and their loading placeholders share one minimum height, so the footer stays put
# when the real cards replace the placeholders.
CARD_MIN_HEIGHT = "9.5rem"
# Full width above the text on a phone, a fixed box beside it from ``sm`` up; never sends a
# referrer to the user-content origin.
THUMBNAIL = {
    "width": ["100%", "140px"],
    "height": ["160px", "100px"],
    "object_fit": "cover",
    "border_radius": "var(--radius-2)",
    "loading": "lazy",
    "referrer_policy": "no-referrer",
    "flex_shrink": "0",
}


def _icon_label(icon: str, label: str) -> rx.Component:
    """An icon that says what it is to a screen reader, and on hover."""
    return rx.el.span(
        rx.icon(icon, size=15, aria_hidden="true"),
        role="img",
        aria_label=label,
        title=label,
        class_name="kind-icon",
    )


def _kind_icon(kind: rx.Var[str]) -> rx.Component:
    cases = [(name, _icon_label(icon, label)) for name, (icon, label) in KIND_ICONS.items()]
    return rx.match(kind, *cases, rx.fragment())


def marked(parts: rx.Var[list[MarkPart]]) -> rx.Component:
    """Search matches in ``<mark>``; every piece is a text node, never HTML."""
    return rx.foreach(
        parts,
        lambda part: rx.cond(part.hit, rx.el.mark(part.text), rx.fragment(part.text)),
    )


def _card_badges(item: ObjectVar[CardView]) -> rx.Component:
    return rx.hstack(
        status_badge(item.status, item.status_color),
        rx.cond(
            item.score != "",
            rx.badge(
                rx.icon("star", size=12, aria_hidden="true"),
                item.score,
                variant="surface",
                size="2",
                class_name="score-chip",
            ),
        ),
        rx.cond(item.sample, rx.badge("Sample", color_scheme="gray")),
        rx.hstack(
            rx.cond(
                item.kind_list.length() > 0,
                rx.foreach(item.kind_list, _kind_icon),
                _icon_label("align-left", "Text output only"),
            ),
            spacing="1",
            align="center",
            color="var(--gray-11)",
        ),
        spacing="2",
        align="center",
        wrap="wrap",
    )


def _thumbnail(item: ObjectVar[CardView]) -> rx.Component:
    return rx.cond(
        item.thumb != "",
        # alt="": decorative, the title link next to it says what the card is.
        rx.image(src=item.thumb, alt="", **THUMBNAIL),
    )


def feed_card(item: ObjectVar[CardView]) -> rx.Component:
    """One Test. The title link stretches over the whole card (CSS), so the card is one
    click target and one Tab stop; the contributor link sits above it as its own target."""
    return rx.card(
        rx.flex(
            _thumbnail(item),
            rx.vstack(
                _card_badges(item),
                rx.heading(
                    rx.link(
                        rx.cond(
                            item.title_marks.length() > 0, marked(item.title_marks), item.title
                        ),
                        href=item.href,
                        color_scheme="gray",
                        high_contrast=True,
                        class_name="test-card-link",
                    ),
                    size="4",
                    as_="h2",
                    class_name="card-title",
                ),
                rx.cond(
                    item.excerpt_marks.length() > 0,
                    rx.text(marked(item.excerpt_marks), size="2", class_name="card-excerpt"),
                ),
                rx.text(item.setup, " · ", item.attempts, size="2"),
                declared_label(),
                rx.hstack(
                    rx.text("by", size="2", color_scheme="gray"),
                    rx.link(
                        item.contributor,
                        href="/u/" + item.handle,
                        size="2",
                        class_name="card-over",
                    ),
                    rx.text("·", size="2", color_scheme="gray"),
                    rx.text(item.published, size="2", color_scheme="gray"),
                    spacing="1",
                    wrap="wrap",
                ),
                spacing="2",
                align="start",
                min_width="0",
                flex="1",
            ),
            direction=rx.breakpoints(initial="column", sm="row"),
            spacing="4",
        ),
        width="100%",
        min_height=CARD_MIN_HEIGHT,
        class_name="test-card",
    )


def card_skeletons(count: int) -> rx.Component:
    """Placeholders the size of a card while the first page loads (``aria-busy`` says so)."""
    return rx.vstack(
        *[
            rx.card(
                rx.vstack(
                    rx.skeleton(rx.box(height="1.25rem", width="30%")),
                    rx.skeleton(rx.box(height="1.5rem", width="75%")),
                    rx.skeleton(rx.box(height="1rem", width="55%")),
                    rx.skeleton(rx.box(height="1rem", width="40%")),
                    spacing="3",
                ),
                width="100%",
                min_height=CARD_MIN_HEIGHT,
                class_name="card-skeleton",
            )
            for _ in range(count)
        ],
        spacing="3",
        width="100%",
        aria_busy="true",
        aria_label="Loading Tests",
        id="feed-loading",
    )


def card_list(items: rx.Var[list[CardView]]) -> rx.Component:
    return rx.vstack(rx.foreach(items, feed_card), spacing="3", width="100%")


def more_button(cursor: rx.Var[str], on_click: EventType[()], **props: Any) -> rx.Component:
    """The "Load more" button, shown only while the list has another page behind ``cursor``."""
    return rx.cond(
        cursor != "",
        rx.button("Load more", on_click=on_click, variant="soft", width="100%", **props),
    )


def paged_card_list(
    items: ArrayVar[list[CardView]],
    cursor: rx.Var[str],
    on_more: EventType[()],
    empty: str,
) -> tuple[rx.Component, rx.Component]:
    """A page of cards (or ``empty`` in a callout when there are none) and its "Load more".

    Two siblings rather than one wrapper, so the page's own stack spaces them as before.
    """
    return (
        rx.cond(
            items.length() > 0,
            card_list(items),
            rx.callout(empty, icon="inbox", width="100%"),
        ),
        more_button(cursor, on_more),
    )
