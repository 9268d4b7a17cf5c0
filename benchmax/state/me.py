"""``/me``: the contributor's own Tests (private ones included), appeals against removals, and
their API tokens.

A new token's plaintext lives only in ``new_token`` for the one response that shows it; the
copy button and the ``curl`` example are built from that var in the browser, so no other
state, log or store ever holds it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import reflex as rx

from benchmax.context import app_context
from benchmax.models import User
from benchmax.services import submissions, tokens
from benchmax.services.errors import ServiceError, Unauthenticated
from benchmax.services.moderation.appeals import appeal_states, open_appeal
from benchmax.services.moderation.records import decisions_for_tests
from benchmax.state.session import SessionState
from benchmax.state.views.me import MyTestView, TokenView

T = TypeVar("T")


class MeState(SessionState):
    loaded: rx.Field[bool] = rx.field(False)
    tests: rx.Field[list[MyTestView]] = rx.field(default_factory=list)
    token_list: rx.Field[list[TokenView]] = rx.field(default_factory=list)
    token_name: rx.Field[str] = rx.field("")
    new_token: rx.Field[str] = rx.field("")
    token_error: rx.Field[str] = rx.field("")
    action_error: rx.Field[str] = rx.field("")
    api_origin: rx.Field[str] = rx.field("")
    copied: rx.Field[str] = rx.field("")  # which copy button was last pressed
    appeal_test: rx.Field[str] = rx.field("")  # the Test whose appeal form is open
    appeal_text: rx.Field[str] = rx.field("")
    appeal_error: rx.Field[str] = rx.field("")
    appeal_notice: rx.Field[str] = rx.field("")

    def _reload(self) -> None:
        user = self._require_user()
        if user is None:
            self.tests, self.token_list = [], []
            return
        with app_context().session() as session:
            rows = submissions.my_tests(session, user, app_context().settings)
            live_tokens = tokens.list_tokens(session, user)
            ids = [row.id for row in rows]
            outcomes = decisions_for_tests(session, ids)
            appeals = appeal_states(session, [r.id for r in rows if r.plain_status == "Removed"])
        self.tests = [
            MyTestView.of(row, outcomes.get(row.id, []), appeals.get(row.id, "")) for row in rows
        ]
        self.token_list = [TokenView.of(token) for token in live_tokens]

    @rx.event
    def on_load(self) -> None:
        self.load_viewer()
        self.new_token, self.token_error, self.action_error = "", "", ""
        self.copied, self.appeal_test, self.appeal_error, self.appeal_notice = "", "", "", ""
        self.api_origin = app_context().settings.app_origin.rstrip("/")
        self._reload()
        self.loaded = True

    def _as_viewer(self, work: Callable[[Any, User], T]) -> T | str:
        """Run ``work`` for the re-verified viewer in one transaction: its result, or the
        refusal's message (also when no one is signed in)."""

        def signed_in(session: Any, user: User | None) -> T:
            if user is None:
                raise Unauthenticated("sign_in_required", "Sign in first.")
            return work(session, user)

        outcome = self._attempt(signed_in)
        return outcome.message if isinstance(outcome, ServiceError) else outcome

    def _refusal(self, work: Callable[[Any, User], object]) -> str:
        """Do one action on a listed row and reload the lists: the refusal's message, or ""."""
        done = self._as_viewer(work)
        self._reload()
        return done if isinstance(done, str) else ""

    @rx.event
    def retry(self, test_id: str) -> None:
        self.action_error = self._refusal(lambda s, u: submissions.retry_processing(s, u, test_id))

    @rx.event
    def set_token_name(self, value: str) -> None:
        self.token_name = value

    @rx.event
    def create_token(self) -> None:
        made = self._as_viewer(lambda s, u: tokens.create_token(s, u, self.token_name)[1])
        if made.startswith("bmx_"):
            self.new_token, self.token_error, self.token_name = made, "", ""
        else:
            self.token_error = made
        self._reload()

    @rx.event
    def revoke_token(self, token_id: str) -> None:
        self.token_error = self._refusal(lambda s, u: tokens.revoke_token(s, u, token_id))

    @rx.event
    def dismiss_token(self) -> None:
        self.new_token, self.copied = "", ""

    @rx.event
    def mark_copied(self, which: str) -> None:
        self.copied = which

    @rx.event
    def start_appeal(self, test_id: str) -> None:
        self.appeal_test, self.appeal_error, self.appeal_notice = test_id, "", ""

    @rx.event
    def cancel_appeal(self) -> None:
        self.appeal_test, self.appeal_error = "", ""

    @rx.event
    def set_appeal_text(self, value: str) -> None:
        self.appeal_text = value[:5000]

    @rx.event
    def send_appeal(self) -> None:
        """Send the open form's appeal; on refusal the text stays for the contributor to fix."""
        per_hour = app_context().settings.appeal_rate_limit_per_hour
        sent = self._as_viewer(
            lambda s, u: open_appeal(s, u, self.appeal_test, self.appeal_text, per_hour=per_hour)
        )
        if isinstance(sent, str):
            self.appeal_error = sent
            return
        self.appeal_test, self.appeal_text, self.appeal_error = "", "", ""
        self.appeal_notice = "Appeal sent. A moderator will read it and answer here."
        self._reload()
