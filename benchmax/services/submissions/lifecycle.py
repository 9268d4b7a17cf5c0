"""Submitting a draft and retrying one whose processing failed.

Files are scanned from the moment they are uploaded. Submitting moves the Test to
``processing`` and, in the same transaction, makes sure every file still quarantined has a
live ``scan_evidence`` job (a file already approved is never scanned again), or enqueues
``publish_test`` when nothing is left to scan; the messages follow the commit. A scan that
settles the last file of a processing Test enqueues the publishing itself. Nothing about
reviews is on this path.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlmodel import Session

from benchmax.models import AuditAction, EvidenceState, JobState, Test, TestState, User, audit
from benchmax.models._base import utcnow
from benchmax.services import jobs
from benchmax.services.errors import Conflict, Invalid
from benchmax.services.submissions.fields import REQUIRED_FIELDS, STORED_FIELDS, clean_fields
from benchmax.services.submissions.files import FILES_FIELD
from benchmax.services.submissions.records import (
    PUBLISH_TEST,
    SCAN_EVIDENCE,
    editable_test,
    get_own_test,
    is_live,
    latest_jobs,
    live_files,
    lock_test,
    require_writer,
)

REQUIRED_MESSAGES = {
    "prompt": "Paste the prompt you gave the model.",
    "model_label": "Say which model you tested (free text is fine).",
    "harness_label": "Say which harness or app ran the model (free text is fine).",
    "reasoning_label": "Say which reasoning setting was used, or “unknown”.",
}
EVIDENCE_REQUIRED_MESSAGE = "Add the model's output: paste it, or upload at least one file."


def submit(session: Session, user: User, test_id: str) -> Test:
    """Check the draft is complete and clean, then start safety processing."""
    test = editable_test(session, user, test_id)
    lock_test(session, test.id)
    files = live_files(session, test.id)
    if any(file.state == EvidenceState.BLOCKED for file in files):
        raise Invalid(
            "blocked_files",
            "Some files did not pass the safety checks. Replace or remove them, then submit.",
            FILES_FIELD,
        )
    # Checked again: the secret rules may have grown since the draft was saved.
    check_complete({name: _as_text(getattr(test, name)) for name in STORED_FIELDS}, bool(files))
    now = utcnow()
    test.state = TestState.PROCESSING
    test.submitted_at = test.submitted_at or now
    test.failure_code = test.failure_reason = ""
    test.updated_at = now
    session.add(test)
    _start_processing(session, test)
    session.flush()
    return test


def check_complete(fields: Mapping[str, str], has_files: bool) -> None:
    """Refuse what ``submit`` would refuse about these field values: a required field left
    blank, no output and no file, or a value ``clean_fields`` refuses. Stores nothing."""
    for name in REQUIRED_FIELDS:
        if not fields.get(name, "").strip():
            raise Invalid("required", REQUIRED_MESSAGES[name], name)
    if not fields.get("output_text", "").strip() and not has_files:
        raise Invalid("evidence_required", EVIDENCE_REQUIRED_MESSAGE, "output_text")
    clean_fields(fields)


def retry_processing(session: Session, user: User, test_id: str) -> Test:
    """Run a Test whose processing failed again: dead jobs are requeued, missing ones added."""
    require_writer(user, "retry Tests")
    test = get_own_test(session, user, test_id)
    if test.state != TestState.FAILED:
        raise Conflict("not_failed", "Only a Test whose processing failed can be retried.")
    lock_test(session, test.id)
    failure_code = test.failure_code
    test.state = TestState.PROCESSING
    test.failure_code = test.failure_reason = ""
    test.updated_at = utcnow()
    session.add(test)
    _start_processing(session, test, actor=user)
    audit(
        session,
        AuditAction.TEST_RETRY_PROCESSING,
        ("test", test.id),
        actor_id=user.id,
        detail={"failure_code": failure_code},
    )
    session.flush()
    return test


def _start_processing(session: Session, test: Test, actor: User | None = None) -> None:
    """Make sure every quarantined file has a live scan job, or the Test a publish job.

    A dead job is requeued (it keeps its history and the operators' audit trail), a file
    with no live job gets a new one, and a job already pending or running is left alone.
    """
    pending = [f.id for f in live_files(session, test.id) if f.state == EvidenceState.QUARANTINED]
    kind, subjects = (SCAN_EVIDENCE, pending) if pending else (PUBLISH_TEST, [test.id])
    latest = latest_jobs(session, kind, subjects)
    for subject_id in subjects:
        job = latest.get(subject_id)
        if is_live(job):
            continue
        if job is not None and job.state == JobState.DEAD and actor is not None:
            assert job.id is not None
            jobs.requeue(session, job.id, actor_id=actor.id, reason="contributor retry")
        elif kind == SCAN_EVIDENCE:
            jobs.enqueue(session, kind, subject_id, account_id=test.contributor_id)
        else:
            jobs.enqueue(session, kind, subject_id)


def _as_text(value: object) -> str:
    return "" if value is None else str(value)
