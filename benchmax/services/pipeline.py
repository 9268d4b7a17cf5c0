"""The safety pipeline's jobs: scan each quarantined file, then publish the Test.

``scan_evidence`` (subject: an evidence id) downloads the quarantined object to a scratch
directory in bounded chunks, runs ``safety.scan_file`` in a child process (``scan_process``:
killed past a deadline, capped in memory) and settles the file. Approved bytes (the
re-encoded copy, for images) are written to ``evidence/{test_id}/{evidence_id}`` and read
back to re-verify their SHA-256 before the row says ``approved``; a blocked file's quarantined
bytes are deleted and its Test needs attention. A scanner crash or timeout propagates: the
job runner retries with backoff, and when the job is dead its ``on_dead`` hook shows the Test
as "Processing failed". Files are scanned from the moment they are uploaded: settling a
draft's file records its verdict (and deletes a blocked file's bytes) without moving the
Test. When the last pending file of a submitted Test settles with none blocked,
``publish_test`` is enqueued in the same transaction.

``publish_test`` (subject: a Test id) makes the Test public, Awaiting review, only when every
file that counts is approved and the evidence rule holds; when an AI judge is configured its
review job is added in that same commit, so it can only ever follow publication. Both are
idempotent: settling happens under the Test's row lock and only from the state the job
expects.

``cleanup_quarantine`` deletes quarantine objects nothing live points at.
"""

from __future__ import annotations

import hashlib
import logging
import tempfile
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from sqlmodel import Session, col, select

from benchmax.adapters.storage import (
    EVIDENCE_PREFIX,
    QUARANTINE_PREFIX,
    ObjectNotFoundError,
    ObjectStorage,
)
from benchmax.models import (
    EvidenceFile,
    EvidenceKind,
    EvidenceState,
    Job,
    ReviewState,
    Test,
    TestState,
)
from benchmax.models._base import as_utc, utcnow
from benchmax.services.jobs import JobContext, JobError, enqueue, job_handler
from benchmax.services.judge.review import request_ai_review
from benchmax.services.preview.jobs import request_preview
from benchmax.services.safety import ScanResult
from benchmax.services.scan_process import scan_in_child, scan_limits
from benchmax.services.submissions.records import (
    PUBLISH_TEST,
    SCAN_EVIDENCE,
    live_files,
    lock_test,
)

logger = logging.getLogger(__name__)

_CHUNK = 1024 * 1024
_SETTLING_STATES = (TestState.PROCESSING, TestState.FAILED)
STORED_OBJECT_MISSING = "stored_object_missing"
STORED_OBJECT_TRUNCATED = "stored_object_truncated"


def evidence_key(test_id: str, evidence_id: str) -> str:
    return f"{EVIDENCE_PREFIX}{test_id}/{evidence_id}"


@dataclass(frozen=True)
class _Pending:
    evidence_id: str
    test_id: str
    quarantine_key: str
    name: str
    size_bytes: int


def _mark_failed(ctx: JobContext, test_id: str, code: str, reason: str) -> None:
    with ctx.session() as session:
        lock_test(session, test_id)
        test = session.get(Test, test_id, populate_existing=True)
        if test is None or test.state != TestState.PROCESSING:
            return
        test.state = TestState.FAILED
        test.failure_code = code
        test.failure_reason = reason
        session.add(test)


def _scan_dead(ctx: JobContext, evidence_id: str) -> None:
    with ctx.session() as session:
        evidence = session.get(EvidenceFile, evidence_id)
        if evidence is None:
            return
        test_id, name = evidence.test_id, evidence.safe_name
        last_error = session.scalar(
            select(col(Job.last_error_code))
            .where(col(Job.kind) == SCAN_EVIDENCE, col(Job.subject_id) == evidence_id)
            .order_by(col(Job.id).desc())
            .limit(1)
        )
    if last_error in (STORED_OBJECT_MISSING, STORED_OBJECT_TRUNCATED):
        _mark_failed(
            ctx,
            test_id,
            "storage_failed",
            f"Our storage could not give back the copy of “{name}” you uploaded. This is a "
            "fault on our side, not in your file, and the operators see it: use Retry to "
            "process it again.",
        )
        return
    _mark_failed(
        ctx,
        test_id,
        "scan_failed",
        f"Safety processing of “{name}” failed on our side, several times. Nothing you "
        "entered is lost: use Retry to process it again.",
    )


def _publish_dead(ctx: JobContext, test_id: str) -> None:
    _mark_failed(
        ctx,
        test_id,
        "publish_failed",
        "Publishing failed on our side, several times. Nothing you entered is lost: use "
        "Retry to try again.",
    )


