"""``/u/[handle]`` — a contributor's public Tests."""

from __future__ import annotations

import reflex as rx

from benchmax.components.cards import paged_card_list
from benchmax.components.layout import once_loaded, page_shell
from benchmax.components.not_found import not_found_panel
from benchmax.state.profile import ProfileState as S


def profile_page() -> rx.Component:
    # At least a screen tall from the first frame: the footer never jumps when cards load.
    return page_shell(
        rx.box(
            once_loaded(
                S.loaded,
                S.found,
                rx.vstack(
                    rx.heading(S.display_name, size="7", id="profile-name", as_="h1"),
                    rx.text("@", S.handle, color_scheme="gray"),
                    *paged_card_list(
                        S.items,
                        S.next_cursor,
                        S.load_more,
                        "No public Tests from this contributor yet.",
                    ),
                    spacing="4",
                    width="100%",
                ),
                not_found_panel(),
            ),
            min_height="100vh",
        )
    )
