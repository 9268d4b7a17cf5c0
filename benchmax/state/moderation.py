"""``/moderation``: the queues and the decision forms. Moderators and owners only.

The role is checked again on the server for every load and every decision (the services
refuse anyone else), so a stale page can never act with a role its viewer has lost.
What a moderator typed stays in the form when a decision is refused.
"""

from __future__ import annotations

import reflex as rx

from benchmax.context import app_context
from benchmax.models import User
from benchmax.services.dates import human_date
from benchmax.services.errors import ServiceError
from benchmax.services.moderation import actions, queues
from benchmax.services.moderation.policy import can_moderate
from benchmax.state.session import SessionState


def _report(item: queues.ReportItem) -> dict[str, str]:
    return {
        "key": f"report-{item.id}",
        "id": item.id,
        "test_id": item.test_id,
        "title": item.test_title,
        "state": item.test_state,
        "evidence_id": item.evidence_id or "",
        "evidence": item.evidence_name or "",
        "reason": item.reason_label,
        "details": item.details,
        "reporter": item.reporter_handle,
        "created": human_date(item.created_at),
    }


def _dispute(item: queues.DisputeItem) -> dict[str, str]:
    return {
        "key": f"dispute-{item.id}",
        "id": item.id,
        "test_id": item.test_id,
        "title": item.test_title,
        "contributor": item.contributor_handle,
        "reason": item.reason,
        "score": str(item.review_score),
        "reasoning": item.review_reasoning,
        "kind": item.reviewer_kind,
        "created": human_date(item.created_at),
    }


def _flag(item: queues.FlagItem) -> dict[str, str]:
    return {
        "key": f"flag-{item.test_id}",
        "test_id": item.test_id,
        "title": item.test_title,
        "state": item.test_state,
        "holds": ", ".join(item.hold_codes),
        "findings": ", ".join(item.finding_codes),
        "kept": "yes" if item.kept else "",
    }


def _label(item: queues.LabelItem) -> dict[str, str]:
    return {
        # Stable across reloads, so a reason typed for one label never moves to another.
        "key": "label-" + queues.label_target_id(item.kind, item.key).replace(":", "-")[:24],
        "kind": item.kind,
        "label": item.label,
        "count": str(item.test_count),
    }


def _removed(item: queues.RemovedItem) -> dict[str, str]:
    return {
        "key": f"removed-{item.test_id}",
        "test_id": item.test_id,
        "title": item.test_title,
        "contributor": item.contributor_handle,
        "removed": human_date(item.removed_at),
        "reason": item.reason,
        "restorable": "yes" if item.can_restore else "",
        "problem": item.restore_problem,
    }


class ModerationState(SessionState):
    loaded: rx.Field[bool] = rx.field(False)
    allowed: rx.Field[bool] = rx.field(False)
    reports: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    disputes: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    flags: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    labels: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    removed: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    reasons: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    extras: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    errors: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    notice: rx.Field[str] = rx.field("")
    account_handle: rx.Field[str] = rx.field("")

    def _refresh(self, user: User | None) -> None:
        self.allowed = can_moderate(user)
        if not self.allowed:
            self.reports, self.disputes, self.flags, self.labels = [], [], [], []
            self.removed = []
            return
        with app_context().session() as session:
            found = queues.moderation_queues(session, user)
        self.reports = [_report(item) for item in found.reports]
        self.disputes = [_dispute(item) for item in found.disputes]
        self.flags = [_flag(item) for item in found.flags]
        self.labels = [_label(item) for item in found.labels]
        self.removed = [_removed(item) for item in found.removed]

    @rx.event
    def on_load(self) -> None:
        self.notice = ""
        self._refresh(self._require_user())
        self.loaded = True

    @rx.event
    def set_reason(self, key: str, value: str) -> None:
        self.reasons = {**self.reasons, key: value[:5000]}

    @rx.event
    def set_extra(self, key: str, value: str) -> None:
        self.extras = {**self.extras, key: value[:200]}

    @rx.event
    def set_account_handle(self, value: str) -> None:
        self.account_handle = value[:64]

    @rx.event
    def decide(self, key: str, action: str, target: str, related: str) -> None:
        """Apply one decision; on refusal keep the typed reason and show why beside it.

        ``related`` is the second thing a form names: the report a removal settles, a label's
        kind, or the role to give; the extra box holds a label's catalog slug or a score.
        """
        user = self._require_user()
        extra = self.extras.get(key, "")
        request = actions.Request(
            target=self.account_handle.strip() if key == "account" else target,
            reason=self.reasons.get(key, ""),
            report_id=related or None,
            kind=related,
            role=related,
            slug=extra.strip(),
            score=extra,
        )
        try:
            with app_context().session() as session:
                actions.perform(session, user, action, request)
        except ServiceError as error:
            self.errors = {**self.errors, key: error.message}
            self.notice = ""
            return
        self.errors = {k: v for k, v in self.errors.items() if k != key}
        self.reasons = {k: v for k, v in self.reasons.items() if k != key}
        self.notice = "Decision recorded."
        self._refresh(user)
