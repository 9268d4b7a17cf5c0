"""The preview job (subject: a Test id): evaluate its source ZIP once per evaluator template.

Idempotent: the evaluation row for (Test, ZIP SHA-256, template hash) is created once (a
unique index) and the job does nothing unless that row is still pending, so a job that runs
twice — or a second job for the same Test — evaluates at most once. A site that fails (its
page never loads, the run hits its bound) is a *result*: recorded as "the preview failed" and
not retried. So is a run stopped at one of the sandbox's resource limits: the Test reads
which one in plain words ("the page used more memory than a preview allows"), and only the
contributor's own retry runs it again. A sandbox that fails is retried by the runner (3
attempts), then the job is dead on /operations and the Test reads "Automated preview
unavailable". The Test's public state is never touched.

Every preview job carries its contributor's account and waits its turn behind that account's
other previews (``fair``); each evaluation counts against the day's budget and the
account's share of it.
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
from functools import cache
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from benchmax.adapters.sandbox import (
    RESULT_FILE,
    TEMPLATE,
    EvaluationOutput,
    SandboxError,
    SandboxPort,
    template_hash,
)
from benchmax.adapters.sandbox.limits import CPU, DISK, FILE_SIZE, MEMORY, TASKS
from benchmax.adapters.storage import PREVIEW_PREFIX
from benchmax.models import (
    EvidenceFile,
    EvidenceKind,
    EvidenceState,
    Job,
    PreviewArtifact,
    PreviewArtifactKind,
    PreviewEvaluation,
    PreviewState,
    Test,
    TestState,
)
from benchmax.models._base import utcnow
from benchmax.services.derived_text import PREVIEW, gate
from benchmax.services.jobs import JobContext, JobError, job_handler
from benchmax.services.jobs.enqueue import enqueue_unless_pending
from benchmax.services.judge.budget import seconds_to_next_day
from benchmax.services.preview import budget
from benchmax.services.preview.fair import (
    MAX_ATTEMPTS,
    enqueue_preview,
    let_in_next,
)
from benchmax.services.preview.fair import (
    PREVIEW_EVALUATE as PREVIEW_EVALUATE,  # the job kind, named where its handler is
)
from benchmax.services.preview.screening import screen_pictures
from benchmax.services.stored_bytes import put_bytes
from benchmax.settings import Settings

logger = logging.getLogger(__name__)

MAX_PACKED = 20 * 1024 * 1024
# Every string of a stored result is at most this long, cut after its credentials are removed.
DERIVED_TEXT_CHARS = 500
# Room the job keeps inside its lease beyond the evaluation itself (download, upload, commit).
LEASE_MARGIN_SECONDS = 30.0

REASON_NO_INDEX = "this ZIP has no index.html at its root"
REASON_CANNOT = "this ZIP cannot be previewed (too large, too many files or unsafe paths)"
REASON_FAILED = "the preview failed"
REASON_OFF = "previews are not enabled on this instance"
# A run stopped at one of the sandbox's limits, in the words the Test page shows.
LIMIT_REASONS = {
    MEMORY: "the page used more memory than a preview allows",
    CPU: "the page used more processor time than a preview allows",
    TASKS: "the page started more processes or threads than a preview allows",
    DISK: "the site wrote more data than a preview allows",
    FILE_SIZE: "the site wrote a file larger than a preview allows",
}

_ARTIFACT_KINDS = {
    "screenshot.png": (PreviewArtifactKind.SCREENSHOT, "image/png"),
    "video.webm": (PreviewArtifactKind.VIDEO, "video/webm"),
    "video.webp": (PreviewArtifactKind.VIDEO, "image/webp"),
    "result.json": (PreviewArtifactKind.RESULT, "application/json"),
}


@cache
def current_template_hash() -> str:
    """The digest of the template files shipped with this code (they never change while it
    runs), read once."""
    return template_hash()


def source_zip(session: Session, test_id: str) -> EvidenceFile | None:
    """The Test's first approved source ZIP, public or private."""
    return session.exec(
        select(EvidenceFile)
        .where(
            EvidenceFile.test_id == test_id,
            EvidenceFile.kind == EvidenceKind.SOURCE,
            EvidenceFile.state == EvidenceState.APPROVED,
        )
        .order_by(col(EvidenceFile.position), col(EvidenceFile.created_at))
    ).first()


