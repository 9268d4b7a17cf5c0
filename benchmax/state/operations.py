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
from dataclasses import dataclass, field, replace
from typing import Any

import reflex as rx

from benchmax.context import app_context
from benchmax.presentation.charts import line_chart_svg
from benchmax.presentation.formatting import size_text
from benchmax.services import backup as backups
from benchmax.services.dates import chart_time, clock_time
from benchmax.services.errors import ServiceError
from benchmax.services.jobs import JobCount
from benchmax.services.operations import (
    Dashboard,
    PrefixUsage,
    discard_job,
    owner_dashboard,
    requeue_job,
    require_owner,
)
from benchmax.services.operations.dashboard import AuditSummary, BackupSummary, DeadJob
from benchmax.services.operations.metrics import JobStatePoint
from benchmax.state.preview_failures import PreviewFailureRow, preview_failure_rows
from benchmax.state.session import SessionState

POLL_SECONDS = 3.0


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


@dataclass(frozen=True)
class JobRow:
    kind: str
    state: str
    count: str

    @classmethod
    def of(cls, count: JobCount) -> JobRow:
        return cls(count.kind, count.state.value, str(count.count))


@dataclass(frozen=True)
class DeadJobRow:
    id: str
    kind: str
    subject_id: str
    attempts: str
    error: str
    updated: str

    @classmethod
    def of(cls, job: DeadJob) -> DeadJobRow:
        return cls(
            id=str(job.id),
            kind=job.kind,
            subject_id=job.subject_id,
            attempts=str(job.attempts),
            error=job.last_error_code or "—",
            updated=clock_time(job.updated_at),
        )


@dataclass(frozen=True)
class StorageRow:
    prefix: str
    objects: str
    bytes: str

    @classmethod
    def of(cls, usage: PrefixUsage) -> StorageRow:
        return cls(usage.prefix, str(usage.objects), size_text(usage.bytes))


@dataclass(frozen=True)
class BackupPanel:
    """The newest backup; ``present`` False when there is none yet."""

    present: bool = False
    time: str = ""
    manifest: str = ""
    objects: str = ""
    verified: str = ""

    @classmethod
    def of(cls, backup: BackupSummary | None) -> BackupPanel:
        if backup is None:
            return cls()
        verified = (
            "not verified"
            if backup.verify_ok is None
            else ("verified" if backup.verify_ok else f"{backup.verify_differences} differences")
        )
        return cls(
            present=True,
            time=clock_time(backup.created_at),
            manifest=backup.manifest_key,
            objects=f"{backup.object_count} objects, {size_text(backup.object_bytes)}",
            verified=f"{verified} ({clock_time(backup.verified_at)})",
        )


@dataclass(frozen=True)
class AuditRow:
    """An audit event with names for people: ``@handle`` links and the Test's title."""

    id: str
    action: str
    actor: str  # "@handle", or "system" for the scheduler and the command line
    actor_href: str  # "" when there is no account to link
    subject: str  # the Test's title, "@handle", or "type id" when nothing better is known
    subject_href: str
    time: str

    @classmethod
    def of(cls, event: AuditSummary) -> AuditRow:
        actor, actor_href = "system", ""
        if event.actor_handle:
            actor, actor_href = "@" + event.actor_handle, "/u/" + event.actor_handle
        elif event.actor_id:
            actor = event.actor_id
        subject, subject_href = f"{event.subject_type} {event.subject_id}", ""
        if event.test_title:
            subject, subject_href = event.test_title, "/tests/" + event.test_id
            if event.subject_type != "test":
                subject = f"{event.subject_type} on “{event.test_title}”"
        elif event.subject_handle:
            subject, subject_href = "@" + event.subject_handle, "/u/" + event.subject_handle
        return cls(
            str(event.id), event.action, actor, actor_href, subject, subject_href,
            clock_time(event.created_at),
        )  # fmt: skip


