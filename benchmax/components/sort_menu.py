"""The "Sort" menu every list of Tests offers: the feed, a contributor, a model, a group."""

from __future__ import annotations

from typing import Any

import reflex as rx

from benchmax.components.blocks import row
from benchmax.components.fields import field_label
from benchmax.services.feed_order import LIST_SORTS, SORT_LABELS


def sort_menu(
    select_id: str, value: rx.Var[str], on_change: Any, *first: rx.Component
) -> rx.Component:
    """A labelled select of ``LIST_SORTS`` under the feed's own names; ``first`` are items
    only some lists have (the feed's "Best match" while there is a search)."""
    return row(
        field_label("Sort", select_id, color_scheme="gray"),
        rx.select.root(
            rx.select.trigger(id=select_id, aria_label="Sort"),
            rx.select.content(
                *first, *[rx.select.item(SORT_LABELS[sort], value=sort) for sort in LIST_SORTS]
            ),
            value=value,
            on_change=on_change,
        ),
        class_name="sort-menu",
    )