def request_preview(session: Session, settings: Settings, test_id: str) -> None:
    """Called in the transaction that publishes ``test_id``: queue its preview if eligible."""
    if settings.preview_sandbox == "off" or source_zip(session, test_id) is None:
        return
    test = session.get(Test, test_id)
    if test is not None:
        enqueue_preview(session, settings, test_id, test.contributor_id)


def evaluation_for(session: Session, test_id: str, source: EvidenceFile) -> PreviewEvaluation:
    """The evaluation row of this ZIP under the current template, created pending if new."""
    digest = current_template_hash()
    found = session.exec(
        select(PreviewEvaluation).where(
            PreviewEvaluation.test_id == test_id,
            PreviewEvaluation.zip_sha256 == source.sha256,
            PreviewEvaluation.template_hash == digest,
        )
    ).first()
    if found is not None:
        return found
    evaluation = PreviewEvaluation(
        test_id=test_id,
        evidence_id=source.id,
        zip_sha256=source.sha256,
        template=TEMPLATE,
        template_hash=digest,
    )
    session.add(evaluation)
    session.flush()
    return evaluation


def _defer(ctx: JobContext, test_id: str, account_id: str) -> None:
    """The day's evaluations (or the account's share) are spent: a new job waits for the
    next UTC day, still counted as the account's one in the queue."""
    with ctx.session() as session:
        enqueue_unless_pending(
            session,
            PREVIEW_EVALUATE,
            test_id,
            delay_seconds=seconds_to_next_day() + 60,
            max_attempts=MAX_ATTEMPTS,
            account_id=account_id,
        )
    logger.info("preview of %s deferred to the next UTC day (budget spent)", test_id)


def account_of(ctx: JobContext, test_id: str) -> str:
    """The account whose preview of ``test_id`` this is, as its jobs record it."""
    with ctx.session() as session:
        return (
            session.exec(
                select(col(Job.account_id)).where(
                    col(Job.kind) == PREVIEW_EVALUATE, col(Job.subject_id) == test_id
                )
            ).first()
            or ""
        )


def _next_in_line(ctx: JobContext, test_id: str, account_id: str) -> None:
    """This preview has ended: the account's next parked one may join the queue."""
    if not account_id:
        return
    with ctx.session() as session:
        let_in_next(session, ctx.settings, account_id, test_id)


def _claim(ctx: JobContext, test_id: str) -> tuple[str, str, int] | bool | None:
    """(evaluation id, ZIP key, size) to run; None for nothing to do; False for no budget
    (the instance's or the contributor's share)."""
    with ctx.session() as session:
        test = session.get(Test, test_id)
        if test is None or test.state != TestState.PUBLIC:
            return None
        source = source_zip(session, test_id)
        if source is None:
            return None
        evaluation = evaluation_for(session, test_id, source)
        if evaluation.state != PreviewState.PENDING:
            return None
        settings = ctx.settings
        if not budget.take_evaluation(
            session,
            settings.preview_daily_budget,
            test.contributor_id,
            settings.preview_account_daily_budget,
        ):
            session.rollback()
            return False
        evaluation.attempts += 1
        evaluation.sandbox = ctx.settings.preview_sandbox
        session.add(evaluation)
        return evaluation.id, source.storage_key, source.size_bytes


@job_handler(PREVIEW_EVALUATE, on_dead=lambda ctx, test_id: mark_dead(ctx, test_id))
def evaluate_preview(ctx: JobContext, test_id: str) -> None:
    sandbox = ctx.sandbox
    if sandbox is None:
        return
    account_id = account_of(ctx, test_id)
    try:
        _evaluate(ctx, sandbox, test_id, account_id)
    finally:
        _next_in_line(ctx, test_id, account_id)


def _evaluate(ctx: JobContext, sandbox: SandboxPort, test_id: str, account_id: str) -> None:
    claimed = _claim(ctx, test_id)
    if claimed is False:
        _defer(ctx, test_id, account_id)
        return
    if not claimed:
        return
    evaluation_id, key, size = claimed  # type: ignore[misc]
    if size > MAX_PACKED:
        _finish(ctx, evaluation_id, _refused("too_large_packed"), 0)
        return
    started = time.monotonic()
    timeout = min(
        ctx.settings.preview_timeout_seconds,
        max(10.0, ctx.settings.job_lease_seconds - LEASE_MARGIN_SECONDS),
    )
    with tempfile.TemporaryDirectory(prefix="benchmax-zip-") as scratch:
        path = Path(scratch) / "site.zip"
        with path.open("wb") as out:
            for chunk in ctx.storage.get(key):
                out.write(chunk)
        try:
            labels = {"benchmax_evaluation": evaluation_id, "benchmax_test": test_id}
            output = sandbox.evaluate(path, timeout, labels=labels)
        except SandboxError as exc:
            raise JobError(f"preview_{exc.code}") from exc
    _finish(ctx, evaluation_id, output, round((time.monotonic() - started) * 1000))


