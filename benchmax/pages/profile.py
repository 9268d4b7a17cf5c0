"""``/u/[handle]`` — a contributor's public Tests."""

from __future__ import annotations

import reflex as rx

from benchmax.components.cards import card_list
from benchmax.components.layout import page_shell
from benchmax.components.not_found import not_found_panel
from benchmax.state.profile import ProfileState as S


def profile_page() -> rx.Component:
    return page_shell(
        rx.cond(
            S.loaded,
            rx.cond(
                S.found,
                rx.vstack(
                    rx.heading(S.display_name, size="7", id="profile-name"),
                    rx.text("@", S.handle, color_scheme="gray"),
                    rx.cond(
                        S.items.length() > 0,
                        card_list(S.items),
                        rx.callout(
                            "No public Tests from this contributor yet.", icon="inbox", width="100%"
                        ),
                    ),
                    rx.cond(
                        S.next_cursor != "",
                        rx.button("Load more", on_click=S.load_more, variant="soft", width="100%"),
                    ),
                    spacing="4",
                    width="100%",
                ),
                not_found_panel(),
            ),
            rx.center(rx.spinner(size="3"), padding="4rem"),
        )
    )
