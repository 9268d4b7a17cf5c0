"""``/operations`` — owners only: queues, dead letters, time-to-public, storage, backups.

The Refresh button reloads the dashboard; ``assets/autorefresh.js`` clicks it every few
seconds while the tab is visible, so the page stays live with no loop on the server and stops
by itself when the tab closes. Element ids (``ops-*``) are stable for the browser tests.
"""

from __future__ import annotations

import reflex as rx

from benchmax.components.autorefresh import autorefresh_button
from benchmax.components.layout import page_shell
from benchmax.state.operations import POLL_SECONDS
from benchmax.state.operations import OperationsState as S


def _table(headers: list[str], rows: rx.Var, cells, table_id: str) -> rx.Component:  # type: ignore[no-untyped-def]
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


def _stat(label: str, value: rx.Var | str, stat_id: str) -> rx.Component:
    return rx.card(
        rx.text(label, size="1", color_scheme="gray"),
        rx.text(value, size="5", weight="bold", id=stat_id),
        min_width="9rem",
    )


def _job_row(row: dict) -> rx.Component:  # type: ignore[type-arg]
    return rx.table.row(
        rx.table.cell(row["kind"]), rx.table.cell(row["state"]), rx.table.cell(row["count"])
    )


def _dead_row(job: dict) -> rx.Component:  # type: ignore[type-arg]
    job_id = job["id"]
    return rx.table.row(
        rx.table.cell(job_id),
        rx.table.cell(job["kind"]),
        rx.table.cell(rx.code(job["subject_id"])),
        rx.table.cell(job["attempts"]),
        rx.table.cell(rx.code(job["error"])),
        rx.table.cell(job["updated"]),
        rx.table.cell(
            rx.hstack(
                rx.vstack(
                    rx.input(
                        placeholder="Reason (at least 10 characters)",
                        value=S.reasons.get(job_id, ""),  # type: ignore[attr-defined]  # a dict var
                        on_change=lambda value: S.set_reason(job_id, value),
                        id="ops-reason-" + job_id,
                        size="1",
                        min_width="14rem",
                    ),
                    rx.cond(
                        S.reason_errors.get(job_id, "") != "",  # type: ignore[attr-defined]
                        rx.text(
                            S.reason_errors.get(job_id, ""),  # type: ignore[attr-defined]
                            color_scheme="red",
                            size="1",
                            role="alert",
                            id="ops-reason-error-" + job_id,
                            white_space="normal",
                            max_width="22rem",
                        ),
                    ),
                    spacing="1",
                ),
                rx.button(
                    "Requeue", on_click=S.requeue(job_id), id="ops-requeue-" + job_id, size="1"
                ),
                rx.button(
                    "Discard",
                    on_click=S.discard(job_id),
                    id="ops-discard-" + job_id,
                    size="1",
                    color_scheme="red",
                    variant="soft",
                ),
                spacing="2",
            )
        ),
        id="ops-dead-" + job_id,
    )


def _section(title: str, *children: rx.Component, section_id: str) -> rx.Component:
    return rx.vstack(rx.heading(title, size="4"), *children, id=section_id, width="100%")


