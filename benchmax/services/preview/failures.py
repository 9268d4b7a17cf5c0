"""Recent preview failures with their technical detail, for owners on /operations only.

Readers of a Test see one plain reason ("the preview failed"); the code the evaluator or the
job runner recorded, and the evaluator's one-line message, are for whoever runs the
instance. Nothing here is the site's own output: console messages stay on the Test page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from benchmax.models import Job, JobState, PreviewEvaluation, PreviewState, Test, User
from benchmax.models.test import display_title
from benchmax.services.operations import require_owner
from benchmax.services.preview.jobs import PREVIEW_EVALUATE
from benchmax.services.preview.view import evaluation_result

RECENT_FAILURES = 20
DETAIL_CHARS = 200


@dataclass(frozen=True)
class PreviewFailure:
    evaluation_id: str
    test_id: str
    test_title: str
    state: str
    reader_reason: str
    error_code: str
    detail: str
    """The evaluator's technical message, or the dead job's last error."""
    sandbox: str
    attempts: int
    duration_ms: int | None
    finished_at: datetime | None


def recent_failures(
    session: Session, viewer: User | None, limit: int = RECENT_FAILURES
) -> list[PreviewFailure]:
    """The newest failed or not-applicable evaluations, newest first (owners only)."""
    require_owner(viewer)
    rows = session.exec(
        select(PreviewEvaluation, Test.title, Test.prompt)
        .join(Test, col(Test.id) == col(PreviewEvaluation.test_id))
        .where(col(PreviewEvaluation.state).in_((PreviewState.FAILED, PreviewState.NOT_APPLICABLE)))
        .order_by(col(PreviewEvaluation.finished_at).desc(), col(PreviewEvaluation.id))
        .limit(limit)
    ).all()
    job_errors = _dead_job_errors(session, [evaluation.test_id for evaluation, *_ in rows])
    return [
        PreviewFailure(
            evaluation_id=evaluation.id,
            test_id=evaluation.test_id,
            test_title=display_title(title, prompt),
            state=evaluation.state,
            reader_reason=evaluation.reader_reason,
            error_code=evaluation.error_code or "—",
            detail=_detail(evaluation, job_errors.get(evaluation.test_id, "")),
            sandbox=evaluation.sandbox,
            attempts=evaluation.attempts,
            duration_ms=evaluation.duration_ms,
            finished_at=evaluation.finished_at,
        )
        for evaluation, title, prompt in rows
    ]


def _dead_job_errors(session: Session, test_ids: list[str]) -> dict[str, str]:
    """Each Test's newest dead preview job's last error code (a sandbox that kept failing)."""
    if not test_ids:
        return {}
    jobs = session.exec(
        select(Job.subject_id, Job.last_error_code)
        .where(
            Job.kind == PREVIEW_EVALUATE,
            col(Job.subject_id).in_(test_ids),
            Job.state == JobState.DEAD,
        )
        .order_by(col(Job.updated_at))
    ).all()
    return {subject: error for subject, error in jobs if error}


def _detail(evaluation: PreviewEvaluation, job_error: str) -> str:
    result = evaluation_result(evaluation)
    parts = [str(result.get(name) or "") for name in ("summary", "detail")]
    if evaluation.error_code == "job_dead" and job_error:
        parts.append(f"last job error: {job_error}")
    text = " — ".join(part for part in parts if part)
    return (text[: DETAIL_CHARS - 1] + "…") if len(text) > DETAIL_CHARS else (text or "—")
