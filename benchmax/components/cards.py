"""The Test card used by the feed, contributor pages and model pages, and the lines every
listed Test shows the same way (its declared setup, its contributor)."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.event import EventType
from reflex.vars import ArrayVar, ObjectVar

from benchmax.components.badges import declared_label, sample_badge, status_badge
from benchmax.components.blocks import grow_column, list_or, muted, quiet_link, row
from benchmax.components.dates import time_ago
from benchmax.components.listing import thumbnail
from benchmax.state.views.listed import CardView, ListedView, MarkPart

KIND_ICONS = {
    "image": ("image", "Image evidence"),
    "video": ("video", "Video evidence"),
    "text": ("file-text", "Text or log file"),
    "source": ("archive", "Source archive"),
}
# Cards and their loading placeholders share one minimum height, so the footer stays put
# when the real cards replace the placeholders.
CARD_MIN_HEIGHT = "9.5rem"
# Full width above the text on a phone, a fixed box beside it from ``sm`` up.
THUMBNAIL_SIZE = {"width": ["100%", "140px"], "height": ["160px", "100px"], "flex_shrink": "0"}


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
    return row(
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
        sample_badge(item.sample),
        row(
            rx.cond(
                item.kind_list.length() > 0,
                rx.foreach(item.kind_list, _kind_icon),
                _icon_label("align-left", "Text output only"),
            ),
            spacing="1",
            color="var(--gray-11)",
        ),
    )


def byline(
    name: rx.Var[str], handle: rx.Var[str], *after: rx.Component | rx.Var[str], **link: Any
) -> rx.Component:
    """ "by Ada · 5 min ago": the contributor, linked to their page, then what follows."""
    size = link.pop("size", "2")
    parts: list[Any] = [
        muted("by", size=size),
        rx.link(name, href="/u/" + handle, size=size, **link),
    ]
    for piece in after:
        parts += [muted("·", size=size), muted(piece, size=size)]
    return rx.hstack(*parts, spacing="1", wrap="wrap")


def declared_setup(item: ObjectVar[ListedView]) -> rx.Component:
    """The setup as the contributor declared it, and the label that says it is declared."""
    return rx.fragment(rx.text(item.setup, " · ", item.attempts, size="2"), declared_label())


def _when_and_who(item: ObjectVar[CardView], by: bool) -> rx.Component:
    """When the Test was published, after who published it unless the whole list is one
    contributor's (their page names them once, above it)."""
    if by:
        return byline(
            item.contributor, item.handle, time_ago(item.published), class_name="card-over"
        )
    return muted(time_ago(item.published), class_name="card-when")


def feed_card(item: ObjectVar[CardView], by: bool = True) -> rx.Component:
    """One Test. The title link stretches over the whole card (CSS), so the card is one
    click target and one Tab stop; the contributor link sits above it as its own target."""
    title = rx.cond(item.title_marks.length() > 0, marked(item.title_marks), item.title)
    return rx.card(
        rx.flex(
            # alt="": decorative, the title link next to it says what the card is.
            thumbnail(item.thumb, alt="", **THUMBNAIL_SIZE),
            grow_column(
                _card_badges(item),
                rx.heading(
                    quiet_link(title, href=item.href, class_name="test-card-link"),
                    size="4",
                    as_="h2",
                    class_name="card-title",
                ),
                rx.cond(
                    item.excerpt_marks.length() > 0,
                    rx.text(marked(item.excerpt_marks), size="2", class_name="card-excerpt"),
                ),
                declared_setup(item),
                rx.hstack(
                    _when_and_who(item, by),
                    rx.cond(
                        item.group_href != "",
                        rx.link(
                            rx.icon("git-compare", size=14, aria_hidden="true"),
                            "Compare the setups",
                            href=item.group_href,
                            size="2",
                            class_name="card-over card-compare",
                        ),
                    ),
                    spacing="3",
                    wrap="wrap",
                    align="center",
                ),
                spacing="2",
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


def card_list(items: rx.Var[list[CardView]], by: bool = True) -> rx.Component:
    """The cards; ``by=False`` on a contributor's own page, which names them once above."""
    return rx.vstack(rx.foreach(items, lambda item: feed_card(item, by)), spacing="3", width="100%")


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
    by: bool = True,
) -> tuple[rx.Component, rx.Component]:
    """A page of cards (or ``empty`` in a callout when there are none) and its "Load more".

    Two siblings rather than one wrapper, so the page's own stack spaces them as before.
    """
    return (
        list_or(items, card_list(items, by), rx.callout(empty, icon="inbox", width="100%")),
        more_button(cursor, on_more),
    )
