"""``/judges/[judge_id]`` — what an AI review's judge pinned, how it calibrated (its probes
as results), and how far its scores agree with human reviewers'."""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex.vars.object import ObjectVar

from benchmax.components.badges import status_badge
from benchmax.components.blocks import column, message_callout
from benchmax.components.dashboard import scroll_table
from benchmax.components.dates import time_ago
from benchmax.components.layout import once_loaded, page_shell
from benchmax.components.listing import code_box, section_intro
from benchmax.components.not_found import not_found_panel
from benchmax.services.dates import Stamp
from benchmax.state.judge_card import CALIBRATION_COLUMNS, CalibrationRow
from benchmax.state.judge_card import JudgeCardState as S
from benchmax.state.views.judge_agreement import AgreementView, FigureView, SeatView
from benchmax.state.views.judge_probes import ProbeView
from benchmax.state.views.listed import FactView

# Reflex's stubs type a dataclass-valued state var as an array; this is the var as it is.
A = cast("ObjectVar[AgreementView]", S.agreement)
CREATED = cast("ObjectVar[Stamp]", S.created)

SEAT_HEADERS = [
    "Seat",
    "Shared Tests",
    "Mean abs. difference",
    "Within 10",
    "Spearman's \N{GREEK SMALL LETTER RHO}",
    "κ",
]


def _fact(fact: ObjectVar[FactView]) -> rx.Component:
    return rx.data_list.item(
        rx.data_list.label(fact.label),
        rx.data_list.value(rx.text(fact.value, overflow_wrap="anywhere", id="judge-" + fact.key)),
    )


def _calibration_row(run: ObjectVar[CalibrationRow]) -> rx.Component:
    return rx.table.row(rx.table.cell(time_ago(run.when)), rx.foreach(run.cells, rx.table.cell))


def _figure(figure: ObjectVar[FigureView]) -> rx.Component:
    return rx.card(
        rx.text(figure.label, size="2", color_scheme="gray"),
        rx.text(figure.value, size="6", weight="bold", id="judge-agreement-" + figure.key),
        rx.text(figure.explanation, size="2", color_scheme="gray"),
        class_name="judge-agreement-figure",
    )


def _seat(seat: ObjectVar[SeatView]) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(rx.code(seat.seat)),
        rx.table.cell(seat.shared),
        rx.table.cell(seat.mad),
        rx.table.cell(seat.within),
        rx.table.cell(seat.spearman),
        rx.table.cell(seat.kappa),
    )


def _agreement() -> rx.Component:
    return column(
        *section_intro(
            "Agreement with human reviewers",
            "This judge's score against the mean score of approved human and admin reviewers "
            "on the same public Tests, as of now: the figures change as reviews accumulate.",
        ),
        rx.cond(
            A.enough,
            rx.grid(
                rx.foreach(A.figures, _figure),
                columns=rx.breakpoints(initial="1", sm="2"),
                spacing="3",
                width="100%",
                id="judge-agreement",
            ),
            message_callout(
                A.overlap,
                " The figures appear once people have reviewed enough of the Tests this judge "
                "reviewed: a handful of pairs says little.",
                icon="hourglass",
                id="judge-agreement-overlap",
            ),
        ),
        rx.cond(
            A.seats.length() > 0,
            column(
                rx.heading("Each panel seat", size="3", as_="h3"),
                rx.text(
                    "Each seat's own score (the median of its samples) against the same reviewers.",
                    size="2",
                    color_scheme="gray",
                ),
                scroll_table(SEAT_HEADERS, A.seats, _seat, "judge-seats"),
                spacing="2",
            ),
        ),
        message_callout(
            "For context, published figures about other judges, not measurements of this one: "
            "on MT-Bench, GPT-4 as a judge agreed with human experts on 85% of pairwise "
            "comparisons, and the experts agreed with each other on 81% (Zheng et al., 2023). "
            "A panel of three smaller judges reached a Cohen's κ of 0.76\N{EN DASH}0.91 "
            "against human judgments where a single GPT-4 judge reached "
            "0.63\N{EN DASH}0.84 (Verga et al., 2024).",
            icon="book-open",
            color_scheme="gray",
            id="judge-agreement-reference",
        ),
        spacing="3",
    )


def _probe(probe: ObjectVar[ProbeView]) -> rx.Component:
    return rx.card(
        rx.hstack(
            rx.text(probe.name, weight="bold"),
            status_badge(probe.result, probe.color),
            justify="between",
            align="center",
            wrap="wrap",
        ),
        rx.text(probe.check, size="2", color_scheme="gray"),
        rx.cond(
            probe.measured != "",
            rx.text(probe.measured, size="2", class_name="judge-probe-measured"),
        ),
        id="judge-probe-" + probe.key,
        class_name="judge-probe",
    )


def _probes() -> rx.Component:
    return column(
        *section_intro(
            "Calibration probes",
            "From the latest calibration: each probe grades a twin of a calibration item that "
            "differs in one way that must not change its score.",
        ),
        rx.grid(
            rx.foreach(S.probes, _probe),
            columns=rx.breakpoints(initial="1", sm="2"),
            spacing="3",
            width="100%",
            id="judge-probes",
        ),
        spacing="3",
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
            rx.data_list.item(
                rx.data_list.label("Created"),
                rx.data_list.value(time_ago(CREATED, id="judge-created")),
            ),
            orientation=rx.breakpoints(initial="vertical", sm="horizontal"),
        ),
        rx.heading("Prompt template", size="4", as_="h2"),
        code_box(S.template, "judge-template"),
        *section_intro(
            "Calibration",
            "Graded against a private, human-scored set (its items are never published) with "
            "adversarial twins for injection, padding and identity labels.",
        ),
        rx.cond(
            S.calibrations.length() > 0,
            rx.fragment(
                scroll_table(
                    ["Date", *[header for header, _ in CALIBRATION_COLUMNS]],
                    S.calibrations,
                    _calibration_row,
                    "judge-calibrations",
                ),
                _probes(),
            ),
            rx.text("Not calibrated yet.", size="2", id="judge-calibrations-empty"),
        ),
        _agreement(),
        spacing="4",
        max_width="860px",
    )


def judge_card_page() -> rx.Component:
    return page_shell(once_loaded(S.loaded, S.found, _card(), not_found_panel()))
