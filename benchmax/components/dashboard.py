"""Pieces of a dashboard: a section with a heading, a stat card, and a table that scrolls
sideways inside its box on a phone instead of wrapping its rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx


def scroll_table(
    headers: list[str], rows: rx.Var, cells: Callable[[Any], rx.Component], table_id: str
) -> rx.Component:
    return rx.box(
        rx.table.root(
            rx.table.header(rx.table.row(*[rx.table.column_header_cell(h) for h in headers])),
            rx.table.body(rx.foreach(rows, cells)),
            id=table_id,
            width="100%",
            size="1",
            # One line per row; on a phone the table scrolls sideways inside its box.
            white_space="nowrap",
        ),
        width="100%",
        overflow_x="auto",
    )


def stat_card(label: str, value: rx.Var | str, stat_id: str) -> rx.Component:
    return rx.card(
        rx.text(label, size="1", color_scheme="gray"),
        rx.text(value, size="5", weight="bold", id=stat_id),
        min_width="9rem",
    )


def section(title: str, *children: rx.Component, section_id: str) -> rx.Component:
    return rx.vstack(rx.heading(title, size="4", as_="h2"), *children, id=section_id, width="100%")
