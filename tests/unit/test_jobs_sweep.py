"""The sweeper re-sends due and abandoned jobs once, and buries jobs killed on their last try."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session

from benchmax.models import JobState, WorkerBeat
from benchmax.models._base import utcnow
from benchmax.services.jobs import LEASE_EXPIRED, JobContext, claim_job, enqueue, sweep
from benchmax.services.jobs.liveness import beat, retire
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


def test_due_job_whose_message_was_lost_is_resent_within_seconds_not_a_lease(
    job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    sent_at = ago(5)
    job_id = _job(job_ctx, next_attempt_at=sent_at, updated_at=sent_at)  # sent 5 s ago
    assert sweep(job_ctx) == 0  # its message may still be on its way

    # Never attempted, untouched for job_resend_seconds (far less than a lease).
    resend = job_ctx.settings.job_resend_seconds
    assert resend < job_ctx.settings.job_lease_seconds
    set_job(job_ctx.engine, job_id, updated_at=ago(resend + 1))
    assert reload_job(job_ctx.engine, job_id).attempts == 0
    assert sweep(job_ctx) == 1
    assert job_queue.wait_for(1) == [job_id]
    assert sweep(job_ctx) == 0  # not again until it is untouched that long once more


def test_running_job_of_a_silent_worker_is_released_at_once(
    job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    """Its lease has most of its time left; the worker's heartbeats stopped."""
    dead_id, live_id = (
        _job(job_ctx, next_attempt_at=ago(10)),
        _job(job_ctx, next_attempt_at=ago(10)),
    )
    with job_ctx.session() as session:
        beat(session, "host:111", utcnow() - timedelta(seconds=60))
        beat(session, "host:222")
        assert claim_job(session, dead_id, "host:111:aaaa", lease_seconds=180) is not None
        assert claim_job(session, live_id, "host:222:bbbb", lease_seconds=180) is not None
    set_job(job_ctx.engine, dead_id, updated_at=ago(20))
    set_job(job_ctx.engine, live_id, updated_at=ago(20))

    assert sweep(job_ctx) == 1
    assert job_queue.wait_for(1) == [dead_id]
    released = reload_job(job_ctx.engine, dead_id)
    assert released.state == JobState.RUNNING
    assert released.lease_expires_at is not None
    with job_ctx.session() as session:
        # Another worker takes it over now, not in three minutes.
        assert claim_job(session, dead_id, "host:333:cccc", lease_seconds=180) is not None
        assert claim_job(session, live_id, "host:333:dddd", lease_seconds=180) is None
        assert session.get(WorkerBeat, "host:111") is None  # the dead worker is forgotten
        assert session.get(WorkerBeat, "host:222") is not None


def test_a_retired_worker_is_dead_at_the_next_sweep(
    job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    job_id = _job(job_ctx, next_attempt_at=ago(10))
    with job_ctx.session() as session:
        beat(session, "host:444")
        assert claim_job(session, job_id, "host:444:eeee", lease_seconds=180) is not None
    set_job(job_ctx.engine, job_id, updated_at=ago(1))
    assert sweep(job_ctx) == 0
    with job_ctx.session() as session:
        retire(session, "host:444")
    assert sweep(job_ctx) == 1
    assert job_queue.wait_for(1) == [job_id]


def test_a_worker_with_no_heartbeat_row_keeps_its_lease(
    job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    job_id = _job(job_ctx, next_attempt_at=ago(10))
    with job_ctx.session() as session:
        assert claim_job(session, job_id, "script:1:ffff", lease_seconds=180) is not None
    set_job(job_ctx.engine, job_id, updated_at=ago(60))
    assert sweep(job_ctx) == 0
    assert reload_job(job_ctx.engine, job_id).lease_owner == "script:1:ffff"


def test_an_accounts_next_job_is_resent_once_nothing_of_it_runs(
    job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    """A deferred scan whose hand-off was lost is not left waiting behind a job nobody runs."""
    with job_ctx.session() as session:
        first = enqueue(session, "test.sweep", "a1", account_id="acct")
        second = enqueue(session, "test.sweep", "a2", account_id="acct")
        third = enqueue(session, "test.sweep", "a3", account_id="acct")
    ids = [job.id or 0 for job in (first, second, third)]
    assert 0 not in ids
    job_queue.wait_for(3)
    job_queue.received.clear()
    with job_ctx.session() as session:
        beat(session, "host:555")
        assert claim_job(session, ids[0], "host:555:gggg", lease_seconds=180, account_cap=1)
    for job_id in ids:
        set_job(job_ctx.engine, job_id, updated_at=ago(60))  # deferred long ago
    assert sweep(job_ctx) == 0  # the account's one slot is taken by a live job
    set_job(job_ctx.engine, ids[0], state=JobState.DONE, lease_owner="", lease_expires_at=None)
    assert sweep(job_ctx) == 1  # its turn: the oldest waiting one only
    assert job_queue.wait_for(1) == [ids[1]]


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