def _refused(code: str) -> EvaluationOutput:
    return EvaluationOutput(
        result={"template": TEMPLATE, "status": "not_applicable", "reason": code}, files={}
    )


def _store(ctx: JobContext, evaluation_id: str, files: dict[str, bytes]) -> list[PreviewArtifact]:
    stored = []
    for name, data in files.items():
        kind, content_type = _ARTIFACT_KINDS[name]
        key = f"{PREVIEW_PREFIX}{evaluation_id}/{name}"
        columns = put_bytes(ctx.storage, key, data, content_type)
        stored.append(PreviewArtifact(evaluation_id=evaluation_id, kind=kind, **columns))
    return stored


def _finish(ctx: JobContext, evaluation_id: str, output: EvaluationOutput, took_ms: int) -> None:
    """Store the result and artifacts. Everything the page could put in the result (console
    text, exceptions, its title, URLs it asked for, the markup axe quoted) passes the derived
    text gate first; the public ``result.json`` is written from the gated result, never from
    the evaluator's own bytes. Its pictures pass the file scan first (``screening``), before
    the row is locked: a scan takes seconds."""
    pictures, note = screen_pictures(ctx, output.files)
    with ctx.session() as session:
        evaluation = session.get(PreviewEvaluation, evaluation_id, with_for_update=True)
        if evaluation is None or evaluation.state != PreviewState.PENDING:
            return
        result = gate(session, PREVIEW, output.result, clip=DERIVED_TEXT_CHARS).value
        files = dict(pictures)
        if RESULT_FILE in files:
            files[RESULT_FILE] = _result_bytes(result)
        artifacts = _store(ctx, evaluation_id, files)
        for old in session.exec(
            select(PreviewArtifact).where(PreviewArtifact.evaluation_id == evaluation_id)
        ):
            session.delete(old)
        for artifact in artifacts:
            session.add(artifact)
        _apply_result(evaluation, result)
        if evaluation.state == PreviewState.DONE:
            # Shown beside the figures: why a picture is missing (set only by BenchMax).
            evaluation.reader_reason = note[:200]
        evaluation.duration_ms = took_ms
        evaluation.finished_at = utcnow()
        session.add(evaluation)


def _result_bytes(result: dict[str, Any]) -> bytes:
    return json.dumps(result, sort_keys=True, ensure_ascii=False).encode()


def _apply_result(evaluation: PreviewEvaluation, result: dict[str, Any]) -> None:
    status, reason = result.get("status"), str(result.get("reason") or "")
    evaluation.result_json = _result_bytes(result).decode()
    if status == "ok":
        evaluation.state = PreviewState.DONE
        evaluation.reader_reason = evaluation.error_code = ""
        evaluation.load_ms = _int(result.get("load_ms"))
        evaluation.console_error_count = _int(result.get("console_error_count"))
        axe = result.get("axe") if isinstance(result.get("axe"), dict) else {}
        evaluation.axe_violation_count = len(axe.get("violations") or [])  # type: ignore[union-attr]
    elif status == "not_applicable":
        evaluation.state = PreviewState.NOT_APPLICABLE
        evaluation.reader_reason = REASON_NO_INDEX if reason == "no_root_index" else REASON_CANNOT
        evaluation.error_code = reason[:64]
    else:
        evaluation.state = PreviewState.FAILED
        evaluation.reader_reason = LIMIT_REASONS.get(reason, REASON_FAILED)
        evaluation.error_code = (reason or "failed")[:64]


def _int(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def mark_dead(ctx: JobContext, test_id: str) -> None:
    """Every attempt failed in the sandbox: the pending evaluation reads "the preview failed"."""
    _next_in_line(ctx, test_id, account_of(ctx, test_id))
    with ctx.session() as session:
        for evaluation in session.exec(
            select(PreviewEvaluation).where(
                PreviewEvaluation.test_id == test_id,
                PreviewEvaluation.state == PreviewState.PENDING,
            )
        ):
            evaluation.state = PreviewState.FAILED
            evaluation.reader_reason = REASON_FAILED
            evaluation.error_code = evaluation.error_code or "job_dead"
            evaluation.finished_at = utcnow()
            session.add(evaluation)
