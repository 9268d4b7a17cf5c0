"""The one not-found view: unknown pages and Tests the viewer may not see look identical."""

from __future__ import annotations

import reflex as rx


def not_found_panel() -> rx.Component:
    return rx.center(
        rx.vstack(
            rx.heading("404", size="9", color_scheme="gray"),
            rx.heading("We couldn't find that page", size="5", id="not-found"),
            rx.text(
                "It may never have existed, or it isn't public. Check the address, "
                "or head back to the feed.",
                color_scheme="gray",
                align="center",
            ),
            rx.link(rx.button("Back to the feed"), href="/"),
            align="center",
            spacing="3",
        ),
        padding_y="4rem",
    )
