"""``/judges/[judge_id]`` — what an AI review's judge pinned, and how it calibrated."""

from __future__ import annotations

import reflex as rx
from reflex.vars.object import ObjectVar

from benchmax.components.blocks import column
from benchmax.components.dashboard import scroll_table
from benchmax.components.layout import once_loaded, page_shell
from benchmax.components.listing import code_box, section_intro
from benchmax.components.not_found import not_found_panel
from benchmax.state.judge_card import CALIBRATION_COLUMNS
from benchmax.state.judge_card import JudgeCardState as S
from benchmax.state.views.listed import FactView


def _fact(fact: ObjectVar[FactView]) -> rx.Component:
    return rx.data_list.item(
        rx.data_list.label(fact.label),
        rx.data_list.value(rx.text(fact.value, overflow_wrap="anywhere", id="judge-" + fact.key)),
    )


def _card() -> rx.Component:
    return column(
        rx.heading("AI judge: ", S.name, size="7", id="judge-title"),
        rx.text(
            "Every AI review names the snapshot that produced it. Nothing below changes once a "
            "review has used it.",
            color_scheme="gray",
        ),
        rx.data_list.root(
            rx.foreach(S.facts, _fact),
            orientation=rx.breakpoints(initial="vertical", sm="horizontal"),
        ),
        rx.heading("Prompt template", size="4", as_="h2"),
        code_box(S.template, "judge-template"),
        *section_intro(
            "Calibration",
            "Graded against a private, human-scored set (its items are never published) with "
            "adversarial twins for injection, padding and identity labels.",
        ),
        scroll_table(
            [header for header, _ in CALIBRATION_COLUMNS],
            S.calibrations,
            lambda cells: rx.table.row(rx.foreach(cells, rx.table.cell)),
            "judge-calibrations",
        ),
        spacing="4",
        max_width="860px",
    )


def judge_card_page() -> rx.Component:
    return page_shell(once_loaded(S.loaded, S.found, _card(), not_found_panel()))
