"""The Test card used by the feed, contributor pages and model pages."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.event import EventType
from reflex.vars import ArrayVar, ObjectVar

from benchmax.components.badges import declared_label, status_badge
from benchmax.state.views import CardView


def feed_card(item: ObjectVar[CardView]) -> rx.Component:
    return rx.card(
        rx.flex(
            rx.cond(
                item.thumb != "",
                rx.image(
                    src=item.thumb,
                    alt="Evidence thumbnail",
                    width=["100%", "140px"],
                    height=["160px", "100px"],
                    object_fit="cover",
                    border_radius="var(--radius-2)",
                    loading="lazy",
                    referrer_policy="no-referrer",
                ),
            ),
            rx.vstack(
                rx.hstack(
                    status_badge(item.status, item.status_color),
                    rx.cond(item.sample, rx.badge("Sample", color_scheme="gray")),
                    rx.text(item.kinds, size="1", color_scheme="gray"),
                    spacing="2",
                    align="center",
                    wrap="wrap",
                ),
                rx.link(
                    rx.heading(item.title, size="4", as_="h2", class_name="card-title"),
                    href=item.href,
                    color_scheme="gray",
                    high_contrast=True,
                    class_name="test-card-link",
                ),
                rx.text(item.setup, " · ", item.attempts, size="2"),
                declared_label(),
                rx.hstack(
                    rx.text("by", size="2", color_scheme="gray"),
                    rx.link(item.contributor, href="/u/" + item.handle, size="2"),
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
        class_name="test-card",
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
