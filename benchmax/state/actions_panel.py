"""The actions panel on ``/tests/[test_id]``: review, report, dispute.

A substate of the Test page's state: what the panel offers (``available``, ``can_review``,
``is_contributor``, the review list) is loaded with the page, and this state holds only the
forms. Every submit goes through the services, which check the role, suspension, ownership
and limits again on the server. Typed text is kept when a submit is refused, and cleared only
once it was recorded; a recorded action reloads the page's state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.models import User
from benchmax.services.errors import ServiceError
from benchmax.services.moderation import disputes, reports, reviews
from benchmax.services.moderation.reports import REASON_LABELS
from benchmax.state.detail import TestDetailState
from benchmax.state.nav import NavState

REPORT_REASONS = [[reason.value, label] for reason, label in REASON_LABELS.items()]
WHOLE_TEST = "test"
NOTICES = {
    "review": "Your review was added.",
    "report": "Thank you. Moderators will look at your report.",
    "dispute": "Your dispute was sent to the moderators.",
}


def _refusal(check: Callable[[str], object], value: str) -> str:
    """Why ``check`` refuses ``value``, or "" when it accepts it."""
    try:
        check(value)
    except ServiceError as error:
        return error.message
    return ""


class TestActionsState(TestDetailState):
    review_score: rx.Field[str] = rx.field("")
    review_reasoning: rx.Field[str] = rx.field("")
    corrects_id: rx.Field[str] = rx.field("")
    review_error: rx.Field[str] = rx.field("")
    # Why the score or the reasoning was refused, shown beside that field.
    review_score_error: rx.Field[str] = rx.field("")
    review_reasoning_error: rx.Field[str] = rx.field("")
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
        self.review_score_error = self.review_reasoning_error = ""
        self.review_notice = self.report_notice = self.dispute_notice = ""

    @rx.event
    def set_review_score(self, value: str) -> None:
        self.review_score, self.review_score_error = value[:3], ""

    @rx.event
    def set_review_reasoning(self, value: str) -> None:
        self.review_reasoning, self.review_reasoning_error = value[:6000], ""

    @rx.event
    def start_correction(self, review_id: str) -> None:
        self.corrects_id = review_id

    @rx.event
    def cancel_correction(self) -> None:
        self.corrects_id = ""

    def _record(self, form: str, work: Callable[[Any, User | None], object]) -> bool:
        """Submit one form for the re-verified viewer; its refusal or its notice goes under it."""
        outcome = self._attempt(work)
        refusal = outcome if isinstance(outcome, ServiceError) else None
        setattr(self, f"{form}_error", refusal.message if refusal else "")
        setattr(self, f"{form}_notice", "" if refusal else NOTICES[form])
        return refusal is None

    @rx.event
    def submit_review(self) -> Any:
        """Both fields are checked by the service's own rules first, so a refused score and
        a refused reasoning are each said beside their field at once; anything else the
        service refuses (role, suspension, own Test) goes under the form."""
        self.review_score_error = _refusal(reviews.parse_score, self.review_score)
        self.review_reasoning_error = _refusal(reviews.clean_reasoning, self.review_reasoning)
        if self.review_score_error or self.review_reasoning_error:
            self.review_error = self.review_notice = ""
            return None
        review = (self.test.id, self.review_score, self.review_reasoning, self.corrects_id or None)
        if not self._record("review", lambda s, u: reviews.add_review(s, u, *review)):
            return None
        self.review_score = self.review_reasoning = self.corrects_id = ""
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
    def submit_report(self) -> Any:
        evidence_id = None if self.report_target == WHOLE_TEST else self.report_target
        report = (self.test.id, self.report_reason, self.report_details, evidence_id)
        limit = app_context().settings.report_rate_limit_per_hour
        if not self._record(
            "report", lambda s, u: reports.create_report(s, u, *report, per_hour=limit)
        ):
            return None
        self.report_details = ""
        self.report_open = False
        # A moderator's own report waits in their queue: the header's count says so at once
        # (for anyone else the header shows no count and none is made).
        return NavState.load_counts

    @rx.event
    def open_dispute(self, review_id: str) -> None:
        self.dispute_review_id = review_id
        self.dispute_error = self.dispute_notice = ""

    @rx.event
    def set_dispute_reason(self, value: str) -> None:
        self.dispute_reason = value[:3000]

    @rx.event
    def submit_dispute(self) -> Any:
        dispute = (self.dispute_review_id, self.dispute_reason)
        limit = app_context().settings.dispute_rate_limit_per_hour
        if not self._record(
            "dispute", lambda s, u: disputes.open_dispute(s, u, *dispute, per_hour=limit)
        ):
            return None
        self.dispute_reason = self.dispute_review_id = ""
        return TestDetailState.on_load
