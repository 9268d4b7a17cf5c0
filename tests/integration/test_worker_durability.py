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
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from sqlalchemy import Engine, func, make_url
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from benchmax.adapters.queue import TaskiqDispatcher, build_broker
from benchmax.models import AuditEvent, Job, JobState
from benchmax.services.jobs import JobContext, enqueue, sweep
from benchmax.settings import Settings
from tests.conftest import PG_ADMIN_URL, REDIS_KEY_PREFIX, ROOT
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
            "BENCHMAX_WORKER_HEARTBEAT_SECONDS": str(settings.worker_heartbeat_seconds),
            "BENCHMAX_WORKER_DEAD_AFTER_SECONDS": str(settings.worker_dead_after_seconds),
            "BENCHMAX_JOB_RESEND_SECONDS": str(settings.job_resend_seconds),
            "BENCHMAX_QUEUE_REDELIVER_SECONDS": str(settings.queue_redeliver_seconds),
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


@pytest.fixture
def long_lease_stack(
    settings: Settings, engine: Engine, redis_url: str, tmp_path: Path
) -> Iterator[Stack]:
    """Production's three-minute lease: recovery must not wait for it."""
    del engine
    yield from run_stack(
        settings,
        tmp_path,
        redis_url,
        job_lease_seconds=180,
        scan_timeout_seconds=60,
        job_backoff_base_seconds=0.2,
        job_backoff_max_seconds=0.5,
        sweep_interval_seconds=1,
        worker_heartbeat_seconds=1.0,
        worker_dead_after_seconds=4.0,
        queue_redeliver_seconds=2,
        job_resend_seconds=5,
    )


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_a_killed_workers_job_is_released_when_its_heartbeats_stop_not_its_lease(
    long_lease_stack: Stack,
) -> None:
    stack = long_lease_stack
    job_id = stack.enqueue(jobs.SLOW, "killed-long-lease")
    first = stack.start_worker()
    wait_until(lambda: stack.runs() == 1, "the first worker to start the job")
    stack.kill(first)
    killed = time.monotonic()
    stack.start_worker()
    stack.start(*SCHEDULER)
    wait_until(
        lambda: reload_job(stack.ctx.engine, job_id).state == JobState.DONE,
        "another worker to finish the killed worker's job",
        timeout=30,
    )
    assert time.monotonic() - killed < 30  # the lease alone would take 180 s
    assert (reload_job(stack.ctx.engine, job_id).attempts, stack.runs()) == (2, 2)
    assert stack.effects("killed-long-lease") == 1


def _terminate_backends(database_url: str, stop: threading.Event, counter: list[int]) -> None:
    """Cut every other connection to the test's database, again and again."""
    import psycopg

    name = make_url(database_url).database
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        while not stop.is_set():
            cut = conn.execute(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            ).fetchone()
            counter.append(cut[0] if cut else 0)
            stop.wait(0.15)


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_postgres_connections_cut_during_claims_lose_and_double_nothing(
    long_lease_stack: Stack,
) -> None:
    stack = long_lease_stack
    stack.env[jobs.SLEEP_ENV] = "0.2"
    for _ in range(2):
        stack.start_worker()
    stack.start(*SCHEDULER)
    stop, counter = threading.Event(), [0]
    cutter = threading.Thread(
        target=_terminate_backends,
        args=(stack.settings.resolved_database_url, stop, counter),
        daemon=True,
    )
    subjects = [f"cut-{n}" for n in range(20)]
    started = time.monotonic()
    cutter.start()
    job_ids = []
    try:
        for subject in subjects:
            job_ids.append(_enqueue_through_cuts(stack, subject))
            time.sleep(0.2)
    finally:
        stop.set()
        cutter.join()
    assert sum(counter) > 0, "no connection was cut: nothing was tested"

    def all_done() -> bool:
        with Session(stack.ctx.engine) as session:
            states = session.exec(select(Job.state).where(col(Job.id).in_(job_ids))).all()
        return len(states) == len(job_ids) and set(states) == {JobState.DONE}

    wait_until(all_done, "every job done after the cuts", timeout=30)
    assert time.monotonic() - started < 60
    assert [stack.effects(subject) for subject in subjects] == [1] * len(subjects)
    with Session(stack.ctx.engine) as session:
        kinds = session.exec(select(func.count()).where(Job.kind == jobs.SLOW)).one()
    assert kinds == len(subjects)  # one row each: nothing enqueued twice


def _enqueue_through_cuts(stack: Stack, subject: str) -> int:
    """The enqueue's own connection may be cut too: retry as a careful caller would, taking
    the row a commit that did land (though its answer was lost) already made."""
    for _ in range(50):
        try:
            with Session(stack.ctx.engine) as session:
                landed = session.exec(
                    select(Job.id).where(Job.kind == jobs.SLOW, Job.subject_id == subject)
                ).first()
            return landed or stack.enqueue(jobs.SLOW, subject)
        except OperationalError:
            time.sleep(0.05)
    raise AssertionError(f"{subject} could not be enqueued")
