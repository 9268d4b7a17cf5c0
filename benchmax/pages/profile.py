"""``/u/[handle]`` — a contributor's public Tests."""

from __future__ import annotations

import reflex as rx

from benchmax.components.blocks import column
from benchmax.components.cards import paged_card_list
from benchmax.components.layout import page_shell, page_title, screen_tall
from benchmax.components.not_found import found_or_not_found
from benchmax.state.profile import ProfileState as S


def profile_page() -> rx.Component:
    cards = paged_card_list(
        S.items, S.next_cursor, S.load_more, "No public Tests from this contributor yet."
    )
    body = column(
        page_title(S.display_name, id="profile-name"),
        rx.text("@", S.handle, color_scheme="gray"),
        *cards,
    )
    return page_shell(screen_tall(found_or_not_found(S.loaded, S.found, body)))
