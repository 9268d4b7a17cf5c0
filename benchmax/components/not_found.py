"""The one not-found view: unknown pages and Tests the viewer may not see look identical."""

from __future__ import annotations

import reflex as rx

from benchmax.components.layout import link_button, once_loaded


def found_or_not_found(
    loaded: rx.Var[bool], found: rx.Var[bool], body: rx.Component
) -> rx.Component:
    """A page about one thing (a Test, a contributor, a model, a prompt group): a spinner,
    then the thing, or this view when it does not exist or is not the viewer's to see."""
    return once_loaded(loaded, found, body, not_found_panel())


def not_found_panel() -> rx.Component:
    return rx.center(
        rx.vstack(
            rx.text("404", size="9", weight="bold", color="var(--gray-11)", aria_hidden="true"),
            rx.heading("We couldn't find that page", size="5", as_="h1", id="not-found"),
            rx.text(
                "It may never have existed, or it isn't public. Check the address, "
                "or head back to the feed.",
                color_scheme="gray",
                align="center",
            ),
            link_button("Back to the feed", "/"),
            align="center",
            spacing="3",
            max_width="32rem",
        ),
        # Radix's Flex starts its children at the left unless told; the panel belongs in the
        # middle of the page.
        justify="center",
        width="100%",
        padding_y="4rem",
        id="not-found-panel",
    )
