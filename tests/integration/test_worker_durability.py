"""Durability with real processes: Redis streams, taskiq workers killed mid-job, the scheduler.

Each test gets its own stream on the shared Redis server and its own database; workers and the
scheduler are started exactly as in production (``python -m taskiq worker|scheduler``) with
the test-only handlers of ``durability_jobs`` imported as an extra module.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from benchmax.adapters.queue import TaskiqDispatcher, build_broker
from benchmax.models import AuditEvent, JobState
from benchmax.services.jobs import JobContext, enqueue, sweep
from benchmax.settings import Settings
from tests.conftest import REDIS_KEY_PREFIX, ROOT
from tests.integration import durability_jobs as jobs
from tests.support.jobs_fixtures import reload_job

pytestmark = pytest.mark.timeout(240)

LEASE_SECONDS = 4  # longer than a slow job (2 s), so a live job is never taken over
WORKER = ("worker", "tasks.broker:broker", "tasks.run", "tests.integration.durability_jobs")
WORKER_OPTIONS = ("--workers", "1", "--shutdown-timeout", "1")
SCHEDULER = ("scheduler", "tasks.scheduler:scheduler")


class Stack:
    """Processes sharing one database and one Redis stream, and their combined log."""

    def __init__(self, settings: Settings, directory: Path) -> None:
        self.settings = settings
        self.directory = directory
        self.log = directory / "processes.log"
        self.ctx = JobContext.from_settings(settings)
        self._processes: list[subprocess.Popen[bytes]] = []
        self.env = {
            **os.environ,
            "BENCHMAX_ENV": "test",
            "BENCHMAX_DATABASE_URL": settings.resolved_database_url,
            "BENCHMAX_DATA_DIR": str(settings.data_dir),
            "BENCHMAX_QUEUE_BACKEND": "redis",
            "BENCHMAX_REDIS_URL": settings.redis_url,
            "BENCHMAX_QUEUE_NAME": settings.queue_name,
            "BENCHMAX_JOB_LEASE_SECONDS": str(settings.job_lease_seconds),
            "BENCHMAX_SCAN_TIMEOUT_SECONDS": str(settings.scan_timeout_seconds),
            "BENCHMAX_JOB_BACKOFF_BASE_SECONDS": str(settings.job_backoff_base_seconds),
            "BENCHMAX_JOB_BACKOFF_MAX_SECONDS": str(settings.job_backoff_max_seconds),
            "BENCHMAX_SWEEP_INTERVAL_SECONDS": str(settings.sweep_interval_seconds),
            jobs.DIR_ENV: str(directory),
            jobs.SLEEP_ENV: "2",
        }

    def start(self, *args: str) -> subprocess.Popen[bytes]:
        return self.start_module("taskiq", *args)

    def start_module(self, module: str, *args: str) -> subprocess.Popen[bytes]:
        with self.log.open("ab") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", module, *args],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: we can kill worker + children
            )
        self._processes.append(process)
        return process

    def start_worker(self) -> subprocess.Popen[bytes]:
        return self.start(*WORKER, *WORKER_OPTIONS)

    @staticmethod
    def kill(process: subprocess.Popen[bytes]) -> None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def stop_all(self) -> None:
        for process in self._processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self._processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill(process)

    def runs(self) -> int:
        log = jobs.runs_log(self.directory)
        return len(log.read_text().splitlines()) if log.exists() else 0

    def effects(self, subject_id: str) -> int:
        with Session(self.ctx.engine) as session:
            query = select(func.count()).where(
                AuditEvent.action == jobs.EFFECT, AuditEvent.subject_id == subject_id
            )
            return session.exec(query).one()

    def enqueue(self, kind: str, subject_id: str, max_attempts: int = 3) -> int:
        with self.ctx.session() as session:
            job = enqueue(session, kind, subject_id, max_attempts=max_attempts)
        assert job.id is not None
        return job.id


def wait_until(
    condition: Callable[[], bool], what: str, timeout: float = 60, tick: Callable[[], object] = int
) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        tick()
        time.sleep(0.25)


def run_stack(
    settings: Settings, directory: Path, redis_url: str, **overrides: object
) -> Iterator[Stack]:
    """A ``Stack`` on its own Redis stream with ``overrides``; everything stopped afterwards.

    ``redis_url`` comes from the fixture of that name, which marks the test ``redis``.
    """
    redis_settings = settings.model_copy(
        update={
            "queue_backend": "redis",
            "redis_url": redis_url,
            "queue_name": f"{REDIS_KEY_PREFIX}{uuid.uuid4().hex}",
            **overrides,
        }
    )
    stack = Stack(redis_settings, directory)
    dispatcher = TaskiqDispatcher(build_broker(redis_settings))
    stack.ctx.queue.attach(dispatcher)
    try:
        yield stack
    finally:
        stack.ctx.queue.attach(None)
        stack.stop_all()
        dispatcher.close()
        stack.ctx.engine.dispose()
        client = redis.Redis.from_url(redis_url)
        queue = redis_settings.queue_name
        client.delete(queue, f"autoclaim:benchmax:{queue}")
        client.close()


@pytest.fixture
def stack(settings: Settings, engine: Engine, redis_url: str, tmp_path: Path) -> Iterator[Stack]:
    del engine  # the migrated database must exist before the processes start
    yield from run_stack(
        settings,
        tmp_path,
        redis_url,
        job_lease_seconds=LEASE_SECONDS,
        scan_timeout_seconds=LEASE_SECONDS - 1,
        job_backoff_base_seconds=0.2,
        job_backoff_max_seconds=0.5,
        sweep_interval_seconds=1,
    )


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
def test_job_of_a_killed_worker_is_done_later_exactly_once_in_effect(stack: Stack) -> None:
    job_id = stack.enqueue(jobs.SLOW, "killed-mid-job")
    first = stack.start_worker()
    wait_until(lambda: stack.runs() == 1, "the first worker to start the job")
    stack.kill(first)

    job = reload_job(stack.ctx.engine, job_id)
    assert (job.state, job.attempts) == (JobState.RUNNING, 1)
    assert stack.effects("killed-mid-job") == 0

    stack.start_worker()
    wait_until(
        lambda: reload_job(stack.ctx.engine, job_id).state == JobState.DONE,
        "a new worker to finish the job once the lease expired",
        tick=lambda: sweep(stack.ctx),
    )
    job = reload_job(stack.ctx.engine, job_id)
    assert job.attempts == 2
    assert stack.runs() == 2
    assert stack.effects("killed-mid-job") == 1


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_job_enqueued_while_redis_is_unreachable_is_sent_by_the_scheduler(stack: Stack) -> None:
    unreachable = stack.settings.model_copy(
        update={"redis_url": f"redis://127.0.0.1:{_closed_port()}/15"}
    )
    down = TaskiqDispatcher(build_broker(unreachable))
    stack.ctx.queue.attach(down)
    started = time.monotonic()
    job_id = stack.enqueue(jobs.SLOW, "during-outage")
    assert time.monotonic() - started < 10  # the commit is not held hostage by the queue
    down.close()

    assert reload_job(stack.ctx.engine, job_id).state == JobState.PENDING
    assert redis.Redis.from_url(stack.settings.redis_url).xlen(stack.settings.queue_name) == 0

    stack.start_worker()
    stack.start_module("tasks.scheduler")  # the `python -m tasks.scheduler` entry point
    wait_until(
        lambda: reload_job(stack.ctx.engine, job_id).state == JobState.DONE,
        "the scheduled sweep to send the job once Redis is reachable",
    )
    assert stack.runs() == 1
    assert stack.effects("during-outage") == 1


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_job_that_always_crashes_ends_dead_with_its_code_only(stack: Stack) -> None:
    job_id = stack.enqueue(jobs.CRASH, "always-crashes", max_attempts=3)
    stack.start_worker()
    stack.start(*SCHEDULER)
    wait_until(
        lambda: reload_job(stack.ctx.engine, job_id).state == JobState.DEAD,
        "the crashing job to exhaust its attempts",
    )
    job = reload_job(stack.ctx.engine, job_id)
    assert (job.attempts, job.last_error_code) == (3, "RuntimeError")
    assert jobs.CANARY not in repr(job)
    stack.stop_all()
    log = stack.log.read_text()
    assert (
        f"job {job_id} ({jobs.CRASH}) attempt 3/3 failed with RuntimeError at durability_jobs.py:"
    ) in log
    assert jobs.CANARY not in log