@job_handler(SCAN_EVIDENCE, on_dead=_scan_dead)
def scan_evidence(ctx: JobContext, evidence_id: str) -> None:
    pending = _pending_file(ctx, evidence_id)
    if pending is None:
        return
    with tempfile.TemporaryDirectory(prefix="bmx-scan-") as scratch:
        path = Path(scratch) / "upload"
        _download_stored(ctx.storage, pending, path)
        result = scan_in_child(
            path,
            pending.name,
            scan_limits(ctx.settings),
            timeout_seconds=ctx.settings.scan_timeout_seconds,
            cpu_seconds=ctx.settings.resolved_scan_cpu_seconds,
            memory_limit_bytes=ctx.settings.scan_memory_limit_mib * 1024 * 1024,
        )
        if result.approved:
            stored_key = evidence_key(pending.test_id, pending.evidence_id)
            _store_verified(ctx.storage, stored_key, result.sanitized_path or path, result)
            settled = _settle_approved(ctx, pending, result, stored_key)
            if not settled:
                ctx.storage.delete(stored_key)
        else:
            _settle_blocked(ctx, pending, result)
    ctx.storage.delete(pending.quarantine_key)


def _pending_file(ctx: JobContext, evidence_id: str) -> _Pending | None:
    """The file if it still waits for a scan; otherwise tidy its leftovers and say None."""
    with ctx.session() as session:
        evidence = session.get(EvidenceFile, evidence_id)
        if evidence is None:
            return None
        if evidence.state != EvidenceState.QUARANTINED:
            # Settled already; a crash right after settling can leave the object behind.
            if evidence.quarantine_key:
                ctx.storage.delete(evidence.quarantine_key)
            return None
        return _Pending(
            evidence.id,
            evidence.test_id,
            evidence.quarantine_key,
            evidence.safe_name,
            evidence.size_bytes,
        )


def _download_stored(storage: ObjectStorage, pending: _Pending, path: Path) -> None:
    """Fetch the quarantined upload; a missing or short object is the storage's fault.

    The row is only committed after the whole upload was stored and measured, so an upload
    that reached a scan did arrive complete: if its object is gone or shorter now, storage
    lost it (a wiped bucket, a restore that missed it). That is retried like any failure of
    ours, then ends as "failed on our side" with Retry — never "upload it again".
    """
    written = 0
    try:
        with path.open("wb") as file:
            for chunk in storage.get(pending.quarantine_key, chunk_size=_CHUNK):
                file.write(chunk)
                written += len(chunk)
    except ObjectNotFoundError:
        raise JobError(STORED_OBJECT_MISSING) from None
    if written != pending.size_bytes:
        raise JobError(STORED_OBJECT_TRUNCATED)


def _store_verified(storage: ObjectStorage, key: str, source: Path, result: ScanResult) -> None:
    """Write the approved bytes and prove, by reading them back, that they arrived intact."""
    with source.open("rb") as file:
        storage.put(key, file, content_type=result.content_type)
    digest = hashlib.sha256()
    for chunk in storage.get(key, chunk_size=_CHUNK):
        digest.update(chunk)
    if digest.hexdigest() != result.sha256:
        storage.delete(key)
        raise JobError("evidence_copy_mismatch")


def _report(result: ScanResult) -> dict[str, object]:
    """What the scan found, without any content: codes, kinds and line numbers only."""
    return {"verdict": result.verdict, "findings": result.findings, "metadata": result.metadata}


def _settle_approved(
    ctx: JobContext, pending: _Pending, result: ScanResult, stored_key: str
) -> bool:
    with ctx.session() as session:
        evidence = _lock_pending(session, pending)
        if evidence is None:
            return False
        evidence.state = EvidenceState.APPROVED
        evidence.kind = EvidenceKind(result.kind) if result.kind else None
        evidence.content_type = result.content_type
        evidence.safe_name = result.safe_name or evidence.safe_name
        evidence.size_bytes = result.size_bytes
        evidence.sha256 = result.sha256
        evidence.width, evidence.height = result.width, result.height
        evidence.scan_report = _report(result)
        evidence.storage_key = stored_key
        evidence.updated_at = utcnow()
        session.add(evidence)
        session.flush()
        _after_settle(session, pending.test_id)
    return True


def _settle_blocked(ctx: JobContext, pending: _Pending, result: ScanResult) -> None:
    with ctx.session() as session:
        evidence = _lock_pending(session, pending)
        if evidence is None:
            return
        evidence.state = EvidenceState.BLOCKED
        evidence.kind = EvidenceKind(result.kind) if result.kind else None
        evidence.content_type = result.content_type
        evidence.block_code = result.block_code[:64]
        evidence.block_reason = result.block_reason[:500]
        evidence.scan_report = _report(result)
        evidence.updated_at = utcnow()
        session.add(evidence)
        session.flush()
        _after_settle(session, pending.test_id)


