"""/operations' "Preview failures" section: each recent failed preview with its code and the
evaluator's message, next to the plain reason its readers were given."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ArrayVar, ObjectVar

from benchmax.components.dashboard import scroll_table, section
from benchmax.components.dates import time_ago_or
from benchmax.state.views.preview_failures import PreviewFailureRow

HEADERS = ["Test", "State", "Readers see", "Code", "Detail", "Run", "When"]


def _row(row: ObjectVar[PreviewFailureRow]) -> rx.Component:
    return rx.table.row(
        # Titles and details wrap: the table's other cells keep to one line.
        rx.table.cell(
            rx.link(row.test_title, href=row.test_href), white_space="normal", min_width="12rem"
        ),
        rx.table.cell(row.state),
        rx.table.cell(row.reader_reason),
        rx.table.cell(rx.code(row.code)),
        rx.table.cell(rx.text(row.detail, size="1"), white_space="normal", min_width="16rem"),
        rx.table.cell(row.run),
        rx.table.cell(time_ago_or(row.when)),
        id="ops-preview-failure-" + row.id,
    )


def preview_failures_section(rows: ArrayVar[list[PreviewFailureRow]]) -> rx.Component:
    return section(
        "Preview failures",
        rx.text(
            "The newest automated previews that failed or could not run. Readers see only "
            "the plain reason; the code and detail are for you.",
            size="2",
            color_scheme="gray",
        ),
        rx.cond(
            rows.length() > 0,
            scroll_table(HEADERS, rows, _row, "ops-preview-failures-table"),
            rx.text("No preview failures.", color_scheme="gray", id="ops-preview-failures-empty"),
        ),
        section_id="ops-preview-failures",
    )
