"""The AI judge section of ``/operations``: state, budget, tokens per sample, snapshots (each
with its last calibration and its agreement with people under it, so the row keeps its actions
in view)."""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.dashboard import notice_callout, stat_card
from benchmax.components.panels import action_section, stat_row, table_or_empty
from benchmax.components.text_box import labelled_text_box
from benchmax.state.judge_operations import JudgeOperationsState as S
from benchmax.state.views.judge import JudgeView, SnapshotView

# Reflex's stubs type a dataclass-valued state var as an array; this is the var as it is.
J = cast("ObjectVar[JudgeView]", S.judge)


def _snapshot_row(row: ObjectVar[SnapshotView]) -> rx.Component:
    snapshot_id = row.id
    return rx.table.row(
        rx.table.cell(rx.link(rx.code(snapshot_id), href="/judges/" + snapshot_id)),
        rx.table.cell(row.name),
        rx.table.cell(row.state, class_name="judge-row-state"),
        rx.table.cell(row.models),
        rx.table.cell(
            rx.text(row.calibration, class_name="judge-row-calibration"),
            rx.text(row.agreement, size="1", color_scheme="gray", class_name="judge-row-agreement"),
        ),
        rx.table.cell(
            rx.hstack(
                rx.button("Calibrate", size="1", variant="soft", loading=S.calibrating,
                          on_click=S.calibrate(snapshot_id), class_name="judge-calibrate"),
                rx.cond(row.can_activate,
                        rx.button("Activate", size="1", on_click=S.activate(snapshot_id),
                                  class_name="judge-activate")),
                rx.cond(row.active,
                        rx.button("Deactivate", size="1", color_scheme="red", variant="soft",
                                  on_click=S.deactivate(snapshot_id),
                                  class_name="judge-deactivate")),
                spacing="2",
            )
        ),
    )  # fmt: skip


def judge_section() -> rx.Component:
    refresh = rx.button(
        "Refresh judge", size="1", variant="ghost", on_click=S.refresh_judge, id="judge-refresh"
    )
    return rx.cond(
        S.judge_allowed,
        action_section(
            "AI judge",
            refresh,
            stat_row(
                stat_card("Judge", J.state, "judge-state"),
                stat_card("Samples used today (UTC)", J.budget, "judge-budget"),
                stat_card("Samples reserved now", J.reserved, "judge-reserved"),
                stat_card("Mean tokens per sample", J.tokens, "judge-tokens"),
                stat_card("Waiting for budget", J.waiting, "judge-waiting"),
                stat_card("Review jobs", J.jobs, "judge-jobs"),
            ),
            table_or_empty(
                ["Snapshot", "Name", "State", "Models", "Calibration · agreement", ""],
                J.snapshots,
                _snapshot_row,
                "judge-snapshots",
                "No judge snapshot yet: paste a snapshot file below to create a draft, then "
                "calibrate it before it can review.",
            ),
            *labelled_text_box(
                "New snapshot file (JSON)",
                "judge-snapshot-source",
                S.snapshot_source,
                S.set_snapshot_source,
                rows=5,
                placeholder="Paste a snapshot file (JSON) to create a draft snapshot",
            ),
            rx.button("Create snapshot", on_click=S.create_snapshot, id="judge-create"),
            notice_callout(S.judge_notice, S.judge_notice_ok, "judge-notice"),
            section_id="ops-judge",
        ),
    )
