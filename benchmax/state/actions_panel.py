"""The actions panel on ``/tests/[test_id]``: review, report, dispute.

A substate of the Test page's state: what the panel offers (``available``, ``can_review``,
``is_contributor``, the review list) is loaded with the page, and this state holds only the
forms. Every submit goes through the services, which check the role, suspension, ownership
and limits again on the server. Typed text is kept when a submit is refused, and cleared only
once it was recorded; a recorded action reloads the page's state.
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.services.errors import ServiceError
from benchmax.services.moderation import disputes, reports, reviews
from benchmax.services.moderation.reports import REASON_LABELS
from benchmax.state.detail import TestDetailState

REPORT_REASONS = [[reason.value, label] for reason, label in REASON_LABELS.items()]
WHOLE_TEST = "test"


class TestActionsState(TestDetailState):
    review_score: rx.Field[str] = rx.field("")
    review_reasoning: rx.Field[str] = rx.field("")
    corrects_id: rx.Field[str] = rx.field("")
    review_error: rx.Field[str] = rx.field("")
    review_notice: rx.Field[str] = rx.field("")

    report_open: rx.Field[bool] = rx.field(False)
    report_reason: rx.Field[str] = rx.field("spam")
    report_target: rx.Field[str] = rx.field(WHOLE_TEST)
    report_details: rx.Field[str] = rx.field("")
    report_error: rx.Field[str] = rx.field("")
    report_notice: rx.Field[str] = rx.field("")

    dispute_review_id: rx.Field[str] = rx.field("")
    dispute_reason: rx.Field[str] = rx.field("")
    dispute_error: rx.Field[str] = rx.field("")
    dispute_notice: rx.Field[str] = rx.field("")

    @rx.event
    def reset_messages(self) -> None:
        self.review_error = self.report_error = self.dispute_error = ""
        self.review_notice = self.report_notice = self.dispute_notice = ""

    @rx.event
    def set_review_score(self, value: str) -> None:
        self.review_score = value[:3]

    @rx.event
    def set_review_reasoning(self, value: str) -> None:
        self.review_reasoning = value[:6000]

    @rx.event
    def start_correction(self, review_id: str) -> None:
        self.corrects_id = review_id

    @rx.event
    def cancel_correction(self) -> None:
        self.corrects_id = ""

    @rx.event
    def submit_review(self) -> Any:
        user = self._require_user()
        try:
            with app_context().session() as session:
                reviews.add_review(
                    session,
                    user,
                    self.test.id,
                    self.review_score,
                    self.review_reasoning,
                    self.corrects_id or None,
                )
        except ServiceError as error:
            self.review_error, self.review_notice = error.message, ""
            return None
        self.review_score = self.review_reasoning = self.corrects_id = self.review_error = ""
        self.review_notice = "Your review was added."
        return TestDetailState.on_load

    @rx.event
    def toggle_report(self) -> None:
        self.report_open = not self.report_open

    @rx.event
    def set_report_reason(self, value: str) -> None:
        self.report_reason = value

    @rx.event
    def set_report_target(self, value: str) -> None:
        self.report_target = value

    @rx.event
    def set_report_details(self, value: str) -> None:
        self.report_details = value[:3000]

    @rx.event
    def submit_report(self) -> None:
        user = self._require_user()
        evidence_id = None if self.report_target == WHOLE_TEST else self.report_target
        try:
            with app_context().session() as session:
                reports.create_report(
                    session,
                    user,
                    self.test.id,
                    self.report_reason,
                    self.report_details,
                    evidence_id,
                    per_hour=app_context().settings.report_rate_limit_per_hour,
                )
        except ServiceError as error:
            self.report_error, self.report_notice = error.message, ""
            return
        self.report_details = self.report_error = ""
        self.report_open = False
        self.report_notice = "Thank you. Moderators will look at your report."

    @rx.event
    def open_dispute(self, review_id: str) -> None:
        self.dispute_review_id = review_id
        self.dispute_error = self.dispute_notice = ""

    @rx.event
    def set_dispute_reason(self, value: str) -> None:
        self.dispute_reason = value[:3000]

    @rx.event
    def submit_dispute(self) -> Any:
        user = self._require_user()
        try:
            with app_context().session() as session:
                disputes.open_dispute(
                    session,
                    user,
                    self.dispute_review_id,
                    self.dispute_reason,
                    per_hour=app_context().settings.dispute_rate_limit_per_hour,
                )
        except ServiceError as error:
            self.dispute_error, self.dispute_notice = error.message, ""
            return None
        self.dispute_reason = self.dispute_review_id = self.dispute_error = ""
        self.dispute_notice = "Your dispute was sent to the moderators."
        return TestDetailState.on_load
