"""One account flooding the queue cannot starve another's scan: in process and on Redis.

The flood's jobs hold their workers until the test opens a gate, so "starved" is not a
matter of timing: without the per-account cap every worker thread would be held by the
flood and the other account's job could not run before the gate opens.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, func, select

from benchmax.models import Job, JobState
from benchmax.runtime.runner import JobRuntime, start_dispatcher
from benchmax.services.jobs import JobContext, enqueue
from benchmax.settings import Settings
from tests.integration import fairness_jobs as jobs
from tests.integration.test_worker_durability import Stack, run_stack, wait_until

CAP = 2
FLOOD = 10  # more than a worker's job threads (os.cpu_count() + 4 on this machine's size)


def _flood_then_one_other(ctx: JobContext) -> tuple[list[int], int]:
    with ctx.session() as session:
        flood = [
            enqueue(session, jobs.HOG, f"flood-{n}", account_id="flooder") for n in range(FLOOD)
        ]
    wait_until(lambda: len(jobs.lines("hog.log")) == CAP, "the flood to take its share")
    with ctx.session() as session:
        other = enqueue(session, jobs.QUICK, "other-1", account_id="other")
    return [job.id for job in flood if job.id is not None], other.id or 0


def _running(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(
            select(func.count()).where(col(Job.state) == JobState.RUNNING, Job.kind == jobs.HOG)
        ).one()


def _all_done(engine: Engine, job_ids: list[int]) -> bool:
    with Session(engine) as session:
        states = session.exec(select(Job.state).where(col(Job.id).in_(job_ids))).all()
    return all(state == JobState.DONE for state in states)


def _check_fair(ctx: JobContext, tick: object = int) -> None:
    flood, other = _flood_then_one_other(ctx)
    wait_until(lambda: _all_done(ctx.engine, [other]), "the other account's job to run")
    assert jobs.lines("quick.log") == ["other-1"]
    assert len(jobs.lines("hog.log")) == CAP  # the rest of the flood waits its turn
    assert _running(ctx.engine) == CAP
    (jobs.directory() / "gate").touch()
    wait_until(lambda: _all_done(ctx.engine, flood), "the whole flood to drain")
    assert sorted(jobs.lines("hog.log")) == sorted(f"flood-{n}" for n in range(FLOOD))


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
def test_in_process_queue_runs_another_accounts_job_during_a_flood(
    job_ctx: JobContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert job_ctx.settings.queue_backend == "memory", "tests expect the embedded default queue"
    monkeypatch.setenv(jobs.DIR_ENV, str(tmp_path))
    ctx = replace(
        job_ctx,
        settings=job_ctx.settings.model_copy(update={"scan_concurrency_per_account": CAP}),
    )
    runtime = JobRuntime(ctx)
    dispatcher = start_dispatcher(runtime)
    ctx.queue.attach(dispatcher)
    try:
        _check_fair(ctx)
    finally:
        (tmp_path / "gate").touch()
        ctx.queue.attach(None)
        dispatcher.close()
        runtime.close()


@pytest.fixture
def redis_stack(
    settings: Settings,
    engine: Engine,
    redis_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Stack]:
    del engine  # the migrated database must exist before the workers start
    monkeypatch.setenv(jobs.DIR_ENV, str(tmp_path))
    for stack in run_stack(
        settings,
        tmp_path,
        redis_url,
        job_lease_seconds=90,  # longer than the flood is held at the gate
        scan_timeout_seconds=60,
        scan_concurrency_per_account=CAP,
    ):
        stack.env["BENCHMAX_SCAN_CONCURRENCY_PER_ACCOUNT"] = str(CAP)
        yield stack
        (tmp_path / "gate").touch()  # let the workers' held jobs end before they are stopped


@pytest.mark.timeout(240)
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_redis_workers_run_another_accounts_job_during_a_flood(redis_stack: Stack) -> None:
    worker = ("worker", "tasks.broker:broker", "tasks.run", "tests.integration.fairness_jobs")
    for _ in range(2):  # two worker processes share the cap through the database
        redis_stack.start(*worker, "--workers", "1", "--shutdown-timeout", "1")
    _check_fair(redis_stack.ctx)
