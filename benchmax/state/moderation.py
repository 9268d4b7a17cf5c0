"""``/moderation``: the queues and the decision forms. Moderators and owners only.

The role is checked again on the server for every load and every decision (the services
refuse anyone else), so a stale page can never act with a role its viewer has lost.
What a moderator typed stays in the form when a decision is refused; a decided item leaves its
open list at once (a kept hold stays, marked kept), and the tab says above the list what the
decision did.
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.models import User
from benchmax.services.errors import ServiceError
from benchmax.services.moderation import actions, queues, roles
from benchmax.services.moderation.policy import can_moderate
from benchmax.state.nav import NavState
from benchmax.state.session import SessionState
from benchmax.state.views.moderation import (
    AccountView,
    AppealView,
    DisputeView,
    FlagView,
    LabelView,
    RemovedView,
    ReportView,
)

TABS = ("reports", "appeals", "disputes", "flags", "labels", "removed", "accounts")
# What a moderator reads beside the button once a decision is recorded.
DONE = {
    "remove": "Removed: the Test is hidden and the decision recorded.",
    "block": "File blocked and the decision recorded.",
    "restore": "Restored: the Test is public again.",
    "resolve": "Report resolved.",
    "dismiss": "Report dismissed.",
    "uphold": "Review upheld; the contributor is told.",
    "overturn": "Review overturned; the correction is published.",
    "keep": "Hold kept: the Test stays out of rankings.",
    "clear": "Cleared for rankings.",
    "map": "Label mapped to the catalog entry.",
    "leave": "Label left as declared.",
    "grant": "Appeal granted: the Test is public again.",
    "reject": "Appeal rejected: the removal stands.",
    "suspend": "Account suspended.",
    "reinstate": "Account reinstated.",
    "role": "Role changed.",
}


class ModerationState(SessionState):
    loaded: rx.Field[bool] = rx.field(False)
    allowed: rx.Field[bool] = rx.field(False)
    reports: rx.Field[list[ReportView]] = rx.field(default_factory=list)
    disputes: rx.Field[list[DisputeView]] = rx.field(default_factory=list)
    flags: rx.Field[list[FlagView]] = rx.field(default_factory=list)
    labels: rx.Field[list[LabelView]] = rx.field(default_factory=list)
    removed: rx.Field[list[RemovedView]] = rx.field(default_factory=list)
    appeals: rx.Field[list[AppealView]] = rx.field(default_factory=list)
    reasons: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    extras: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    errors: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    # The accounts tool's confirmation, in place of its buttons.
    done: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    # Each tab's last decision: what it did and to what.
    decided: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    account_handle: rx.Field[str] = rx.field("")
    accounts: rx.Field[list[AccountView]] = rx.field(default_factory=list)
    account_searched: rx.Field[bool] = rx.field(False)
    tab: rx.Field[str] = rx.field("reports")

    @rx.var
    def open_counts(self) -> dict[str, int]:
        """Each tab's open items."""
        lists: dict[str, list[ReportView] | list[DisputeView] | list[FlagView] | list[LabelView]
                    | list[RemovedView] | list[AppealView]] = {
            "reports": self.reports, "disputes": self.disputes, "flags": self.flags,
            "labels": self.labels, "removed": self.removed, "appeals": self.appeals,
        }  # fmt: skip
        return {name: len(items) for name, items in lists.items()}

    def _refresh(self, user: User | None) -> None:
        self.allowed = can_moderate(user)
        if not self.allowed:
            self.reports, self.disputes, self.flags, self.labels = [], [], [], []
            self.removed, self.appeals, self.accounts = [], [], []
            return
        with app_context().session() as session:
            found = queues.moderation_queues(session, user)
        self.reports = [ReportView.of(i) for i in found.reports]
        self.disputes = [DisputeView.of(i) for i in found.disputes]
        self.flags = [FlagView.of(i) for i in found.flags]
        self.labels = [LabelView.of(i) for i in found.labels]
        self.removed = [RemovedView.of(i) for i in found.removed]
        self.appeals = [AppealView.of(i) for i in found.appeals]

    @rx.event
    def on_load(self) -> None:
        wanted = str(self.router.url.query_parameters.get("tab", "reports"))
        self.tab = wanted if wanted in TABS else "reports"
        self.done, self.decided = {}, {}
        self.reports, self.disputes, self.flags, self.labels = [], [], [], []
        self.removed, self.appeals = [], []
        self._refresh(self._require_user())
        self.loaded = True

    @rx.event
    def set_tab(self, value: str) -> None:
        self.tab = value if value in TABS else "reports"

    @rx.event
    def set_reason(self, key: str, value: str) -> None:
        self.reasons = {**self.reasons, key: value[:5000]}

    @rx.event
    def set_extra(self, key: str, value: str) -> None:
        self.extras = {**self.extras, key: value[:200]}

    @rx.event
    def set_account_handle(self, value: str) -> None:
        self.account_handle = value[:64]
        self.done = {k: v for k, v in self.done.items() if k != "account"}

    def _search(self) -> None:
        handle = self.account_handle
        found = self._attempt(lambda session, user: roles.search_accounts(session, user, handle))
        if isinstance(found, ServiceError):
            self.errors = {**self.errors, "account": found.message}
            return
        self.accounts = [AccountView.of(match) for match in found]
        self.account_searched = bool(self.account_handle.strip())

    @rx.event
    def search_accounts(self) -> None:
        self._search()

    @rx.event
    def pick_account(self, handle: str) -> None:
        self.account_handle = handle
        self.accounts = [a for a in self.accounts if a.handle == handle]

    @rx.event
    def decide(self, key: str, action: str, target: str, related: str) -> Any:
        """Apply one decision; on refusal keep the typed reason and show why beside it.

        ``related`` is the second thing a form names: the report a removal settles, a label's
        kind, or the role to give; the extra box holds a label's catalog slug or a score.
        """
        extra = self.extras.get(key, "")
        request = actions.Request(
            target=self.account_handle.strip().lstrip("@") if key == "account" else target,
            reason=self.reasons.get(key, ""),
            report_id=related or None,
            kind=related,
            role=related,
            slug=extra.strip(),
            score=extra,
        )

        def record(session: Any, user: User | None) -> User | None:
            """The decision, by the viewer it returns for the queues' reload."""
            actions.perform(session, user, action, request)
            return user

        user = self._attempt(record)
        if isinstance(user, ServiceError):
            self.errors = {**self.errors, key: user.message}
            return
        self.errors = {k: v for k, v in self.errors.items() if k != key}
        self.reasons = {k: v for k, v in self.reasons.items() if k != key}
        said = DONE.get(action.partition(".")[2], "Decision recorded.")
        if key == "account":
            self.done = {**self.done, key: said}
            self._search()  # the row shows the account's new role or status
        else:
            title = self._title_of(key)
            self.decided = {**self.decided, self.tab: f"{said} ({title})" if title else said}
            self._refresh(user)
        return NavState.load_counts  # the header's count of what waits

    def _title_of(self, key: str) -> str:
        """The title (or label) of the item ``key`` in the open tab, before it leaves."""
        items: list[Any] = getattr(self, self.tab, [])
        return next((item.title for item in items if item.key == key), "")
