"""Pieces the staff consoles (moderation, operations and its AI judge section) and the Test
page's panels are built from, beside the general pieces of ``components/blocks.py``: the
refusal a visitor without the role sees, a row of stat cards, a section whose heading carries
its own control, and a table that says so when it is empty."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx

from benchmax.components.dashboard import scroll_table


def refusal(text: str, icon: str, refusal_id: str) -> rx.Component:
    """What a signed-in visitor without the role sees instead of a console: why, in red."""
    return rx.callout(text, icon=icon, color_scheme="red", id=refusal_id)


def stat_row(*cards: rx.Component) -> rx.Component:
    """A dashboard's stat cards in a grid of equal columns, as many as fit (two on a phone),
    so cards of different text lengths still line up."""
    return rx.grid(
        *cards,
        grid_template_columns="repeat(auto-fill, minmax(10rem, 1fr))",
        gap="var(--space-3)",
        width="100%",
    )


def action_section(
    title: str, action: rx.Component, *children: rx.Component, section_id: str
) -> rx.Component:
    """A dashboard section whose heading carries the one control that acts on all of it (a
    Refresh), right beside the heading rather than lost at the bottom."""
    return rx.vstack(
        rx.hstack(rx.heading(title, size="4", as_="h2"), action, align="center", spacing="3"),
        *children,
        id=section_id,
        width="100%",
    )


def table_or_empty(
    headers: list[str],
    rows: rx.Var,
    cells: Callable[[Any], rx.Component],
    table_id: str,
    empty: str,
) -> rx.Component:
    """The table, or one grey sentence (id ``<table_id>-empty``) saying why it has no rows."""
    return rx.cond(
        rows.length() > 0,  # type: ignore[attr-defined]
        scroll_table(headers, rows, cells, table_id),
        rx.text(empty, color_scheme="gray", id=table_id.removesuffix("-table") + "-empty"),
    )