def _lock_pending(session: Session, pending: _Pending) -> EvidenceFile | None:
    """The file under its Test's lock, if it is still quarantined (not removed meanwhile)."""
    lock_test(session, pending.test_id)
    evidence = session.get(EvidenceFile, pending.evidence_id, populate_existing=True)
    if evidence is None or evidence.state != EvidenceState.QUARANTINED:
        return None
    return evidence


def _after_settle(session: Session, test_id: str) -> None:
    """Move the Test on once its files allow: needs attention, or on to publishing."""
    test = session.get(Test, test_id, populate_existing=True)
    if test is None or test.state not in _SETTLING_STATES:
        return
    files = live_files(session, test_id)
    blocked = [file for file in files if file.state == EvidenceState.BLOCKED]
    if blocked:
        _needs_attention(session, test, blocked)
    elif all(file.state == EvidenceState.APPROVED for file in files):
        # From FAILED too: an operator requeued the dead job and it has now succeeded.
        test.state = TestState.PROCESSING
        test.failure_code = test.failure_reason = ""
        session.add(test)
        enqueue(session, PUBLISH_TEST, test_id)


def _needs_attention(session: Session, test: Test, blocked: list[EvidenceFile]) -> None:
    test.state = TestState.NEEDS_ATTENTION
    test.failure_code = "file_blocked"
    if len(blocked) == 1:
        test.failure_reason = f"A file did not pass the safety checks: {blocked[0].block_reason}"
    else:
        test.failure_reason = (
            f"{len(blocked)} files did not pass the safety checks. Each file says what to "
            "fix; replace or remove them and submit again."
        )
    test.failure_reason = test.failure_reason[:500]
    session.add(test)


@job_handler(PUBLISH_TEST, on_dead=_publish_dead)
def publish_test(ctx: JobContext, test_id: str) -> None:
    with ctx.session() as session:
        lock_test(session, test_id)
        test = session.get(Test, test_id, populate_existing=True)
        if test is None or test.state != TestState.PROCESSING:
            return
        files = live_files(session, test_id)
        blocked = [file for file in files if file.state == EvidenceState.BLOCKED]
        if blocked:
            _needs_attention(session, test, blocked)
            return
        if any(file.state != EvidenceState.APPROVED for file in files):
            return  # a scan is still due; it enqueues publishing again when it settles
        if not test.output_text.strip() and not files:
            test.state = TestState.NEEDS_ATTENTION
            test.failure_code = "evidence_required"
            test.failure_reason = "Add the model's output: paste it, or upload at least one file."
            session.add(test)
            return
        now = utcnow()
        test.state = TestState.PUBLIC
        test.review_state = ReviewState.AWAITING
        test.published_at = test.published_at or now
        test.failure_code = test.failure_reason = ""
        test.evidence_kinds = ",".join(sorted({str(file.kind) for file in files if file.kind}))
        images = [file for file in files if file.kind == EvidenceKind.IMAGE]
        test.thumbnail_evidence_id = images[0].id if images else None
        session.add(test)
        # After the Test is public, in the same commit; with the judge or previews off, nothing
        # is added. Neither is waited for.
        request_ai_review(session, ctx.settings, test_id)
        request_preview(session, ctx.settings, test_id)


def cleanup_quarantine(ctx: JobContext, older_than: timedelta = timedelta(hours=24)) -> int:
    """Delete quarantine objects older than ``older_than`` that no waiting file owns.

    An object is kept only while its row exists and is still ``quarantined`` (a file waits
    there until its scan, which starts as soon as the upload commits, settles it). The age
    threshold protects uploads whose row has not committed yet. Returns how many objects were
    deleted.
    """
    cutoff = utcnow() - older_than
    candidates: dict[str, str] = {}
    for info in ctx.storage.list(QUARANTINE_PREFIX):
        if info.last_modified is not None and as_utc(info.last_modified) > cutoff:
            continue
        candidates[info.key] = info.key.rsplit("/", 1)[-1]
    if not candidates:
        return 0
    waiting: set[str] = set()
    ids = sorted(set(candidates.values()))
    with ctx.session() as session:
        for start in range(0, len(ids), 500):
            waiting.update(
                session.exec(
                    select(EvidenceFile.quarantine_key).where(
                        col(EvidenceFile.id).in_(ids[start : start + 500]),
                        EvidenceFile.state == EvidenceState.QUARANTINED,
                    )
                )
            )
    deleted = 0
    for key in candidates:
        if key not in waiting:
            ctx.storage.delete(key)
            deleted += 1
    if deleted:
        logger.info("quarantine clean-up deleted %d objects", deleted)
    return deleted