def _dashboard() -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.heading("Operations", size="7"),
            rx.spacer(),
            rx.text("Updated ", S.generated_at, size="1", color_scheme="gray", id="ops-updated"),
            autorefresh_button(
                rx.icon("refresh-cw", size=14),
                "Refresh",
                every_seconds=POLL_SECONDS,
                on_click=S.refresh,
                variant="soft",
                id="ops-refresh",
            ),
            rx.button(
                "Create backup now",
                on_click=S.create_backup,
                loading=S.backup_running,
                id="ops-backup-create",
            ),
            width="100%",
            align="center",
            wrap="wrap",
        ),
        rx.cond(
            S.notice != "",
            rx.callout(
                S.notice,
                color_scheme=rx.cond(S.notice_ok, "green", "red"),
                id="ops-notice",
                width="100%",
            ),
        ),
        rx.flex(
            _stat("Oldest waiting job", S.oldest_waiting, "ops-oldest-waiting"),
            _stat("Time to public p50 (24 h)", S.ttp_p50, "ops-ttp-p50"),
            _stat("Time to public p95 (24 h)", S.ttp_p95, "ops-ttp-p95"),
            _stat("Open reports", S.open_reports.to_string(), "ops-open-reports"),
            _stat("Open disputes", S.open_disputes.to_string(), "ops-open-disputes"),
            _stat("Open holds", S.open_holds.to_string(), "ops-open-holds"),
            _stat("AI review", S.ai_review, "ops-ai-review"),
            wrap="wrap",
            spacing="3",
        ),
        _section(
            "Dead-letter jobs",
            rx.cond(
                S.dead_jobs.length() > 0,
                _table(
                    ["Job", "Kind", "Subject", "Attempts", "Last error", "Updated", "Action"],
                    S.dead_jobs,
                    _dead_row,
                    "ops-dead-table",
                ),
                rx.text("No dead jobs.", color_scheme="gray", id="ops-dead-empty"),
            ),
            section_id="ops-dead-list",
        ),
        _section(
            "Jobs by kind and state",
            rx.cond(
                S.job_rows.length() > 0,
                _table(["Kind", "State", "Jobs"], S.job_rows, _job_row, "ops-jobs-table"),
                rx.text(
                    "No jobs yet: they appear once a Test is submitted.",
                    color_scheme="gray",
                    id="ops-jobs-empty",
                ),
            ),
            rx.text(
                "Pending, running and dead are live; done and discarded as of ",
                S.finished_counts_at,
                size="1",
                color_scheme="gray",
            ),
            section_id="ops-jobs",
        ),
        _section(
            "Time to public",
            rx.text(S.ttp_count.to_string(), " Tests published in the last 24 hours.", size="2"),
            rx.recharts.line_chart(
                rx.recharts.line(data_key="p50", name="p50 (s)", stroke="var(--accent-9)"),
                rx.recharts.line(data_key="p95", name="p95 (s)", stroke="var(--orange-9)"),
                rx.recharts.x_axis(data_key="time"),
                rx.recharts.y_axis(),
                rx.recharts.legend(),
                rx.recharts.graphing_tooltip(),
                data=S.ttp_series,
                width="100%",
                height=240,
            ),
            section_id="ops-ttp",
        ),
        _section(
            "Storage",
            _table(
                ["Prefix", "Objects", "Bytes"],
                S.storage_rows,
                lambda row: rx.table.row(
                    rx.table.cell(rx.code(row["prefix"])),
                    rx.table.cell(row["objects"]),
                    rx.table.cell(row["bytes"]),
                ),
                "ops-storage-table",
            ),
            rx.text("Inventory taken ", S.storage_taken_at, size="1", color_scheme="gray"),
            rx.text(
                S.orphan_count.to_string(),
                " objects without a row; ",
                S.missing_count.to_string(),
                " approved rows without their object.",
                id="ops-orphan-summary",
            ),
            rx.foreach(S.orphan_objects, lambda key: rx.code("orphan: " + key)),
            rx.foreach(S.missing_objects, lambda key: rx.code("missing: " + key)),
            section_id="ops-storage",
        ),
        _section(
            "Last backup",
            rx.cond(
                S.backup["present"] != "",
                rx.vstack(
                    rx.text(S.backup["time"], " — ", S.backup["objects"]),
                    rx.code(S.backup["manifest"]),
                    rx.text(S.backup["verified"], id="ops-backup-verified"),
                ),
                rx.text("No backup yet.", color_scheme="gray"),
            ),
            section_id="ops-backup",
        ),
        _section(
            "Recent audit events",
            _table(
                ["Id", "Action", "Actor", "Subject", "Time"],
                S.audit_rows,
                lambda row: rx.table.row(
                    rx.table.cell(row["id"]),
                    rx.table.cell(row["action"]),
                    rx.table.cell(row["actor"]),
                    rx.table.cell(row["subject"]),
                    rx.table.cell(row["time"]),
                ),
                "ops-audit-table",
            ),
            section_id="ops-audit",
        ),
        spacing="5",
        width="100%",
        id="ops-dashboard",
    )


def operations_page() -> rx.Component:
    return page_shell(
        rx.box(
            rx.cond(
                S.loaded,
                rx.cond(
                    S.allowed,
                    _dashboard(),
                    rx.callout(
                        "Not allowed: only owners can see operations.",
                        icon="lock",
                        color_scheme="red",
                        id="ops-not-allowed",
                    ),
                ),
                rx.center(rx.spinner(size="3"), padding="4rem"),
            ),
            width="100%",
        )
    )
