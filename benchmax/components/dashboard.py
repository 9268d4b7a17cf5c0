"""Pieces of a dashboard: a section with a heading, stat cards (plain or linked to their
queue), small server-drawn SVG charts, and a table that scrolls sideways inside its box on a
phone instead of wrapping its rows."""

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
        # Never wider than its column, however long a row: the box scrolls, not the page.
        max_width="100%",
        min_width="0",
        overflow_x="auto",
        # A shadow at an edge with more table behind it (assets/shell.css): on a phone the
        # cut-off column is otherwise the only sign that the table scrolls.
        class_name="scroll-x",
    )


def stat_card(label: str, value: rx.Var | str, stat_id: str) -> rx.Component:
    return rx.card(
        rx.text(label, size="1", color_scheme="gray", text_wrap="balance"),
        rx.text(value, size="5", weight="bold", id=stat_id),
        height="100%",
    )


def section(title: str, *children: rx.Component, section_id: str) -> rx.Component:
    """A titled panel; ``min_width=0`` lets a wide table inside scroll in its own box rather
    than stretch the panel past the page."""
    return rx.vstack(
        rx.heading(title, size="4", as_="h2"),
        *children,
        id=section_id,
        width="100%",
        min_width="0",
    )


def link_stat_card(label: str, value: rx.Var | str, stat_id: str, href: str) -> rx.Component:
    """A stat card that is one link to the queue or section it counts."""
    return rx.link(
        rx.card(
            rx.text(label, size="1", color_scheme="gray", text_wrap="balance"),
            rx.text(value, size="5", weight="bold", id=stat_id),
            height="100%",
            class_name="stat-link-card",
        ),
        href=href,
        underline="none",
        color="inherit",
        id=stat_id + "-link",
    )


def svg_chart(svg: rx.Var[str], empty: str, chart_id: str) -> rx.Component:
    """A chart the state drew (``presentation.charts.line_chart_svg``), or what to expect
    when there is none."""
    return rx.cond(
        svg != "",
        rx.box(rx.html(svg), id=chart_id, width="100%", max_width="640px"),
        rx.text(empty, color_scheme="gray", size="2", id=chart_id + "-empty"),
    )


def notice_callout(text: rx.Var[str], ok: rx.Var[bool], notice_id: str) -> rx.Component:
    """What the last action did: green when it worked, red when it was refused."""
    return rx.cond(
        text != "",
        rx.callout(
            text, color_scheme=rx.cond(ok, "green", "red"), id=notice_id, width="100%",
            role="status",
        ),
    )  # fmt: skip
