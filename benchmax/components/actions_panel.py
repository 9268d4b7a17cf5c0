"""``actions_panel()``: review, report and dispute forms for a Test page.

The page's ``on_load`` list runs ``TestDetailState.on_load`` (which loads what the panel
offers) and ``TestActionsState.reset_messages``. Element ids are stable so
browser tests can drive each form; every control is a native form element, so the panel
works from the keyboard.
"""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.vars import ObjectVar

from benchmax.components.fields import field_label
from benchmax.state.actions_panel import REPORT_REASONS, WHOLE_TEST
from benchmax.state.actions_panel import TestActionsState as S
from benchmax.state.detail import ReviewRow


def _label(text: str, field_id: str) -> rx.Component:
    return field_label(text, field_id)


def _area(field_id: str, value: rx.Var, on_change: Any, rows: int) -> rx.Component:
    return rx.text_area(id=field_id, value=value, on_change=on_change, rows=str(rows), width="100%")


def _callout(message: Any, color: str, id_: str) -> rx.Component:
    return rx.cond(
        message != "",
        rx.callout(message, color_scheme=color, icon="info", id=id_, role="status", width="100%"),
    )


def _form(on_submit: Any, *fields: rx.Component) -> rx.Component:
    """A native form whose fields stack; submitting it (Enter or its button) calls ``on_submit``."""
    return rx.form(
        rx.vstack(*fields, spacing="2", width="100%"),
        on_submit=lambda _form: on_submit(),
    )


def _review_form() -> rx.Component:
    return rx.card(
        _form(
            S.submit_review,
            rx.heading(
                rx.cond(S.corrects_id != "", "Correct a review", "Add a review"),
                size="4",
                as_="h3",
            ),
            rx.cond(
                S.corrects_id != "",
                rx.hstack(
                    rx.text("This review will supersede the earlier one.", size="2"),
                    rx.button(
                        "Cancel correction",
                        type="button",
                        variant="ghost",
                        size="1",
                        on_click=S.cancel_correction,
                        id="review-cancel-correction",
                    ),
                    align="center",
                ),
            ),
            _label("Score (0 to 100)", "review-score"),
            rx.input(
                id="review-score",
                type="number",
                min="0",
                max="100",
                value=S.review_score,
                on_change=S.set_review_score,
                width="10rem",
            ),
            _label("Reasoning (at least 20 characters)", "review-reasoning"),
            _area("review-reasoning", S.review_reasoning, S.set_review_reasoning, 4),
            _callout(S.review_error, "red", "review-error"),
            _callout(S.review_notice, "green", "review-notice"),
            rx.button("Submit review", type="submit", id="review-submit"),
        ),
        width="100%",
    )


def _report_form() -> rx.Component:
    return rx.vstack(
        rx.button(
            rx.icon("flag", size=14),
            "Report",
            on_click=S.toggle_report,
            variant="soft",
            color_scheme="gray",
            id="report-open",
            aria_expanded=S.report_open,
        ),
        rx.cond(
            S.report_open,
            rx.card(
                _form(
                    S.submit_report,
                    _label("Reason", "report-reason"),
                    rx.el.select(
                        *[rx.el.option(label, value=value) for value, label in REPORT_REASONS],
                        id="report-reason",
                        value=S.report_reason,
                        on_change=S.set_report_reason,
                    ),
                    _label("What are you reporting?", "report-target"),
                    rx.el.select(
                        rx.el.option("The whole Test", value=WHOLE_TEST),
                        rx.foreach(
                            S.evidence,
                            lambda f: rx.el.option("File: " + f.name, value=f.id),
                        ),
                        id="report-target",
                        value=S.report_target,
                        on_change=S.set_report_target,
                    ),
                    _label("Details (optional; required for “Something else”)", "report-details"),
                    _area("report-details", S.report_details, S.set_report_details, 3),
                    _callout(S.report_error, "red", "report-error"),
                    rx.button("Send report", type="submit", id="report-submit"),
                ),
                width="100%",
            ),
        ),
        _callout(S.report_notice, "green", "report-notice"),
        width="100%",
        spacing="2",
    )


def _row_button(show: Any, label: str, id_: Any, on_click: Any) -> rx.Component:
    """A small button on a review's row, shown only to whom it applies."""
    return rx.cond(show, rx.button(label, size="1", variant="soft", id=id_, on_click=on_click))


def review_actions(review: ObjectVar[ReviewRow]) -> rx.Component:
    """What this viewer may do about one review, shown on that review's own card (the page
    lists each review once)."""
    return rx.hstack(
        rx.cond(review.disputed, rx.badge("Dispute open", color_scheme="amber")),
        _row_button(
            S.is_contributor & ~review.superseded & ~review.disputed,
            "Dispute",
            "dispute-open-" + review.id,
            S.open_dispute(review.id),
        ),
        _row_button(
            S.can_review & ~review.superseded & review.mine,
            "Correct",
            "review-correct-" + review.id,
            S.start_correction(review.id),
        ),
        spacing="2",
        align="center",
        wrap="wrap",
    )


def _dispute_form() -> rx.Component:
    return rx.cond(
        S.dispute_review_id != "",
        rx.card(
            _form(
                S.submit_dispute,
                _label("Why is this review wrong? (at least 10 characters)", "dispute-reason"),
                _area("dispute-reason", S.dispute_reason, S.set_dispute_reason, 3),
                _callout(S.dispute_error, "red", "dispute-error"),
                rx.button("Send dispute", type="submit", id="dispute-submit"),
            ),
            width="100%",
        ),
    )


def actions_panel() -> rx.Component:
    return rx.cond(
        S.available,
        rx.vstack(
            _dispute_form(),
            _callout(S.dispute_notice, "green", "dispute-notice"),
            rx.cond(S.can_review, _review_form()),
            rx.cond(S.viewer_can_write, _report_form()),
            spacing="3",
            width="100%",
            id="test-actions",
        ),
    )
