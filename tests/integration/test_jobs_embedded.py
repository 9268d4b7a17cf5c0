"""The embedded default end to end: Taskiq's InMemoryBroker runs jobs inside this process."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from benchmax.context import AppContext
from benchmax.lifespan import job_runtime
from benchmax.models import JobState
from benchmax.runtime.embedded import DUE_POLL_SECONDS, run_periodic_jobs
from benchmax.runtime.runner import JobRuntime, start_dispatcher
from benchmax.services.jobs import JobContext, enqueue, job_handler
from benchmax.settings import Settings
from tests.conftest import ROOT
from tests.support.jobs_fixtures import ago, reload_job, set_job

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)

ran: list[str] = []


@job_handler("test.embedded")
def _record(ctx: JobContext, subject_id: str) -> None:
    ran.append(subject_id)


@pytest.fixture
def runtime(job_ctx: JobContext) -> Iterator[JobRuntime]:
    """What the web app's lifespan starts with the embedded default queue."""
    assert job_ctx.settings.queue_backend == "memory", "tests expect the embedded default queue"
    runtime = JobRuntime(job_ctx)
    dispatcher = start_dispatcher(runtime)
    job_ctx.queue.attach(dispatcher)
    yield runtime
    job_ctx.queue.attach(None)
    dispatcher.close()
    runtime.close()


@pytest.fixture
def embedded(runtime: JobRuntime) -> JobContext:
    return runtime.jobs


def _wait_done(ctx: JobContext, job_id: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while reload_job(ctx.engine, job_id).state != JobState.DONE:
        assert time.monotonic() < deadline, f"job {job_id} not done"
        time.sleep(0.05)


def _enqueue(ctx: JobContext, subject_id: str) -> int:
    with ctx.session() as session:
        job = enqueue(session, "test.embedded", subject_id)
    assert job.id is not None
    return job.id


def test_job_committed_from_sync_code_runs_in_process(embedded: JobContext) -> None:
    subject = uuid.uuid4().hex
    job_id = _enqueue(embedded, subject)
    _wait_done(embedded, job_id)
    assert ran.count(subject) == 1
    assert reload_job(embedded.engine, job_id).attempts == 1


@pytest.mark.asyncio
async def test_job_committed_inside_an_event_handler_runs(embedded: JobContext) -> None:
    job_id = _enqueue(embedded, "from-event-handler")
    await asyncio.to_thread(_wait_done, embedded, job_id)
    assert reload_job(embedded.engine, job_id).attempts == 1


@pytest.mark.asyncio
async def test_embedded_sweeper_runs_work_that_was_never_sent(
    runtime: JobRuntime, embedded: JobContext
) -> None:
    dispatcher = embedded.queue.attach(None)  # as if the message were lost
    job_id = _enqueue(embedded, "lost-message")
    embedded.queue.attach(dispatcher)
    assert reload_job(embedded.engine, job_id).state == JobState.PENDING

    # A message is presumed lost once it has waited a whole lease period.
    set_job(embedded.engine, job_id, updated_at=ago(embedded.settings.job_lease_seconds + 1))
    stop = asyncio.Event()
    sweeper = asyncio.create_task(run_periodic_jobs(runtime, stop))
    await asyncio.to_thread(_wait_done, embedded, job_id)
    stop.set()
    await asyncio.wait_for(sweeper, timeout=5)
    assert reload_job(embedded.engine, job_id).attempts == 1


@pytest.mark.asyncio
async def test_the_web_apps_lifespan_runs_the_jobs_its_context_commits(
    settings: Settings, engine: Engine
) -> None:
    # No scheduled snapshot: its job would still be running when the app stops.
    quiet = settings.model_copy(update={"leaderboard_snapshot_interval_seconds": 0})
    app_ctx = AppContext.from_settings(quiet, engine=engine)
    async with job_runtime(app_ctx):
        job_id = _enqueue(app_ctx.jobs, "from-the-web-app")
        await asyncio.to_thread(_wait_done, app_ctx.jobs, job_id)
    assert app_ctx.queue.attached is None  # stopped with the app


def _cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    """``benchmax ...`` as its own process on the same database, as an operator types it."""
    env = {
        **os.environ,
        "BENCHMAX_ENV": "test",
        "BENCHMAX_DATABASE_URL": settings.resolved_database_url,
        "BENCHMAX_DATA_DIR": str(settings.data_dir),
        "BENCHMAX_QUEUE_BACKEND": "memory",
    }
    return subprocess.run(
        [sys.executable, "-m", "benchmax.cli", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.asyncio
async def test_a_cli_requeue_runs_in_the_web_app_within_seconds(
    settings: Settings, engine: Engine
) -> None:
    """The CLI cannot reach the web process's in-memory queue; the app finds the row itself."""
    quiet = settings.model_copy(update={"leaderboard_snapshot_interval_seconds": 0})
    app_ctx = AppContext.from_settings(quiet, engine=engine)
    subject = uuid.uuid4().hex
    job_id = _enqueue(app_ctx.jobs, subject)  # nothing attached: only the row exists
    set_job(engine, job_id, state=JobState.DEAD, attempts=5, last_error_code="ScannerCrashed")
    async with job_runtime(app_ctx):
        listed = await asyncio.to_thread(_cli, quiet, "jobs", "list", "--state", "dead")
        assert "ScannerCrashed" in listed.stdout  # failing: its error is shown
        done = await asyncio.to_thread(
            _cli, quiet, "jobs", "requeue", str(job_id), "--reason", "Scanner fixed in 1.2"
        )
        assert done.returncode == 0, done.stderr
        assert "runs it within seconds" in done.stdout
        requeued = time.monotonic()
        await asyncio.to_thread(_wait_done, app_ctx.jobs, job_id, 10.0)
        assert time.monotonic() - requeued < 10
    assert ran.count(subject) == 1
    job = reload_job(engine, job_id)
    assert (job.attempts, job.last_error_code) == (1, "")
    listed = _cli(quiet, "jobs", "list")
    line = next(row for row in listed.stdout.splitlines() if row.split()[:1] == [str(job_id)])
    assert "ScannerCrashed" not in line
    assert " done " in line


@pytest.mark.asyncio
async def test_the_embedded_poll_sends_each_due_job_once(
    settings: Settings, engine: Engine
) -> None:
    """Rows committed by another process run once, however many polls see them meanwhile."""
    quiet = settings.model_copy(update={"leaderboard_snapshot_interval_seconds": 0})
    app_ctx = AppContext.from_settings(quiet, engine=engine)
    subjects = [uuid.uuid4().hex for _ in range(5)]
    job_ids = [_enqueue(app_ctx.jobs, subject) for subject in subjects]
    async with job_runtime(app_ctx):
        for job_id in job_ids:
            await asyncio.to_thread(_wait_done, app_ctx.jobs, job_id, 10.0)
        await asyncio.sleep(DUE_POLL_SECONDS * 2)  # more polls: nothing is sent again
    assert [ran.count(subject) for subject in subjects] == [1] * 5
    assert [reload_job(engine, job_id).attempts for job_id in job_ids] == [1] * 5
