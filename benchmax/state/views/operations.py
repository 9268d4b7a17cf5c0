"""What ``/operations`` shows: the owner's dashboard as plain strings, numbers, moments
(``Stamp``s, drawn as "5 min ago" with the exact time on hover) and charts."""

from __future__ import annotations

from dataclasses import dataclass, field

from benchmax.presentation.charts import line_chart_svg
from benchmax.presentation.formatting import size_text
from benchmax.services.dates import Stamp, chart_time, stamp
from benchmax.services.derived_text import JUDGE, PREVIEW, RedactionCounts
from benchmax.services.jobs import JobCount
from benchmax.services.operations import Dashboard, PrefixUsage
from benchmax.services.operations.dashboard import AuditSummary, BackupSummary, DeadJob
from benchmax.services.operations.metrics import JobStatePoint, SeriesPoint
from benchmax.state.views.preview_failures import PreviewFailureRow


def redaction_text(counts: RedactionCounts) -> str:
    """ "2 today (preview 2, AI judge 0); 5 in all", or "none yet"."""
    if not counts.total_all:
        return "none yet"
    today = counts.today
    return (
        f"{counts.today_all} today (preview {today[PREVIEW]}, AI judge {today[JUDGE]}); "
        f"{counts.total_all} in all"
    )


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
    updated: Stamp

    @classmethod
    def of(cls, job: DeadJob) -> DeadJobRow:
        return cls(
            id=str(job.id),
            kind=job.kind,
            subject_id=job.subject_id,
            attempts=str(job.attempts),
            error=job.last_error_code or "—",
            updated=stamp(job.updated_at),
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
    time: Stamp = field(default_factory=Stamp)
    manifest: str = ""
    objects: str = ""
    verified: str = ""
    verified_at: Stamp = field(default_factory=Stamp)

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
            time=stamp(backup.created_at),
            manifest=backup.manifest_key,
            objects=f"{backup.object_count} objects, {size_text(backup.object_bytes)}",
            verified=verified,
            verified_at=stamp(backup.verified_at),
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
    time: Stamp

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
            stamp(event.created_at),
        )  # fmt: skip


@dataclass(frozen=True)
class OperationsView:
    """The dashboard as the page shows it; ``OperationsView()`` is the empty one."""

    generated_at: Stamp = field(default_factory=Stamp)
    job_rows: list[JobRow] = field(default_factory=list)
    finished_counts_at: Stamp = field(default_factory=Stamp)
    oldest_waiting: str = ""
    dead_jobs: list[DeadJobRow] = field(default_factory=list)
    ttp_p50: str = ""
    ttp_p95: str = ""
    ttp_count: int = 0
    open_reports: int = 0
    open_disputes: int = 0
    open_holds: int = 0
    open_appeals: int = 0
    dead_count: int = 0
    # Inline SVG drawn here from the recorded samples; "" until there is a sample to draw.
    jobs_chart: str = ""
    backlog_chart: str = ""
    ttp_chart: str = ""
    ai_review: str = ""
    # Credentials removed from derived text (preview results, judge replies).
    redactions: str = ""
    storage_rows: list[StorageRow] = field(default_factory=list)
    storage_taken_at: Stamp = field(default_factory=Stamp)
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


def _ttp_chart(points: tuple[SeriesPoint, ...]) -> str:
    """Time to public (p50 and p95, in seconds) over the last day, like the job charts."""
    if not points:
        return ""
    return line_chart_svg(
        "Time to public in seconds, p50 and p95, over the last 24 hours",
        [chart_time(point.taken_at) for point in points],
        [
            ("p50 (s)", [round(point.p50_seconds or 0.0, 2) for point in points]),
            ("p95 (s)", [round(point.p95_seconds or 0.0, 2) for point in points]),
        ],
    )


def view(data: Dashboard) -> OperationsView:
    """The dashboard as plain strings and numbers for the page."""
    inventory = data.inventory
    charts = _charts(data.job_series)
    return OperationsView(
        generated_at=stamp(data.generated_at),
        job_rows=[JobRow.of(count) for count in data.job_counts],
        finished_counts_at=stamp(data.finished_counts_at),
        oldest_waiting=_duration(data.oldest_waiting_seconds),
        dead_jobs=[DeadJobRow.of(job) for job in data.dead_jobs],
        ttp_p50=_duration(data.time_to_public.p50_seconds),
        ttp_p95=_duration(data.time_to_public.p95_seconds),
        ttp_count=data.time_to_public.published,
        open_reports=data.open_reports,
        open_disputes=data.open_disputes,
        open_holds=data.open_holds,
        open_appeals=data.open_appeals,
        dead_count=len(data.dead_jobs),
        jobs_chart=charts[0],
        backlog_chart=charts[1],
        ttp_chart=_ttp_chart(data.ttp_series),
        ai_review=data.ai_review,
        redactions=redaction_text(data.redactions),
        storage_rows=[StorageRow.of(usage) for usage in inventory.prefixes],
        storage_taken_at=stamp(inventory.taken_at),
        orphan_count=inventory.orphan_object_count,
        orphan_objects=list(inventory.orphan_objects),
        missing_count=inventory.missing_object_count,
        missing_objects=list(inventory.missing_objects),
        backup=BackupPanel.of(data.last_backup),
        audit_rows=[AuditRow.of(event) for event in data.recent_audit],
    )
