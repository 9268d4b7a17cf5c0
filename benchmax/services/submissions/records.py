"""Loading and locking the rows a submission is made of; shared by the services and jobs."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import update
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from benchmax.models import EvidenceFile, EvidenceState, Job, JobState, Test, TestState, User
from benchmax.models._base import is_public_id, utcnow
from benchmax.services import jobs
from benchmax.services.errors import Conflict, Forbidden, NotFound

SCAN_EVIDENCE = "scan_evidence"
PUBLISH_TEST = "publish_test"
EDITABLE_STATES = (TestState.DRAFT, TestState.NEEDS_ATTENTION)
_LIVE_JOB_STATES = (JobState.PENDING, JobState.RUNNING)


def get_own_test(session: Session, user: User, test_id: str) -> Test:
    """The user's Test ``test_id``; anyone else's, or none, is a 404."""
    test = session.get(Test, test_id) if is_public_id(test_id) else None
    if test is None or test.contributor_id != user.id:
        raise NotFound("not_found", "No Test of yours has this id.")
    return test


def require_writer(user: User, doing: str) -> None:
    """Refuse a suspended account; ``doing`` completes "Suspended accounts cannot …"."""
    if not user.can_write:
        raise Forbidden("account_suspended", f"Suspended accounts cannot {doing}.")


def editable_test(session: Session, user: User, test_id: str) -> Test:
    """The user's Test, refusing writes from suspended accounts and non-editable states."""
    require_writer(user, "submit or edit Tests")
    test = get_own_test(session, user, test_id)
    if test.state not in EDITABLE_STATES:
        raise Conflict(
            "not_editable",
            "This Test can no longer be edited: it has been submitted. Wait for processing to "
            "finish, or retry it if processing failed.",
        )
    return test


def lock_test(session: OrmSession, test_id: str) -> bool:
    """Take the Test's row lock for the rest of the transaction; False if it does not exist.

    An UPDATE first, rather than SELECT ... FOR UPDATE, because SQLite has no row locks: a
    write is what takes its database lock, and reads after it see every committed change.
    Jobs settling two files of one Test at once therefore run one after the other, and the
    second sees the first's outcome.
    """
    result = session.execute(
        update(Test)
        .where(col(Test.id) == test_id)
        .values(updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    return bool(getattr(result, "rowcount", 0))


def live_files(session: Session, test_id: str) -> list[EvidenceFile]:
    """The Test's files that count (everything not removed), in upload order."""
    return list(
        session.exec(
            select(EvidenceFile)
            .where(
                EvidenceFile.test_id == test_id,
                col(EvidenceFile.state) != EvidenceState.REMOVED,
            )
            .order_by(col(EvidenceFile.position), col(EvidenceFile.created_at))
            .execution_options(populate_existing=True)
        )
    )


def latest_jobs(session: Session, kind: str, subject_ids: Iterable[str]) -> dict[str, Job]:
    """The most recent job of ``kind`` for each subject that has one."""
    ids = list(subject_ids)
    if not ids:
        return {}
    rows = session.exec(
        select(Job)
        .where(Job.kind == kind, col(Job.subject_id).in_(ids))
        .order_by(col(Job.id))
        .execution_options(populate_existing=True)
    )
    return {job.subject_id: job for job in rows}


def enqueue_scan(session: Session, evidence: EvidenceFile, account_id: str) -> None:
    """A safety scan of ``evidence``, shared fairly with other accounts' scans."""
    jobs.enqueue(session, SCAN_EVIDENCE, evidence.id, account_id=account_id)


def is_live(job: Job | None) -> bool:
    return job is not None and job.state in _LIVE_JOB_STATES
