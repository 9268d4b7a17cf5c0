"""A stopping process hands back the jobs it still runs: the sweeper re-sends each once, the
interrupted attempt is not counted, and nobody else's lease is touched.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy import Engine

from benchmax.models import JobState
from benchmax.runtime.runner import JobRuntime, worker_id
from benchmax.services.jobs import JobContext, claim_job, enqueue, job_handler, run_job, sweep
from benchmax.services.jobs.release import release_leases
from tests.support.jobs_fixtures import RecordedJobQueue, reload_job

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)

HELD = "test.release.held"
_gate = threading.Event()
_started = threading.Event()


@job_handler(HELD)
def _held(_ctx: JobContext, _subject_id: str) -> None:
    """Runs until the test opens the gate: a job that outlives a grace period."""
    _started.set()
    _gate.wait(30)


def _enqueue(ctx: JobContext, subject: str) -> int:
    with ctx.session() as session:
        job = enqueue(session, HELD, subject)
    assert job.id is not None
    return job.id


def _claim(ctx: JobContext, job_id: int, owner: str) -> None:
    with ctx.session() as session:
        assert claim_job(session, job_id, owner, lease_seconds=600) is not None


def test_release_hands_back_only_this_processs_jobs_and_the_sweeper_resends_each_once(
    job_ctx: JobContext, job_queue: RecordedJobQueue, engine: Engine
) -> None:
    mine, lookalike, other = (_enqueue(job_ctx, s) for s in ("mine", "lookalike", "other"))
    assert job_queue.wait_for(3) == [mine, lookalike, other]  # sent once, at enqueue
    _claim(job_ctx, mine, "host:42:ab12cd34")
    # Same host, a pid that starts with the same digits; and a name with LIKE's wildcards.
    _claim(job_ctx, lookalike, "host:421:ab12cd34")
    _claim(job_ctx, other, "h%st_:42:ab12cd34")

    with job_ctx.session() as session:
        assert release_leases(session, "host:42") == 1
    released = reload_job(engine, mine)
    assert (released.state, released.attempts, released.lease_owner) == (JobState.PENDING, 0, "")
    assert released.lease_expires_at is None
    for held in (lookalike, other):
        assert reload_job(engine, held).state == JobState.RUNNING

    assert sweep(job_ctx) == 1
    assert job_queue.wait_for(4)[3:] == [mine]
    assert sweep(job_ctx) == 0  # sent once; not again until a whole lease passes unclaimed
    with job_ctx.session() as session:
        assert release_leases(session, "host:42") == 0  # nothing of ours runs any more


def test_a_runtime_stopping_with_a_job_still_running_releases_it_and_the_job_runs_again(
    job_ctx: JobContext, job_queue: RecordedJobQueue, engine: Engine
) -> None:
    _gate.clear()
    _started.clear()
    job_id = _enqueue(job_ctx, "stuck")
    assert job_queue.wait_for(1) == [job_id]
    runtime = JobRuntime(job_ctx)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(runtime.run_job(job_id),))
    thread.start()
    try:
        assert _started.wait(10)
        assert runtime.close(grace_seconds=0.5) == 1
        job = reload_job(engine, job_id)
        assert (job.state, job.attempts, job.lease_owner) == (JobState.PENDING, 0, "")
    finally:
        _gate.set()
        thread.join(10)
        loop.close()
    # The first attempt's thread ended after the release: it recorded nothing over it.
    assert reload_job(engine, job_id).state == JobState.PENDING
    assert sweep(job_ctx) == 1
    assert job_queue.wait_for(2) == [job_id, job_id]
    assert run_job(job_id, job_ctx, worker_id()).value == "done"
    assert reload_job(engine, job_id).attempts == 1


def test_a_runtime_whose_jobs_finish_within_the_grace_releases_nothing(
    job_ctx: JobContext, engine: Engine
) -> None:
    _gate.set()
    job_id = _enqueue(job_ctx, "quick")
    runtime = JobRuntime(job_ctx)
    assert asyncio.run(runtime.run_job(job_id)) == "done"
    assert runtime.close(grace_seconds=5) == 0
    assert reload_job(engine, job_id).state == JobState.DONE
