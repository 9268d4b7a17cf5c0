"""The sweeper re-sends due and abandoned jobs once, and buries jobs killed on their last try."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session

from benchmax.models import JobState
from benchmax.models._base import utcnow
from benchmax.services.jobs import LEASE_EXPIRED, JobContext, claim_job, enqueue, sweep
from tests.support.jobs_fixtures import RecordedJobQueue, ago, reload_job, set_job

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


def _job(ctx: JobContext, **columns: object) -> int:
    """A committed job whose columns are then forced to ``columns``, sent by nobody."""
    with Session(ctx.engine, expire_on_commit=False) as session:
        job = enqueue(session, "test.sweep", "subject", max_attempts=3, delay_seconds=3600)
        session.commit()
    assert job.id is not None
    if columns:
        set_job(ctx.engine, job.id, **columns)
    return job.id


def test_due_job_whose_message_was_lost_is_resent_once_then_again_when_stale(
    job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    sent_at = ago(5)
    job_id = _job(job_ctx, next_attempt_at=sent_at, updated_at=sent_at)  # sent 5 s ago
    assert sweep(job_ctx) == 0  # its message may still be on its way

    set_job(job_ctx.engine, job_id, updated_at=ago(job_ctx.settings.job_lease_seconds + 1))
    assert sweep(job_ctx) == 1
    assert job_queue.wait_for(1) == [job_id]
    assert sweep(job_ctx) == 0  # not again until a whole lease period passes


def test_retry_is_sent_when_it_falls_due(job_ctx: JobContext, job_queue: RecordedJobQueue) -> None:
    job_id = _job(job_ctx, updated_at=ago(2), next_attempt_at=utcnow() + timedelta(minutes=1))
    assert sweep(job_ctx) == 0
    set_job(job_ctx.engine, job_id, next_attempt_at=ago(1))
    assert sweep(job_ctx) == 1
    assert job_queue.wait_for(1) == [job_id]
    assert sweep(job_ctx) == 0


def test_expired_lease_is_resent_and_live_lease_is_not(
    job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    job_id = _job(job_ctx, next_attempt_at=ago(10))
    with job_ctx.session() as session:
        assert claim_job(session, job_id, "killed-worker", lease_seconds=30) is not None
        session.commit()
    assert sweep(job_ctx) == 0
    # Claimed 31 s ago with a 30 s lease.
    set_job(job_ctx.engine, job_id, updated_at=ago(31), lease_expires_at=ago(1))
    assert sweep(job_ctx) == 1
    assert job_queue.wait_for(1) == [job_id]
    assert reload_job(job_ctx.engine, job_id).state == JobState.RUNNING  # until reclaimed


def test_job_killed_on_its_last_attempt_ends_dead(
    job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    job_id = _job(
        job_ctx,
        state=JobState.RUNNING,
        attempts=3,
        lease_owner="killed-worker",
        lease_expires_at=ago(1),
    )
    assert sweep(job_ctx) == 0
    job = reload_job(job_ctx.engine, job_id)
    assert (job.state, job.last_error_code, job.lease_owner) == (
        JobState.DEAD,
        LEASE_EXPIRED,
        "",
    )
    assert job_queue.received == []


def test_delayed_job_is_sent_by_the_sweeper_when_due(
    job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    job_id = _job(job_ctx)
    assert sweep(job_ctx) == 0
    # Enqueued an hour ago with an hour's delay.
    set_job(job_ctx.engine, job_id, updated_at=ago(3600), next_attempt_at=ago(0.1))
    assert sweep(job_ctx) == 1
    assert job_queue.wait_for(1) == [job_id]


def test_sweep_sends_at_most_limit(job_ctx: JobContext, job_queue: RecordedJobQueue) -> None:
    ids = [_job(job_ctx, updated_at=ago(2), next_attempt_at=ago(1)) for _ in range(3)]
    assert sweep(job_ctx, limit=2) == 2
    assert sweep(job_ctx, limit=2) == 1
    assert sorted(job_queue.wait_for(3)) == ids


def test_sweep_needs_a_dispatcher(job_ctx: JobContext) -> None:
    with pytest.raises(RuntimeError, match="dispatcher"):
        sweep(job_ctx)
