"""``/operations``: the owner's live dashboard, refreshed while it is open.

``on_load`` re-verifies the viewer; anyone but an active owner gets ``allowed = False`` and no
data at all. The page's Refresh button, which the browser clicks every ``POLL_SECONDS`` while
the tab is visible, runs ``refresh``: the client drives the refreshing, so nothing keeps
running on the server for a tab that has closed. Loading runs in a worker thread outside the
state lock, so the page stays responsive while it refreshes, and a tick that arrives while
one is still loading is dropped. Every action re-verifies the session on the server.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.services import backup as backups
from benchmax.services.errors import ServiceError
from benchmax.services.operations import discard_job, owner_dashboard, requeue_job, require_owner
from benchmax.state.nav import NavState
from benchmax.state.preview_failures import preview_failure_rows
from benchmax.state.session import SessionState
from benchmax.state.views.operations import OperationsView, view

POLL_SECONDS = 3.0


def _load_view(user: Any) -> OperationsView:
    with app_context().session() as session:
        shown = view(owner_dashboard(session, app_context().storage, user))
    return replace(shown, preview_failures=preview_failure_rows(user))


class OperationsState(SessionState):
    allowed: rx.Field[bool] = rx.field(False)
    loaded: rx.Field[bool] = rx.field(False)
    dash: rx.Field[OperationsView] = rx.field(default_factory=OperationsView)
    reasons: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    # A refused reason's message, shown under that job's reason field (which keeps the text).
    reason_errors: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    notice: rx.Field[str] = rx.field("")
    notice_ok: rx.Field[bool] = rx.field(True)
    backup_running: rx.Field[bool] = rx.field(False)
    _refreshing: bool = False

    def _show(self, fresh: OperationsView) -> None:
        self.dash = fresh

    def _owner(self) -> Any:
        """The re-verified viewer if an active owner; otherwise drop every datum and refuse."""
        owner = self._attempt(lambda _session, user: require_owner(user))
        if isinstance(owner, ServiceError):
            self.allowed = False
            self._show(OperationsView())
            return None
        return owner

    def _say(self, text: str, ok: bool = True) -> None:
        self.notice, self.notice_ok = text, ok

    @rx.event
    def on_load(self) -> None:
        self.loaded = True
        user = self._owner()
        if user is None:
            return
        self.allowed = True
        self._show(_load_view(user))

    @rx.event(background=True)
    async def refresh(self) -> None:
        async with self:
            if self._refreshing:
                return
            user = self._owner()
            if user is None:
                return
            self._refreshing = True
        try:
            fresh = await asyncio.to_thread(_load_view, user)
            async with self:
                if self.allowed:
                    self._show(fresh)
        finally:
            async with self:
                self._refreshing = False

    @rx.event
    def set_reason(self, job_id: str, value: str) -> None:
        self.reasons = {**self.reasons, job_id: value[:500]}

    def _act(self, job_id: str, requeue: bool) -> None:
        user = self._owner()
        if user is None:
            self._say("Only owners may do that.", ok=False)
            return
        try:
            number = int(job_id)
        except ValueError as exc:  # a job id that is not a number
            self._say(str(exc), ok=False)
            return
        action = requeue_job if requeue else discard_job
        reason = self.reasons.get(job_id, "")
        # The actor is checked again inside: a job acted on with no actor is the command line's.
        job = self._attempt(
            lambda session, viewer: action(
                session, number, actor=require_owner(viewer), reason=reason
            )
        )
        if isinstance(job, ServiceError):
            if job.field == "reason":
                self.reason_errors = {**self.reason_errors, job_id: job.message}
                self._say("The reason was not accepted; the message is under it.", ok=False)
            else:
                self._say(job.message, ok=False)
            return
        self.reasons = {key: value for key, value in self.reasons.items() if key != job_id}
        self.reason_errors = {k: v for k, v in self.reason_errors.items() if k != job_id}
        verb = "requeued" if requeue else "discarded"
        self._say(f"Job {job.id} ({job.kind}) {verb}.")
        self._show(_load_view(user))

    # Either takes a job off the dead-letter list, which the header counts.

    @rx.event
    def requeue(self, job_id: str) -> Any:
        self._act(job_id, requeue=True)
        return NavState.load_counts

    @rx.event
    def discard(self, job_id: str) -> Any:
        self._act(job_id, requeue=False)
        return NavState.load_counts

    @rx.event(background=True)
    async def create_backup(self) -> None:
        async with self:
            user = self._owner()
            if user is None or self.backup_running:
                return
            self.backup_running = True
            self._say("Backup running…")
        ctx = app_context()
        try:
            result = await asyncio.to_thread(
                backups.create_backup,
                ctx.engine,
                ctx.storage,
                created_by=user.id,
                signing_key=backups.signing_key_of(ctx.settings),
            )
        except backups.BackupBusyError:
            message, ok = "A backup is already running.", False
        except Exception as exc:
            message, ok = f"Backup failed ({type(exc).__name__}).", False
        else:
            ok = not result.problems
            message = f"Backup written: {result.manifest_key}" + (
                "" if ok else " — but it did not read back intact"
            )
        fresh = await asyncio.to_thread(_load_view, user)
        async with self:
            self.backup_running = False
            self._say(message, ok)
            self._show(fresh)