@dataclass(frozen=True)
class OperationsView:
    """The dashboard as the page shows it; ``OperationsView()`` is the empty one."""

    generated_at: str = ""
    job_rows: list[JobRow] = field(default_factory=list)
    finished_counts_at: str = ""
    oldest_waiting: str = ""
    dead_jobs: list[DeadJobRow] = field(default_factory=list)
    ttp_p50: str = ""
    ttp_p95: str = ""
    ttp_count: int = 0
    # Recharts takes its data as plain objects: {"time", "p50", "p95"} (seconds) per point.
    ttp_series: list[dict[str, Any]] = field(default_factory=list)
    open_reports: int = 0
    open_disputes: int = 0
    open_holds: int = 0
    open_appeals: int = 0
    dead_count: int = 0
    # Inline SVG drawn here from the recorded samples; "" until there is a sample to draw.
    jobs_chart: str = ""
    backlog_chart: str = ""
    ai_review: str = ""
    storage_rows: list[StorageRow] = field(default_factory=list)
    storage_taken_at: str = ""
    orphan_count: int = 0
    orphan_objects: list[str] = field(default_factory=list)
    missing_count: int = 0
    missing_objects: list[str] = field(default_factory=list)
    backup: BackupPanel = field(default_factory=BackupPanel)
    audit_rows: list[AuditRow] = field(default_factory=list)
    preview_failures: list[PreviewFailureRow] = field(default_factory=list)


def _charts(points: tuple[JobStatePoint, ...]) -> tuple[str, str]:
    """Job states and the backlog over the last day, as two small SVG charts."""
    if not points:
        return "", ""
    times = [chart_time(point.taken_at) for point in points]
    states = [
        (state, [float(point.counts.get(state, 0)) for point in points])
        for state in ("pending", "running", "dead", "done")
    ]
    jobs = line_chart_svg("Jobs by state over the last 24 hours", times, states)
    backlog = line_chart_svg(
        "Backlog (pending and running jobs) over the last 24 hours",
        times,
        [("backlog", [float(point.backlog) for point in points])],
    )
    return jobs, backlog


def view(data: Dashboard) -> OperationsView:
    """The dashboard as plain strings and numbers for the page."""
    inventory = data.inventory
    charts = _charts(data.job_series)
    return OperationsView(
        generated_at=clock_time(data.generated_at),
        job_rows=[JobRow.of(count) for count in data.job_counts],
        finished_counts_at=clock_time(data.finished_counts_at),
        oldest_waiting=_duration(data.oldest_waiting_seconds),
        dead_jobs=[DeadJobRow.of(job) for job in data.dead_jobs],
        ttp_p50=_duration(data.time_to_public.p50_seconds),
        ttp_p95=_duration(data.time_to_public.p95_seconds),
        ttp_count=data.time_to_public.published,
        ttp_series=[
            {
                "time": chart_time(point.taken_at),
                "p50": round(point.p50_seconds or 0.0, 2),
                "p95": round(point.p95_seconds or 0.0, 2),
            }
            for point in data.ttp_series
        ],
        open_reports=data.open_reports,
        open_disputes=data.open_disputes,
        open_holds=data.open_holds,
        open_appeals=data.open_appeals,
        dead_count=len(data.dead_jobs),
        jobs_chart=charts[0],
        backlog_chart=charts[1],
        ai_review=data.ai_review,
        storage_rows=[StorageRow.of(usage) for usage in inventory.prefixes],
        storage_taken_at=clock_time(inventory.taken_at),
        orphan_count=inventory.orphan_object_count,
        orphan_objects=list(inventory.orphan_objects),
        missing_count=inventory.missing_object_count,
        missing_objects=list(inventory.missing_objects),
        backup=BackupPanel.of(data.last_backup),
        audit_rows=[AuditRow.of(event) for event in data.recent_audit],
    )


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
        user = self._require_user()
        try:
            return require_owner(user)
        except ServiceError:
            self.allowed = False
            self._show(OperationsView())
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
            with app_context().session() as session:
                job = action(session, int(job_id), actor=user, reason=self.reasons.get(job_id, ""))
        except ServiceError as exc:
            if exc.field == "reason":
                self.reason_errors = {**self.reason_errors, job_id: exc.message}
                self._say("The reason was not accepted; the message is under it.", ok=False)
            else:
                self._say(exc.message, ok=False)
            return
        except ValueError as exc:  # a job id that is not a number
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
        ctx = app_context()
        try:
            result = await asyncio.to_thread(
                backups.create_backup, ctx.engine, ctx.storage, created_by=user.id
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
