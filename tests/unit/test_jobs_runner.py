"""Claiming, running, retrying and killing jobs, on SQLite and PostgreSQL."""

from __future__ import annotations

import logging
import threading
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from benchmax.models import JobState
from benchmax.models._base import utcnow
from benchmax.services.jobs import (
    ClaimedJob,
    JobContext,
    JobError,
    JobOutcome,
    claim_job,
    enqueue,
    job_handler,
    run_job,
)
from tests.support.jobs_fixtures import ago, reload_job, set_job

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)

CANARY = "canary-prompt-text-never-stored"
handled: list[str] = []


@job_handler("test.runner.ok")
def _ok(ctx: JobContext, subject_id: str) -> None:
    handled.append(subject_id)


@job_handler("test.runner.crash")
def _crash(ctx: JobContext, subject_id: str) -> None:
    raise RuntimeError(CANARY)


@job_handler("test.runner.coded")
def _coded(ctx: JobContext, subject_id: str) -> None:
    raise JobError("scanner_timeout")


@job_handler("test.runner.overrun")
def _overrun(ctx: JobContext, subject_id: str) -> None:
    # While this handler runs its lease expires and another worker takes the job over.
    set_job(ctx.engine, int(subject_id), lease_owner="other-worker:1", attempts=2)


def _pending(engine: Engine, kind: str, subject_id: str = "s1", max_attempts: int = 3) -> int:
    with Session(engine) as session:
        job = enqueue(session, kind, subject_id, max_attempts=max_attempts)
        session.commit()
        assert job.id is not None
        return job.id


def test_run_job_runs_handler_and_marks_done(job_ctx: JobContext) -> None:
    subject = uuid.uuid4().hex
    job_id = _pending(job_ctx.engine, "test.runner.ok", subject_id=subject)
    assert run_job(job_id, job_ctx, "w1") == JobOutcome.DONE
    job = reload_job(job_ctx.engine, job_id)
    assert (job.state, job.attempts, job.lease_owner) == (JobState.DONE, 1, "")
    assert job.finished_at is not None
    assert job.lease_expires_at is None
    assert handled.count(subject) == 1


def test_duplicate_message_for_finished_job_is_a_no_op(job_ctx: JobContext) -> None:
    subject = uuid.uuid4().hex
    job_id = _pending(job_ctx.engine, "test.runner.ok", subject_id=subject)
    run_job(job_id, job_ctx, "w1")
    assert run_job(job_id, job_ctx, "w2") == JobOutcome.SKIPPED
    assert run_job(999_999, job_ctx, "w2") == JobOutcome.SKIPPED
    assert handled.count(subject) == 1
    assert reload_job(job_ctx.engine, job_id).attempts == 1


def _race(engine: Engine, job_id: int, claimers: int = 2) -> list[ClaimedJob | None]:
    barrier = threading.Barrier(claimers)
    results: list[ClaimedJob | None] = [None] * claimers

    def claim(index: int) -> None:
        with Session(engine) as session:
            barrier.wait()
            results[index] = claim_job(session, job_id, f"w{index}", lease_seconds=30)
            session.commit()

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(claimers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_two_claimers_one_wins(job_ctx: JobContext) -> None:
    job_id = _pending(job_ctx.engine, "test.runner.ok")
    winners = [claim for claim in _race(job_ctx.engine, job_id) if claim is not None]
    assert len(winners) == 1
    job = reload_job(job_ctx.engine, job_id)
    assert (job.state, job.attempts, job.lease_owner) == (
        JobState.RUNNING,
        1,
        winners[0].lease_owner,
    )


def test_expired_lease_is_reclaimed_by_exactly_one(job_ctx: JobContext) -> None:
    job_id = _pending(job_ctx.engine, "test.runner.ok")
    with Session(job_ctx.engine) as session:
        assert claim_job(session, job_id, "dead-worker", lease_seconds=30) is not None
        session.commit()
    assert _race(job_ctx.engine, job_id) == [None, None]  # the lease is still live

    set_job(job_ctx.engine, job_id, lease_expires_at=ago(1))
    winners = [claim for claim in _race(job_ctx.engine, job_id) if claim is not None]
    assert len(winners) == 1
    assert winners[0].attempts == 2
    assert reload_job(job_ctx.engine, job_id).lease_owner == winners[0].lease_owner


def test_job_not_yet_due_is_not_claimed(job_ctx: JobContext) -> None:
    job_id = _pending(job_ctx.engine, "test.runner.ok")
    set_job(job_ctx.engine, job_id, next_attempt_at=utcnow() + timedelta(minutes=5))
    assert run_job(job_id, job_ctx, "w1") == JobOutcome.SKIPPED
    assert reload_job(job_ctx.engine, job_id).attempts == 0


def test_failures_back_off_then_end_dead_with_only_a_code(
    job_ctx: JobContext, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="benchmax.services.jobs")
    job_id = _pending(job_ctx.engine, "test.runner.crash", max_attempts=3)

    before = utcnow()
    assert run_job(job_id, job_ctx, "w1") == JobOutcome.RETRY
    job = reload_job(job_ctx.engine, job_id)
    assert (job.state, job.attempts, job.last_error_code) == (JobState.PENDING, 1, "RuntimeError")
    wait = job.next_attempt_at.replace(tzinfo=before.tzinfo) - before
    assert timedelta(seconds=0.5) <= wait <= timedelta(seconds=1.5)  # base 1 s, jitter 50-100%
    assert run_job(job_id, job_ctx, "w1") == JobOutcome.SKIPPED  # not due yet

    set_job(job_ctx.engine, job_id, next_attempt_at=ago(1))
    assert run_job(job_id, job_ctx, "w1") == JobOutcome.RETRY
    job = reload_job(job_ctx.engine, job_id)
    wait = job.next_attempt_at.replace(tzinfo=before.tzinfo) - utcnow()
    assert timedelta(seconds=0.5) < wait <= timedelta(seconds=2)  # doubled

    set_job(job_ctx.engine, job_id, next_attempt_at=ago(1))
    assert run_job(job_id, job_ctx, "w1") == JobOutcome.DEAD
    job = reload_job(job_ctx.engine, job_id)
    assert (job.state, job.attempts, job.last_error_code) == (JobState.DEAD, 3, "RuntimeError")
    assert job.finished_at is not None
    assert CANARY not in repr(job)
    assert "attempt 3/3 failed with RuntimeError at test_jobs_runner.py:" in caplog.text
    assert CANARY not in caplog.text
    assert run_job(job_id, job_ctx, "w1") == JobOutcome.SKIPPED


def test_job_error_code_and_unknown_kind_are_recorded(job_ctx: JobContext) -> None:
    coded = _pending(job_ctx.engine, "test.runner.coded")
    unknown = _pending(job_ctx.engine, "test.runner.nobody-handles-this")
    run_job(coded, job_ctx, "w1")
    run_job(unknown, job_ctx, "w1")
    assert reload_job(job_ctx.engine, coded).last_error_code == "scanner_timeout"
    assert reload_job(job_ctx.engine, unknown).last_error_code == "unknown_kind"


def test_worker_that_lost_its_lease_does_not_overwrite_the_new_owner(
    job_ctx: JobContext,
) -> None:
    job_id = _pending(job_ctx.engine, "test.runner.overrun", subject_id="0")
    set_job(job_ctx.engine, job_id, subject_id=str(job_id))
    assert run_job(job_id, job_ctx, "w1") == JobOutcome.LEASE_LOST
    job = reload_job(job_ctx.engine, job_id)
    assert (job.state, job.lease_owner) == (JobState.RUNNING, "other-worker:1")
