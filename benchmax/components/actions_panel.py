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

from benchmax.components.blocks import column, row
from benchmax.components.fields import field_label
from benchmax.components.text_box import labelled_text_box
from benchmax.state.actions_panel import REPORT_REASONS, WHOLE_TEST
from benchmax.state.actions_panel import TestActionsState as S
from benchmax.state.views.detail import ReviewRow


def _callout(message: Any, color: str, id_: str) -> rx.Component:
    return rx.cond(
        message != "",
        rx.callout(message, color_scheme=color, icon="info", id=id_, role="status", width="100%"),
    )


def _form_card(
    name: str,
    submit: str,
    on_submit: Any,
    error: rx.Var[str],
    *fields: rx.Component,
    notice: rx.Var[str] | None = None,
) -> rx.Component:
    """A card holding one native form: its fields, why the last try was refused, what it did
    (when the form shows that itself), then the submit button. Enter or the button calls
    ``on_submit``; ids are ``<name>-error``, ``<name>-notice`` and ``<name>-submit``."""
    said = [_callout(error, "red", name + "-error")]
    if notice is not None:
        said.append(_callout(notice, "green", name + "-notice"))
    return rx.card(
        rx.form(
            column(
                *fields, *said, rx.button(submit, type="submit", id=name + "-submit"), spacing="2"
            ),
            on_submit=lambda _form: on_submit(),
            # The server's rules decide and its refusals are shown beside the fields; the
            # browser's own checks (a number's max) would block the submit with a bubble
            # some browsers never show.
            custom_attrs={"noValidate": True},
        ),
        width="100%",
    )


def _field_error(message: rx.Var[str], id_: str) -> rx.Component:
    """Why the field above was refused, tied to it by ``aria-describedby``."""
    return rx.cond(
        message != "",
        rx.text(
            message, id=id_, size="2", color_scheme="red", role="alert", class_name="field-error"
        ),
    )


def _invalid(message: rx.Var[str], error_id: str) -> dict[str, Any]:
    """A field's attributes while ``message`` says why it was refused."""
    return {
        "aria-invalid": rx.cond(message != "", "true", "false"),
        "aria-describedby": rx.cond(message != "", error_id, ""),
    }


def _review_form() -> rx.Component:
    return _form_card(
        "review",
        "Submit review",
        S.submit_review,
        S.review_error,
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
        field_label("Score (0 to 100)", "review-score"),
        rx.input(
            id="review-score",
            type="number",
            min="0",
            max="100",
            value=S.review_score,
            on_change=S.set_review_score,
            width="10rem",
            custom_attrs=_invalid(S.review_score_error, "review-score-error"),
        ),
        _field_error(S.review_score_error, "review-score-error"),
        *labelled_text_box(
            "Reasoning (at least 20 characters)",
            "review-reasoning",
            S.review_reasoning,
            S.set_review_reasoning,
            rows=4,
            custom_attrs=_invalid(S.review_reasoning_error, "review-reasoning-error"),
        ),
        _field_error(S.review_reasoning_error, "review-reasoning-error"),
        notice=S.review_notice,
    )


def _report_form() -> rx.Component:
    return column(
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
            _form_card(
                "report",
                "Send report",
                S.submit_report,
                S.report_error,
                field_label("Reason", "report-reason"),
                rx.el.select(
                    *[rx.el.option(label, value=value) for value, label in REPORT_REASONS],
                    id="report-reason",
                    value=S.report_reason,
                    on_change=S.set_report_reason,
                ),
                field_label("What are you reporting?", "report-target"),
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
                *labelled_text_box(
                    "Details (optional; required for “Something else”)",
                    "report-details",
                    S.report_details,
                    S.set_report_details,
                ),
            ),
        ),
        _callout(S.report_notice, "green", "report-notice"),
        spacing="2",
    )


def _row_button(show: Any, label: str, id_: Any, on_click: Any) -> rx.Component:
    """A small button on a review's row, shown only to whom it applies."""
    return rx.cond(show, rx.button(label, size="1", variant="soft", id=id_, on_click=on_click))


def review_actions(review: ObjectVar[ReviewRow]) -> rx.Component:
    """What this viewer may do about one review, shown on that review's own card (the page
    lists each review once)."""
    return row(
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
    )


def _dispute_form() -> rx.Component:
    return rx.cond(
        S.dispute_review_id != "",
        _form_card(
            "dispute",
            "Send dispute",
            S.submit_dispute,
            S.dispute_error,
            *labelled_text_box(
                "Why is this review wrong? (at least 10 characters)",
                "dispute-reason",
                S.dispute_reason,
                S.set_dispute_reason,
            ),
        ),
    )


def actions_panel() -> rx.Component:
    return rx.cond(
        S.available,
        column(
            _dispute_form(),
            _callout(S.dispute_notice, "green", "dispute-notice"),
            rx.cond(S.can_review, _review_form()),
            rx.cond(S.viewer_can_write, _report_form()),
            spacing="3",
            id="test-actions",
        ),
    )
