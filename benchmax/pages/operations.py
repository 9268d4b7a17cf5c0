"""``/operations`` — owners only: queues, dead letters, time-to-public, storage, backups.

The Refresh button reloads the dashboard; ``assets/autorefresh.js`` clicks it every few
seconds while the tab is visible, so the page stays live with no loop on the server and stops
by itself when the tab closes. Element ids (``ops-*``) are stable for the browser tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.autorefresh import autorefresh_button
from benchmax.components.blocks import column
from benchmax.components.dashboard import (
    link_stat_card,
    notice_callout,
    scroll_table,
    section,
    stat_card,
    svg_chart,
)
from benchmax.components.dates import time_ago_or
from benchmax.components.layout import once_loaded, page_shell
from benchmax.components.panels import refusal, stat_row, table_or_empty
from benchmax.components.preview_failures import preview_failures_section
from benchmax.pages.judge_operations import judge_section
from benchmax.state.operations import POLL_SECONDS
from benchmax.state.operations import OperationsState as S
from benchmax.state.views.operations import AuditRow, DeadJobRow, JobRow, OperationsView

# Reflex's stubs type a dataclass-valued state var as an array; this is the var as it is.
D = cast("ObjectVar[OperationsView]", S.dash)


def _job_row(row: ObjectVar[JobRow]) -> rx.Component:
    return rx.table.row(rx.table.cell(row.kind), rx.table.cell(row.state), rx.table.cell(row.count))


def _reason_field(job_id: rx.Var[str]) -> rx.Component:
    """The reason a requeue or discard needs, and what was wrong with the last one typed."""
    error = S.reason_errors.get(job_id, "")  # type: ignore[attr-defined]  # a dict var
    return rx.vstack(
        rx.input(
            placeholder="Reason (at least 10 characters)",
            aria_label="Reason for requeueing or discarding job " + job_id,
            value=S.reasons.get(job_id, ""),  # type: ignore[attr-defined]  # a dict var
            on_change=lambda value: S.set_reason(job_id, value),
            id="ops-reason-" + job_id,
            size="1",
            min_width="14rem",
        ),
        rx.cond(
            error != "",
            rx.text(
                error,
                color_scheme="red",
                size="1",
                role="alert",
                id="ops-reason-error-" + job_id,
                white_space="normal",
                max_width="22rem",
            ),
        ),
        spacing="1",
    )


def _dead_row(job: ObjectVar[DeadJobRow]) -> rx.Component:
    job_id = job.id
    return rx.table.row(
        rx.table.cell(job_id),
        rx.table.cell(job.kind),
        rx.table.cell(rx.code(job.subject_id)),
        rx.table.cell(job.attempts),
        # The error wraps in a column of its own width, so the actions stay in view.
        rx.table.cell(
            rx.code(job.error),
            white_space="normal",
            min_width="12rem",
            max_width="24rem",
            class_name="break-anywhere",
        ),
        rx.table.cell(time_ago_or(job.updated)),
        # The reason above its two buttons, so the row fits the page's column.
        rx.table.cell(
            rx.vstack(
                _reason_field(job_id),
                rx.hstack(
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
                ),
                spacing="2",
            )
        ),
        id="ops-dead-" + job_id,
    )


def _toolbar() -> rx.Component:
    """The heading, when the figures were taken, Refresh and a backup on demand."""
    updated = rx.text(
        "Updated ", time_ago_or(D.generated_at), size="1", color_scheme="gray", id="ops-updated"
    )
    refresh = autorefresh_button(
        rx.icon("refresh-cw", size=14),
        "Refresh",
        every_seconds=POLL_SECONDS,
        on_click=S.refresh,
        variant="soft",
        id="ops-refresh",
    )
    backup = rx.button(
        "Create backup now",
        on_click=S.create_backup,
        loading=S.backup_running,
        id="ops-backup-create",
    )
    return rx.hstack(
        rx.heading("Operations", size="7"),
        rx.spacer(),
        updated,
        refresh,
        backup,
        width="100%",
        align="center",
        wrap="wrap",
    )


def _notice() -> rx.Component:
    """What the last requeue, discard or backup did."""
    return notice_callout(S.notice, S.notice_ok, "ops-notice")


def _stats() -> rx.Component:
    """The figures an owner looks at first, each a link to the queue or section it counts."""
    return stat_row(
        *[
            link_stat_card(label, value, stat_id, href)
            for label, value, stat_id, href in (
                ("Dead jobs", D.dead_count.to_string(), "ops-dead-count", "#ops-dead-list"),
                ("Oldest waiting job", D.oldest_waiting, "ops-oldest-waiting", "#ops-jobs"),
                ("Time to public p50 (24 h)", D.ttp_p50, "ops-ttp-p50", "#ops-ttp"),
                ("Time to public p95 (24 h)", D.ttp_p95, "ops-ttp-p95", "#ops-ttp"),
                (
                    "Open reports",
                    D.open_reports.to_string(),
                    "ops-open-reports",
                    "/moderation?tab=reports",
                ),
                (
                    "Open appeals",
                    D.open_appeals.to_string(),
                    "ops-open-appeals",
                    "/moderation?tab=appeals",
                ),
                (
                    "Open disputes",
                    D.open_disputes.to_string(),
                    "ops-open-disputes",
                    "/moderation?tab=disputes",
                ),
                ("Open holds", D.open_holds.to_string(), "ops-open-holds", "/moderation?tab=flags"),
            )
        ],
        stat_card("AI review", D.ai_review, "ops-ai-review"),
        stat_card("Keys removed from derived text", D.redactions, "ops-redactions"),
    )


def _dead_jobs() -> rx.Component:
    """Jobs that used up their attempts, each with requeue and discard."""
    headers = ["Job", "Kind", "Subject", "Attempts", "Last error", "Updated", "Action"]
    table = table_or_empty(headers, D.dead_jobs, _dead_row, "ops-dead-table", "No dead jobs.")
    return section("Dead-letter jobs", table, section_id="ops-dead-list")


def _jobs() -> rx.Component:
    """Job counts by kind and state."""
    empty = "No jobs yet: they appear once a Test is submitted."
    table = table_or_empty(["Kind", "State", "Jobs"], D.job_rows, _job_row, "ops-jobs-table", empty)
    as_of = rx.text(
        "Pending, running and dead are live; done and discarded as of ",
        time_ago_or(D.finished_counts_at),
        size="1",
        color_scheme="gray",
    )
    return section("Jobs by kind and state", table, as_of, section_id="ops-jobs")


_NO_SAMPLES = "No samples yet: the scheduler records one every few minutes."


def _charts() -> rx.Component:
    """Job states and the backlog over the last day, from the scheduler's samples."""
    return section(
        "Jobs over the last 24 hours",
        rx.flex(
            rx.vstack(rx.text("Jobs by state", size="2", weight="medium"),
                      svg_chart(D.jobs_chart, _NO_SAMPLES, "ops-jobs-chart"), flex="1",
                      min_width="16rem"),
            rx.vstack(rx.text("Backlog (pending + running)", size="2", weight="medium"),
                      svg_chart(D.backlog_chart, _NO_SAMPLES, "ops-backlog-chart"), flex="1",
                      min_width="16rem"),
            wrap="wrap", spacing="4", width="100%",
        ),
        section_id="ops-charts",
    )  # fmt: skip


