"""``/judges/[judge_id]`` — what an AI review's judge pinned, and how it calibrated."""

from __future__ import annotations

import reflex as rx

from benchmax.components.dashboard import scroll_table
from benchmax.components.layout import page_shell
from benchmax.components.not_found import not_found_panel
from benchmax.state.judge_card import JudgeCardState as S


def _row(label: str, key: str) -> rx.Component:
    return rx.data_list.item(
        rx.data_list.label(label),
        rx.data_list.value(rx.text(S.card[key], overflow_wrap="anywhere", id=f"judge-{key}")),
    )


def _calibration(run: rx.Var) -> rx.Component:
    return rx.table.row(
        *[rx.table.cell(run[key]) for key in
          ("date", "verdict", "items", "mae", "spearman", "spread", "failures")]
    )  # fmt: skip


def _card() -> rx.Component:
    return rx.vstack(
        rx.heading("AI judge: ", S.card["name"], size="7", id="judge-title"),
        rx.text(
            "Every AI review names the snapshot that produced it. Nothing below changes once a "
            "review has used it.",
            color_scheme="gray",
        ),
        rx.data_list.root(
            _row("Snapshot", "id"),
            _row("State", "state"),
            _row("Provider", "provider"),
            _row("Model ids", "models"),
            _row("Rubric", "rubric"),
            _row("Sampling", "sampling"),
            _row("Template SHA-256", "template_sha256"),
            _row("Output schema SHA-256", "schema_sha256"),
            _row("Blinding rules", "blinding"),
            _row("Evidence bounds", "bounds"),
            _row("Calibration set SHA-256", "calibration_sha256"),
            _row("Created", "created"),
            orientation=rx.breakpoints(initial="vertical", sm="horizontal"),
        ),
        rx.heading("Prompt template", size="4", as_="h2"),
        rx.box(
            rx.text(
                S.card["template"],
                white_space="pre-wrap",
                size="2",
                font_family="var(--code-font-family)",
                id="judge-template",
            ),
            padding="0.75rem",
            background="var(--gray-a3)",
            border_radius="var(--radius-3)",
            width="100%",
        ),
        rx.heading("Calibration", size="4", as_="h2"),
        rx.text(
            "Graded against a private, human-scored set (its items are never published) with "
            "adversarial twins for injection, padding and identity labels.",
            size="2",
            color_scheme="gray",
        ),
        scroll_table(
            ["Date", "Result", "Items", "MAE", "Spearman", "Spread", "Failures"],
            S.calibrations,
            _calibration,
            "judge-calibrations",
        ),
        spacing="4",
        width="100%",
        max_width="860px",
    )


def judge_card_page() -> rx.Component:
    return page_shell(
        rx.cond(
            S.loaded,
            rx.cond(S.found, _card(), not_found_panel()),
            rx.center(rx.spinner(size="3"), padding="4rem"),
        )
    )
