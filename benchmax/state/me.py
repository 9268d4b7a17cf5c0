"""``/me``: the contributor's own Tests (private ones included) and their API tokens."""

from __future__ import annotations

from dataclasses import dataclass

import reflex as rx

from benchmax.context import app_context
from benchmax.models import ApiToken
from benchmax.services import submissions, tokens
from benchmax.services.dates import human_date
from benchmax.services.errors import ServiceError
from benchmax.services.moderation.records import DecisionOutcome, decisions_for_tests
from benchmax.state.session import SessionState

STATUS_COLORS = {
    "Draft": "gray",
    "Processing": "blue",
    "Needs attention": "amber",
    "Processing failed": "red",
    "Awaiting review": "amber",
    "Reviewed": "green",
    "Ranked": "iris",
    "Removed": "red",
}


@dataclass(frozen=True)
class MyTestView:
    """One of the contributor's Tests as a /me row, every value ready to render."""

    id: str
    title: str
    status: str
    color: str
    reason: str
    action: str  # resume, fix, retry, view or empty
    updated: str
    expires: str  # empty unless an untouched draft
    moderation: str  # the decisions about it, "outcome — reason", joined

    @classmethod
    def of(cls, row: submissions.MyTestRow, decisions: list[DecisionOutcome]) -> MyTestView:
        return cls(
            id=row.id,
            title=row.title,
            status=row.plain_status,
            color=STATUS_COLORS.get(row.plain_status, "gray"),
            reason=row.reason,
            action=row.action,
            updated=human_date(row.updated_at),
            expires=human_date(row.expires_at),
            moderation=" · ".join(f"{d.outcome} — {d.reason}" for d in decisions),
        )


@dataclass(frozen=True)
class TokenView:
    id: str
    name: str
    last_four: str
    created: str
    last_used: str  # "never" until first used

    @classmethod
    def of(cls, token: ApiToken) -> TokenView:
        return cls(
            id=token.id,
            name=token.name,
            last_four=token.last_four,
            created=human_date(token.created_at),
            last_used=human_date(token.last_used_at) or "never",
        )


class MeState(SessionState):
    loaded: rx.Field[bool] = rx.field(False)
    tests: rx.Field[list[MyTestView]] = rx.field(default_factory=list)
    token_list: rx.Field[list[TokenView]] = rx.field(default_factory=list)
    token_name: rx.Field[str] = rx.field("")
    new_token: rx.Field[str] = rx.field("")
    token_error: rx.Field[str] = rx.field("")
    action_error: rx.Field[str] = rx.field("")

    def _reload(self) -> None:
        user = self._require_user()
        if user is None:
            self.tests, self.token_list = [], []
            return
        with app_context().session() as session:
            rows = submissions.my_tests(session, user)
            live_tokens = tokens.list_tokens(session, user)
            outcomes = decisions_for_tests(session, [row.id for row in rows])
        self.tests = [MyTestView.of(row, outcomes.get(row.id, [])) for row in rows]
        self.token_list = [TokenView.of(token) for token in live_tokens]

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        self.new_token, self.token_error, self.action_error = "", "", ""
        self._reload()
        self.loaded = True

    @rx.event
    def retry(self, test_id: str) -> None:
        user = self._require_user()
        if user is None:
            return
        try:
            with app_context().session() as session:
                submissions.retry_processing(session, user, test_id)
        except ServiceError as exc:
            self.action_error = exc.message
        self._reload()

    @rx.event
    def set_token_name(self, value: str) -> None:
        self.token_name = value

    @rx.event
    def create_token(self) -> None:
        user = self._require_user()
        if user is None:
            return
        try:
            with app_context().session() as session:
                _token, plaintext = tokens.create_token(session, user, self.token_name)
        except ServiceError as exc:
            self.token_error = exc.message
            return
        self.new_token, self.token_error, self.token_name = plaintext, "", ""
        self._reload()

    @rx.event
    def revoke_token(self, token_id: str) -> None:
        user = self._require_user()
        if user is None:
            return
        try:
            with app_context().session() as session:
                tokens.revoke_token(session, user, token_id)
        except ServiceError as exc:
            self.token_error = exc.message
        self._reload()

    @rx.event
    def dismiss_token(self) -> None:
        self.new_token = ""