def _time_to_public() -> rx.Component:
    """How long Tests took from submission to public, over the last day."""
    return section(
        "Time to public",
        rx.text(D.ttp_count.to_string(), " Tests published in the last 24 hours.", size="2"),
        svg_chart(D.ttp_chart, _NO_SAMPLES, "ops-ttp-chart"),
        section_id="ops-ttp",
    )


def _storage() -> rx.Component:
    """Objects per prefix, and objects and rows that lost each other."""
    return section(
        "Storage",
        scroll_table(
            ["Prefix", "Objects", "Bytes"],
            D.storage_rows,
            lambda row: rx.table.row(
                rx.table.cell(rx.code(row.prefix)),
                rx.table.cell(row.objects),
                rx.table.cell(row.bytes),
            ),
            "ops-storage-table",
        ),
        rx.text("Inventory taken ", time_ago_or(D.storage_taken_at), size="1", color_scheme="gray"),
        rx.text(
            D.orphan_count.to_string(),
            " objects without a row; ",
            D.missing_count.to_string(),
            " approved rows without their object.",
            id="ops-orphan-summary",
        ),
        rx.foreach(D.orphan_objects, lambda key: rx.code("orphan: " + key)),
        rx.foreach(D.missing_objects, lambda key: rx.code("missing: " + key)),
        section_id="ops-storage",
    )


def _backup() -> rx.Component:
    """The newest backup and whether it verified."""
    return section(
        "Last backup",
        rx.cond(
            D.backup.present,
            rx.vstack(
                rx.text(time_ago_or(D.backup.time), " — ", D.backup.objects),
                rx.code(D.backup.manifest),
                rx.text(
                    D.backup.verified,
                    " (",
                    time_ago_or(D.backup.verified_at),
                    ")",
                    id="ops-backup-verified",
                ),
            ),
            rx.text("No backup yet.", color_scheme="gray"),
        ),
        section_id="ops-backup",
    )


def _maybe_link(text: rx.Var[str], href: rx.Var[str], class_name: str) -> rx.Component:
    return rx.cond(href != "", rx.link(text, href=href, class_name=class_name), rx.text(text))


def _audit_row(row: ObjectVar[AuditRow]) -> rx.Component:
    return rx.table.row(
        rx.table.cell(row.id),
        rx.table.cell(rx.code(row.action)),
        rx.table.cell(_maybe_link(row.actor, row.actor_href, "audit-actor")),
        rx.table.cell(_maybe_link(row.subject, row.subject_href, "audit-subject")),
        rx.table.cell(time_ago_or(row.time)),
    )


def _audit_events() -> rx.Component:
    """The newest audit events, with handles and Test titles linked."""
    return section(
        "Recent audit events",
        scroll_table(
            ["Id", "Action", "Who", "About", "Time"], D.audit_rows, _audit_row, "ops-audit-table"
        ),
        section_id="ops-audit",
    )


def _preview_failures() -> rx.Component:
    return preview_failures_section(D.preview_failures)


# The dashboard top to bottom; a new panel is one more entry here.
_PANELS: tuple[Callable[[], rx.Component], ...] = (
    _toolbar,
    _notice,
    _stats,
    _dead_jobs,
    _preview_failures,
    _jobs,
    _charts,
    _time_to_public,
    _storage,
    judge_section,
    _backup,
    _audit_events,
)


def operations_page() -> rx.Component:
    dashboard = column(*[panel() for panel in _PANELS], spacing="5", id="ops-dashboard")
    not_allowed = refusal("Not allowed: only owners can see operations.", "lock", "ops-not-allowed")
    return page_shell(
        rx.box(once_loaded(S.loaded, S.allowed, dashboard, not_allowed), width="100%")
    )
