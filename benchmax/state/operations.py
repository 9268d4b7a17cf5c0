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
from datetime import datetime
from typing import Any

import reflex as rx

from benchmax import runtime
from benchmax.services import backup as backups
from benchmax.services.jobs import JobStateError
from benchmax.services.operations import (
    Dashboard,
    NotAllowedError,
    ReasonError,
    discard_job,
    owner_dashboard,
    requeue_job,
    require_owner,
)
from benchmax.state.session import SessionState
from benchmax.state.views import size_text

POLL_SECONDS = 3.0


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else "—"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def view(data: Dashboard) -> dict[str, Any]:
    """The dashboard as plain strings and numbers for the page's vars."""
    inventory = data.inventory
    backup = data.last_backup
    if backup is None:
        backup_view = {"present": "", "time": "", "manifest": "", "objects": "", "verified": ""}
    else:
        verified = (
            "not verified"
            if backup.verify_ok is None
            else ("verified" if backup.verify_ok else f"{backup.verify_differences} differences")
        )
        backup_view = {
            "present": "yes",
            "time": _when(backup.created_at),
            "manifest": backup.manifest_key,
            "objects": f"{backup.object_count} objects, {size_text(backup.object_bytes)}",
            "verified": f"{verified} ({_when(backup.verified_at)})",
        }
    return {
        "generated_at": _when(data.generated_at),
        "job_rows": [
            {"kind": count.kind, "state": count.state.value, "count": str(count.count)}
            for count in data.job_counts
        ],
        "finished_counts_at": _when(data.finished_counts_at),
        "oldest_waiting": _duration(data.oldest_waiting_seconds),
        "dead_jobs": [
            {
                "id": str(job.id),
                "kind": job.kind,
                "subject_id": job.subject_id,
                "attempts": str(job.attempts),
                "error": job.last_error_code or "—",
                "updated": _when(job.updated_at),
            }
            for job in data.dead_jobs
        ],
        "ttp_p50": _duration(data.time_to_public.p50_seconds),
        "ttp_p95": _duration(data.time_to_public.p95_seconds),
        "ttp_count": data.time_to_public.published,
        "ttp_series": [
            {
                "time": point.taken_at.strftime("%H:%M"),
                "p50": round(point.p50_seconds or 0.0, 2),
                "p95": round(point.p95_seconds or 0.0, 2),
            }
            for point in data.ttp_series
        ],
        "open_reports": data.open_reports,
        "open_disputes": data.open_disputes,
        "open_holds": data.open_holds,
        "ai_review": data.ai_review,
        "storage_rows": [
            {"prefix": usage.prefix, "objects": str(usage.objects), "bytes": size_text(usage.bytes)}
            for usage in inventory.prefixes
        ],
        "storage_taken_at": _when(inventory.taken_at),
        "orphan_count": inventory.orphan_object_count,
        "orphan_objects": list(inventory.orphan_objects),
        "missing_count": inventory.missing_object_count,
        "missing_objects": list(inventory.missing_objects),
        "backup": backup_view,
        "audit_rows": [
            {
                "id": str(event.id),
                "action": event.action,
                "actor": event.actor_id or "—",
                "subject": f"{event.subject_type} {event.subject_id}",
                "time": _when(event.created_at),
            }
            for event in data.recent_audit
        ],
    }


EMPTY_VIEW: dict[str, Any] = {
    "generated_at": "",
    "job_rows": [],
    "finished_counts_at": "",
    "oldest_waiting": "",
    "dead_jobs": [],
    "ttp_p50": "",
    "ttp_p95": "",
    "ttp_count": 0,
    "ttp_series": [],
    "open_reports": 0,
    "open_disputes": 0,
    "open_holds": 0,
    "ai_review": "",
    "storage_rows": [],
    "storage_taken_at": "",
    "orphan_count": 0,
    "orphan_objects": [],
    "missing_count": 0,
    "missing_objects": [],
    "backup": {"present": "", "time": "", "manifest": "", "objects": "", "verified": ""},
    "audit_rows": [],
}


