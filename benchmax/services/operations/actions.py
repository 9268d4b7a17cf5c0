"""Owner actions from /operations and the shell: dead-letter requeue and discard.

Both go through ``benchmax.services.jobs`` (single conditional UPDATE plus an audit event);
this layer adds who may do it and that a reason is written down. The shell has no signed-in
user, so its audit events carry ``CLI_ACTOR`` — a marker no generated user id can equal.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from benchmax.models import Job, User
from benchmax.services import jobs
from benchmax.services.operations.access import require_owner, require_reason

CLI_ACTOR = "operator-cli"


def _actor_id(actor: User | None) -> str:
    return require_owner(actor).id if actor is not None else CLI_ACTOR


def requeue_job(session: Session, job_id: int, *, actor: User | None, reason: str) -> Job:
    """Requeue a dead job; ``actor`` None means the operator's shell. The caller commits."""
    actor_id = _actor_id(actor)
    return jobs.requeue(session, job_id, actor_id=actor_id, reason=require_reason(reason))


def discard_job(session: Session, job_id: int, *, actor: User | None, reason: str) -> Job:
    """Discard a dead job for good; ``actor`` None means the operator's shell."""
    actor_id = _actor_id(actor)
    return jobs.discard(session, job_id, actor_id=actor_id, reason=require_reason(reason))
