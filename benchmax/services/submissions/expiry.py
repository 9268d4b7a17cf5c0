"""Abandoned drafts expire: a draft untouched for ``draft_ttl_hours`` is deleted with its files.

Drafts hold quarantined (and scanned but unpublished) bytes that count against the account,
so a forgotten draft must not hold them for ever. Any save, upload or scan of a draft moves
its ``updated_at``, which is what the deadline counts from; ``/me`` shows the deadline.

``expire_drafts`` runs periodically (the scheduler, or the web process's embedded loop). It
is durable and idempotent: each draft is handled in its own transaction that first re-checks,
under the Test's row lock, that the draft is still untouched past its deadline (a save that
won the race keeps it), then deletes the draft's objects and finally its rows, and records
an audit event. If anything fails, nothing is committed and the next run does it again;
deleting an object that is already gone is not an error. A scan still running on one of its
files finds the rows gone and discards its copy.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import delete, update
from sqlmodel import col, select

from benchmax.models import CancelledUpload, EvidenceFile, Test, TestState
from benchmax.models._base import as_utc, utcnow
from benchmax.models.audit import AuditAction, audit
from benchmax.services.jobs import JobContext
from benchmax.services.jobs.runner import affected_rows
from benchmax.settings import Settings

logger = logging.getLogger(__name__)

BATCH = 100


def draft_expires_at(updated_at: datetime, settings: Settings) -> datetime:
    """When a draft last touched at ``updated_at`` is deleted, if nobody touches it again."""
    return as_utc(updated_at) + timedelta(hours=settings.draft_ttl_hours)


def expire_drafts(ctx: JobContext, *, now: datetime | None = None) -> int:
    """Delete every draft past its deadline (in batches); return how many were deleted."""
    cutoff = (now or utcnow()) - timedelta(hours=ctx.settings.draft_ttl_hours)
    deleted = 0
    while True:
        with ctx.session() as session:
            due = list(
                session.exec(
                    select(Test.id)
                    .where(Test.state == TestState.DRAFT, col(Test.updated_at) < cutoff)
                    .order_by(col(Test.updated_at), col(Test.id))
                    .limit(BATCH)
                )
            )
        done = sum(_delete_draft(ctx, test_id, cutoff) for test_id in due)
        deleted += done
        if len(due) < BATCH or done == 0:
            break
    if deleted:
        logger.info("deleted %d expired drafts", deleted)
    return deleted


def _delete_draft(ctx: JobContext, test_id: str, cutoff: datetime) -> bool:
    with ctx.session() as session:
        # A no-op UPDATE that matches only a still-expired draft: it takes the row lock, and
        # on PostgreSQL re-reads the row if a concurrent save got there first.
        still_expired = session.execute(
            update(Test)
            .where(
                col(Test.id) == test_id,
                col(Test.state) == TestState.DRAFT,
                col(Test.updated_at) < cutoff,
            )
            .values(updated_at=col(Test.updated_at))
            .execution_options(synchronize_session=False)
        )
        if affected_rows(still_expired) != 1:
            return False
        files = session.exec(select(EvidenceFile).where(EvidenceFile.test_id == test_id)).all()
        for file in files:
            for key in (file.quarantine_key, file.storage_key):
                if key:
                    ctx.storage.delete(key)
        contributor_id = session.exec(select(Test.contributor_id).where(Test.id == test_id)).one()
        session.execute(delete(EvidenceFile).where(col(EvidenceFile.test_id) == test_id))
        session.execute(delete(CancelledUpload).where(col(CancelledUpload.test_id) == test_id))
        session.execute(delete(Test).where(col(Test.id) == test_id))
        audit(
            session,
            AuditAction.TEST_DRAFT_EXPIRED,
            ("test", test_id),
            actor_id=None,
            detail={"contributor_id": contributor_id, "files": len(files)},
        )
    return True
