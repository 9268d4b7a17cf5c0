"""``/moderation``: the queues and the decision forms. Moderators and owners only.

The role is checked again on the server for every load and every decision (the services
refuse anyone else), so a stale page can never act with a role its viewer has lost.
What a moderator typed stays in the form when a decision is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx
from sqlmodel import Session

from benchmax import runtime
from benchmax.models import User
from benchmax.services.moderation import (
    ModerationError,
    disputes,
    holds,
    label_decisions,
    queues,
    reports,
    roles,
    takedowns,
)
from benchmax.services.moderation.policy import is_admin
from benchmax.state.session import SessionState
from benchmax.state.views import human_date

# action -> call(session, user, target, related, reason, extra)
_ACTIONS: dict[str, Callable[[Session, User | None, str, str, str, str], Any]] = {
    "remove": lambda s, u, t, r, why, x: takedowns.remove_test(s, u, t, why, r or None),
    "restore": lambda s, u, t, r, why, x: takedowns.restore_test(s, u, t, why),
    "block": lambda s, u, t, r, why, x: takedowns.block_evidence(s, u, t, why, r or None),
    "resolve": lambda s, u, t, r, why, x: reports.decide_report(s, u, t, "resolve", why),
    "dismiss": lambda s, u, t, r, why, x: reports.decide_report(s, u, t, "dismiss", why),
    "uphold": lambda s, u, t, r, why, x: disputes.decide_dispute(s, u, t, "uphold", why),
    "overturn": lambda s, u, t, r, why, x: disputes.decide_dispute(s, u, t, "overturn", why, x),
    "keep": lambda s, u, t, r, why, x: holds.decide_hold(s, u, t, "keep", why),
    "clear": lambda s, u, t, r, why, x: holds.decide_hold(s, u, t, "clear", why),
    "map": lambda s, u, t, r, why, x: label_decisions.map_label(s, u, r, t, x.strip(), why),
    "leave": lambda s, u, t, r, why, x: label_decisions.leave_label_declared(s, u, r, t, why),
    "suspend": lambda s, u, t, r, why, x: roles.suspend(s, u, t, why),
    "reinstate": lambda s, u, t, r, why, x: roles.reinstate(s, u, t, why),
    "role": lambda s, u, t, r, why, x: roles.change_role(s, u, t, r, why),
}


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
        self.allowed = bool(user and is_admin(user) and user.can_write)
        if not self.allowed:
            self.reports, self.disputes, self.flags, self.labels = [], [], [], []
            self.removed = []
            return
        with runtime.db_session() as session:
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
        """Apply one decision; on refusal keep the typed reason and show why beside it."""
        user = self._require_user()
        call = _ACTIONS.get(action)
        if call is None:
            return
        target = self.account_handle.strip() if key == "account" else target
        try:
            with runtime.db_session() as session:
                call(
                    session,
                    user,
                    target,
                    related,
                    self.reasons.get(key, ""),
                    self.extras.get(key, ""),
                )
        except ModerationError as error:
            self.errors = {**self.errors, key: error.message}
            self.notice = ""
            return
        self.errors = {k: v for k, v in self.errors.items() if k != key}
        self.reasons = {k: v for k, v in self.reasons.items() if k != key}
        self.notice = "Decision recorded."
        self._refresh(user)
