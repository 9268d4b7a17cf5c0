"""The embedded default end to end: Taskiq's InMemoryBroker runs jobs inside this process."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from benchmax.context import AppContext
from benchmax.lifespan import job_runtime
from benchmax.models import JobState
from benchmax.runtime.embedded import run_periodic_jobs
from benchmax.runtime.runner import JobRuntime, start_dispatcher
from benchmax.services.jobs import JobContext, enqueue, job_handler
from benchmax.settings import Settings
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
