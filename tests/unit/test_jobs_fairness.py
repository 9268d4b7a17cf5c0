"""Fair claims: an account's jobs are capped at claim time, on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from benchmax.models import Job, JobState
from benchmax.services.jobs import JobContext, JobOutcome, claim_job, enqueue, job_handler, run_job
from tests.support.jobs_fixtures import RecordedJobQueue, ago, reload_job, set_job

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)

KIND = "test.fairness.nested"
outcomes: dict[str, JobOutcome] = {}


def _jobs(engine: Engine, account: str, count: int, kind: str = "test.fairness.none") -> list[int]:
    with Session(engine) as session:
        rows = [enqueue(session, kind, f"{account}-{n}", account_id=account) for n in range(count)]
        session.commit()
        return [row.id for row in rows if row.id is not None]


def _claim(engine: Engine, job_id: int, cap: int | None = 2) -> bool:
    with Session(engine) as session:
        claimed = claim_job(session, job_id, "w", lease_seconds=30, account_cap=cap)
        session.commit()
    return claimed is not None


def test_an_account_runs_at_most_its_cap_and_others_go_ahead(job_ctx: JobContext) -> None:
    flood = _jobs(job_ctx.engine, "flooder", 4)
    other = _jobs(job_ctx.engine, "other", 1)
    assert [_claim(job_ctx.engine, job_id) for job_id in flood] == [True, True, False, False]
    assert _claim(job_ctx.engine, other[0])
    assert reload_job(job_ctx.engine, flood[2]).state == JobState.PENDING
    # One of the flooder's jobs finishes: the next one may start, but not the one after.
    set_job(job_ctx.engine, flood[0], state=JobState.DONE)
    assert [_claim(job_ctx.engine, job_id) for job_id in flood[2:]] == [True, False]


def test_a_dead_workers_expired_lease_does_not_hold_the_accounts_turn(
    job_ctx: JobContext,
) -> None:
    flood = _jobs(job_ctx.engine, "flooder", 3)
    assert _claim(job_ctx.engine, flood[0])
    assert _claim(job_ctx.engine, flood[1])
    set_job(job_ctx.engine, flood[0], lease_expires_at=ago(1))
    assert _claim(job_ctx.engine, flood[2])


def test_jobs_without_an_account_and_claims_without_a_cap_are_not_limited(
    job_ctx: JobContext,
) -> None:
    with Session(job_ctx.engine) as session:
        plain = [enqueue(session, "test.fairness.none", f"p{n}").id for n in range(3)]
        session.commit()
    assert all(_claim(job_ctx.engine, job_id, cap=1) for job_id in plain if job_id)
    flood = _jobs(job_ctx.engine, "flooder", 3)
    assert all(_claim(job_ctx.engine, job_id, cap=None) for job_id in flood)


def test_simultaneous_claims_never_exceed_the_cap(job_ctx: JobContext) -> None:
    flood = _jobs(job_ctx.engine, "flooder", 6)
    barrier = threading.Barrier(len(flood))
    won: list[bool] = [False] * len(flood)

    def claim(index: int) -> None:
        barrier.wait()
        won[index] = _claim(job_ctx.engine, flood[index])

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(len(flood))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(won) == 2
    with Session(job_ctx.engine) as session:
        running = session.exec(select(Job).where(Job.state == JobState.RUNNING)).all()
    assert len(running) == 2


@job_handler(KIND)
def _nested(ctx: JobContext, subject_id: str) -> None:
    """While the flooder's only allowed job runs, its next one and another account's arrive."""
    with Session(ctx.engine) as session:
        ids = {
            job.subject_id: job.id
            for job in session.exec(select(Job).where(col(Job.subject_id) != subject_id))
        }
    for name, job_id in ids.items():
        assert job_id is not None
        outcomes[name] = run_job(job_id, ctx, "second-worker")


@job_handler("test.fairness.none")
def _none(ctx: JobContext, subject_id: str) -> None:
    del ctx, subject_id


def test_a_deferred_job_waits_and_is_handed_on_when_its_account_frees_up(
    job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    ctx = replace(
        job_ctx, settings=job_ctx.settings.model_copy(update={"scan_concurrency_per_account": 1})
    )
    with ctx.session() as session:
        first = enqueue(session, KIND, "flooder-1", account_id="flooder")
        second = enqueue(session, KIND, "flooder-2", account_id="flooder")  # the cap is per kind
        enqueue(session, "test.fairness.none", "other-1", account_id="other")
        session.commit()
        first_id, second_id = first.id, second.id
    assert first_id is not None
    assert second_id is not None
    received = len(job_queue.wait_for(3))
    outcomes.clear()

    assert run_job(first_id, ctx, "first-worker") == JobOutcome.DONE
    assert outcomes == {"flooder-2": JobOutcome.DEFERRED, "other-1": JobOutcome.DONE}
    deferred = reload_job(ctx.engine, second_id)
    assert (deferred.state, deferred.attempts) == (JobState.PENDING, 0)
    # The flooder's job finished, so its waiting job was sent again and now runs.
    assert second_id in job_queue.wait_for(received + 1)[received:]
    assert run_job(second_id, ctx, "w") == JobOutcome.DONE


def test_a_dead_workers_job_that_loses_the_turn_is_handed_the_next_one(
    job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    """A killed worker's scan is released while the contributor's next scan is due: the next
    one may claim first. The released one is then deferred like any waiting job and handed
    the turn when that scan ends, not left for the sweeper's resend many seconds later."""
    ctx = replace(
        job_ctx, settings=job_ctx.settings.model_copy(update={"scan_concurrency_per_account": 1})
    )
    with ctx.session() as session:
        killed = enqueue(session, "test.fairness.none", "scan-1", account_id="contributor")
        after = enqueue(session, "test.fairness.none", "scan-2", account_id="contributor")
        session.commit()
        killed_id, after_id = killed.id, after.id
    assert killed_id is not None
    assert after_id is not None
    assert _claim(ctx.engine, killed_id, cap=1)
    set_job(ctx.engine, killed_id, lease_expires_at=ago(1))  # its worker died; released
    with ctx.session() as session:  # the next scan wins the race for the freed turn
        assert claim_job(session, after_id, "w2", lease_seconds=30, account_cap=1) is not None
        session.commit()
    assert run_job(killed_id, ctx, "w3") == JobOutcome.DEFERRED
    assert reload_job(ctx.engine, killed_id).state == JobState.RUNNING  # still waiting its turn
    received = len(job_queue.wait_for(2))
    set_job(ctx.engine, after_id, state=JobState.PENDING, lease_expires_at=None)
    assert run_job(after_id, ctx, "w2") == JobOutcome.DONE
    assert killed_id in job_queue.wait_for(received + 1)[received:]
    assert run_job(killed_id, ctx, "w3") == JobOutcome.DONE