def _load_view(user: Any) -> dict[str, Any]:
    with runtime.db_session() as session:
        return view(owner_dashboard(session, runtime.storage(), user))


class OperationsState(SessionState):
    allowed: rx.Field[bool] = rx.field(False)
    loaded: rx.Field[bool] = rx.field(False)
    generated_at: rx.Field[str] = rx.field("")
    job_rows: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    finished_counts_at: rx.Field[str] = rx.field("")
    oldest_waiting: rx.Field[str] = rx.field("")
    dead_jobs: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    ttp_p50: rx.Field[str] = rx.field("")
    ttp_p95: rx.Field[str] = rx.field("")
    ttp_count: rx.Field[int] = rx.field(0)
    ttp_series: rx.Field[list[dict[str, Any]]] = rx.field(default_factory=list)
    open_reports: rx.Field[int] = rx.field(0)
    open_disputes: rx.Field[int] = rx.field(0)
    open_holds: rx.Field[int] = rx.field(0)
    ai_review: rx.Field[str] = rx.field("")
    storage_rows: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    storage_taken_at: rx.Field[str] = rx.field("")
    orphan_count: rx.Field[int] = rx.field(0)
    orphan_objects: rx.Field[list[str]] = rx.field(default_factory=list)
    missing_count: rx.Field[int] = rx.field(0)
    missing_objects: rx.Field[list[str]] = rx.field(default_factory=list)
    backup: rx.Field[dict[str, str]] = rx.field(default_factory=lambda: dict(EMPTY_VIEW["backup"]))
    audit_rows: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    reasons: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    # A refused reason's message, shown under that job's reason field (which keeps the text).
    reason_errors: rx.Field[dict[str, str]] = rx.field(default_factory=dict)
    notice: rx.Field[str] = rx.field("")
    notice_ok: rx.Field[bool] = rx.field(True)
    backup_running: rx.Field[bool] = rx.field(False)
    _refreshing: bool = False

    def _show(self, fresh: dict[str, Any]) -> None:
        for name, value in fresh.items():
            setattr(self, name, value)

    def _owner(self) -> Any:
        """The re-verified viewer if an active owner; otherwise drop every datum and refuse."""
        user = self._require_user()
        try:
            return require_owner(user)
        except NotAllowedError:
            self.allowed = False
            self._show(EMPTY_VIEW)
            return None

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
        action = requeue_job if requeue else discard_job
        try:
            with runtime.db_session() as session:
                job = action(session, int(job_id), actor=user, reason=self.reasons.get(job_id, ""))
        except ReasonError as exc:
            self.reason_errors = {**self.reason_errors, job_id: str(exc)}
            self._say("The reason was not accepted; the message is under it.", ok=False)
            return
        except (JobStateError, NotAllowedError, ValueError) as exc:
            self._say(str(exc), ok=False)
            return
        self.reasons = {key: value for key, value in self.reasons.items() if key != job_id}
        self.reason_errors = {k: v for k, v in self.reason_errors.items() if k != job_id}
        verb = "requeued" if requeue else "discarded"
        self._say(f"Job {job.id} ({job.kind}) {verb}.")
        self._show(_load_view(user))

    @rx.event
    def requeue(self, job_id: str) -> None:
        self._act(job_id, requeue=True)

    @rx.event
    def discard(self, job_id: str) -> None:
        self._act(job_id, requeue=False)

    @rx.event(background=True)
    async def create_backup(self) -> None:
        async with self:
            user = self._owner()
            if user is None or self.backup_running:
                return
            self.backup_running = True
            self._say("Backup running…")
        try:
            result = await asyncio.to_thread(
                backups.create_backup, runtime.engine(), runtime.storage(), created_by=user.id
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
