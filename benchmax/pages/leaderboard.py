"""``/leaderboard`` — the showcase. Until a snapshot exists it says so plainly."""

from __future__ import annotations

import reflex as rx

from benchmax.components.layout import page_shell


def leaderboard_page() -> rx.Component:
    return page_shell(
        rx.vstack(
            rx.heading("Leaderboard", size="7"),
            rx.callout(
                "A showcase of top-rated reviewed Tests across different prompts — not a "
                "like-for-like benchmark. Only reviewed, eligible Tests are ranked, and each "
                "published snapshot never changes.",
                icon="info",
                width="100%",
            ),
            rx.card(
                rx.vstack(
                    rx.heading("No snapshot published yet", size="4", id="leaderboard-empty"),
                    rx.text(
                        "Snapshots are published once Tests have been reviewed. Meanwhile, "
                        "browse the feed or read how reviews work.",
                        color_scheme="gray",
                    ),
                    rx.hstack(
                        rx.link(rx.button("Browse the feed"), href="/"),
                        rx.link(rx.button("Methodology", variant="soft"), href="/methodology"),
                    ),
                    spacing="3",
                ),
                width="100%",
            ),
            spacing="4",
            width="100%",
        )
    )
