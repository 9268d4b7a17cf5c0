"""The actions panel on ``/tests/[test_id]``: review, report, dispute.

The panel only offers what the viewer may do, but every submit goes through the services,
which check the role, suspension, ownership and limits again on the server. Typed text is
kept when a submit is refused, and cleared only once it was recorded.
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from benchmax import runtime
from benchmax.services import test_views
from benchmax.services.moderation import ModerationError, disputes, reports, reviews
from benchmax.services.moderation.reports import REASON_LABELS
from benchmax.state.session import SessionState
from benchmax.state.test_detail import TestDetailState

REPORT_REASONS = [[reason.value, label] for reason, label in REASON_LABELS.items()]
WHOLE_TEST = "test"


class TestActionsState(SessionState):
    test_id: rx.Field[str] = rx.field("")
    available: rx.Field[bool] = rx.field(False)
    can_review: rx.Field[bool] = rx.field(False)
    is_contributor: rx.Field[bool] = rx.field(False)
    files: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    reviews: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)

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

    def _load(self) -> None:
        user = self._require_user()
        self.test_id = str(self.router.url.path).rstrip("/").rsplit("/", 1)[-1]
        with runtime.db_session() as session:
            view = test_views.get_test_view(session, self.test_id, user.id if user else None)
            public = view is not None and view.state == "public"
            history = view.reviews if view is not None and public else []
            open_ids = {e.id for e in history if disputes.open_dispute_for(session, e.id)}
        self.available = public
        if view is None or not public:
            self.files, self.reviews, self.can_review, self.is_contributor = [], [], False, False
            return
        active = bool(user and user.can_write)
        self.is_contributor = view.is_owner
        self.can_review = bool(
            user and active and not view.is_owner and reviews.reviewer_kind(user) is not None
        )
        self.files = [{"id": item.id, "name": item.safe_name} for item in view.evidence]
        self.reviews = [
            {
                "id": entry.id,
                "score": str(entry.score),
                "kind": entry.reviewer_kind,
                "current": "" if entry.superseded else "yes",
                "disputed": "yes" if entry.id in open_ids else "",
                "mine": "yes" if user and entry.reviewer_handle == user.handle else "",
            }
            for entry in history
        ]

    @rx.event
    def on_load(self) -> None:
        self.review_error = self.report_error = self.dispute_error = ""
        self.review_notice = self.report_notice = self.dispute_notice = ""
        self._load()

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
            with runtime.db_session() as session:
                reviews.add_review(
                    session,
                    user,
                    self.test_id,
                    self.review_score,
                    self.review_reasoning,
                    self.corrects_id or None,
                )
        except ModerationError as error:
            self.review_error, self.review_notice = error.message, ""
            return None
        self.review_score = self.review_reasoning = self.corrects_id = self.review_error = ""
        self.review_notice = "Your review was added."
        self._load()
        return TestDetailState.on_load  # the page's own review list shows the new entry

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
            with runtime.db_session() as session:
                reports.create_report(
                    session,
                    user,
                    self.test_id,
                    self.report_reason,
                    self.report_details,
                    evidence_id,
                    per_hour=runtime.settings().report_rate_limit_per_hour,
                )
        except ModerationError as error:
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
    def submit_dispute(self) -> None:
        user = self._require_user()
        try:
            with runtime.db_session() as session:
                disputes.open_dispute(
                    session,
                    user,
                    self.dispute_review_id,
                    self.dispute_reason,
                    per_hour=runtime.settings().dispute_rate_limit_per_hour,
                )
        except ModerationError as error:
            self.dispute_error, self.dispute_notice = error.message, ""
            return
        self.dispute_reason = self.dispute_review_id = self.dispute_error = ""
        self.dispute_notice = "Your dispute was sent to the moderators."
        self._load()
