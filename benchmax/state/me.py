"""``/me``: the contributor's own Tests (private ones included) and their API tokens."""

from __future__ import annotations

import reflex as rx

from benchmax import runtime
from benchmax.services import submissions, tokens
from benchmax.services.dates import human_date
from benchmax.services.errors import ServiceError
from benchmax.services.moderation.records import decisions_for_tests
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


class MeState(SessionState):
    loaded: rx.Field[bool] = rx.field(False)
    tests: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    token_list: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    token_name: rx.Field[str] = rx.field("")
    new_token: rx.Field[str] = rx.field("")
    token_error: rx.Field[str] = rx.field("")
    action_error: rx.Field[str] = rx.field("")

    def _reload(self) -> None:
        user = self._require_user()
        if user is None:
            self.tests, self.token_list = [], []
            return
        with runtime.db_session() as session:
            rows = submissions.my_tests(session, user)
            live_tokens = tokens.list_tokens(session, user)
            outcomes = decisions_for_tests(session, [row.id for row in rows])
        self.tests = [
            {
                "id": row.id,
                "title": row.title,
                "status": row.plain_status,
                "color": STATUS_COLORS.get(row.plain_status, "gray"),
                "reason": row.reason,
                "action": row.action,
                "updated": human_date(row.updated_at),
                "expires": human_date(row.expires_at),
                "moderation": " · ".join(
                    f"{d.outcome} — {d.reason}" for d in outcomes.get(row.id, [])
                ),
            }
            for row in rows
        ]
        self.token_list = [
            {
                "id": t.id,
                "name": t.name,
                "last_four": t.last_four,
                "created": human_date(t.created_at),
                "last_used": human_date(t.last_used_at) or "never",
            }
            for t in live_tokens
        ]

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
            with runtime.db_session() as session:
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
            with runtime.db_session() as session:
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
            with runtime.db_session() as session:
                tokens.revoke_token(session, user, token_id)
        except ServiceError as exc:
            self.token_error = exc.message
        self._reload()

    @rx.event
    def dismiss_token(self) -> None:
        self.new_token = ""
