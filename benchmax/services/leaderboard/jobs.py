"""The snapshot as a durable job: scheduled every interval, or asked for by an owner.

The job's subject is the snapshot's request key. A scheduled request is keyed by its time
slot (``scheduled:<slot>``), so two schedulers, a doubled tick or a retried job all land on
the same snapshot; ``build_snapshot`` returns the one already published for a key.
"""

from __future__ import annotations

import time

from sqlmodel import Session, col, select

from benchmax.models import Job, JobState, LeaderboardSnapshot, Role, User
from benchmax.services.errors import Forbidden
from benchmax.services.jobs import JobContext, enqueue, job_handler
from benchmax.services.leaderboard.signing import signing_key
from benchmax.services.leaderboard.snapshots import build_snapshot
from benchmax.services.moderation.policy import require_active

SNAPSHOT_JOB = "leaderboard_snapshot"


@job_handler(SNAPSHOT_JOB)
def run_snapshot_job(ctx: JobContext, request_key: str) -> None:
    key = signing_key(ctx.settings)
    with ctx.session() as session:
        build_snapshot(session, request_key, key)


def request_snapshot(session: Session, request_key: str) -> Job | None:
    """Enqueue a snapshot for ``request_key`` unless one exists or is already on its way."""
    published = session.exec(
        select(LeaderboardSnapshot.id).where(LeaderboardSnapshot.request_key == request_key)
    ).first()
    live = session.exec(
        select(Job.id).where(
            Job.kind == SNAPSHOT_JOB,
            Job.subject_id == request_key,
            col(Job.state).in_([JobState.PENDING, JobState.RUNNING]),
        )
    ).first()
    if published is not None or live is not None:
        return None
    return enqueue(session, SNAPSHOT_JOB, request_key)


def scheduled_request_key(interval_seconds: int, now: float | None = None) -> str:
    slot = int(now if now is not None else time.time()) // interval_seconds
    return f"scheduled:{interval_seconds}:{slot}"


def request_scheduled_snapshot(ctx: JobContext) -> int:
    """The periodic tick: enqueue this slot's snapshot (0 when snapshots are off)."""
    interval = ctx.settings.leaderboard_snapshot_interval_seconds
    if interval <= 0:
        return 0
    with ctx.session() as session:
        return 1 if request_snapshot(session, scheduled_request_key(interval)) else 0


def request_owner_snapshot(session: Session, actor: User | None) -> Job | None:
    """An owner asks for a snapshot now; None when one is already being built."""
    user = require_active(actor, "publish leaderboard snapshots")
    if user.role != Role.OWNER:
        raise Forbidden("not_allowed", "Only owners can publish leaderboard snapshots.")
    live = session.exec(
        select(Job.id).where(
            Job.kind == SNAPSHOT_JOB, col(Job.state).in_([JobState.PENDING, JobState.RUNNING])
        )
    ).first()
    if live is not None:
        return None
    return enqueue(session, SNAPSHOT_JOB, f"owner:{user.id}:{time.time_ns()}")
