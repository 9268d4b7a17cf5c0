"""``/u/[handle]`` — a contributor's public Tests."""

from __future__ import annotations

import reflex as rx

from benchmax.components.blocks import column, muted
from benchmax.components.cards import paged_card_list
from benchmax.components.dates import time_ago
from benchmax.components.layout import page_shell, page_title, screen_tall
from benchmax.components.not_found import found_or_not_found
from benchmax.components.sort_menu import sort_menu
from benchmax.state.profile import ProfileState as S


def profile_page() -> rx.Component:
    # The page names its contributor once, so the cards leave their name out.
    cards = paged_card_list(
        S.items, S.next_cursor, S.load_more, "No public Tests from this contributor yet.", by=False
    )
    facts = muted(
        "@", S.handle, " · ", S.test_count, " · joined ", time_ago(S.joined), id="profile-facts"
    )
    body = column(
        page_title(S.display_name, id="profile-name"),
        rx.hstack(facts, sort_menu("profile-sort", S.sort, S.set_sort), wrap="wrap",
                  justify="between", align="center", width="100%", spacing="3"),
        *cards,
    )  # fmt: skip
    return page_shell(screen_tall(found_or_not_found(S.loaded, S.found, body)))
