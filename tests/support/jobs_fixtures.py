"""Fixtures for durable-job tests: a job context and a real in-memory Taskiq queue.

``job_queue`` is a genuine ``TaskiqDispatcher`` over an ``InMemoryBroker`` whose job task only
records the ids it receives, so tests see exactly which messages went through Taskiq (JSON
round trip included) without running handlers. It is attached to ``job_ctx``'s queue (which
``pipeline_ctx`` shares) for the duration of the test, so jobs enqueued in that context's
sessions reach it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, col
from taskiq import InMemoryBroker

from benchmax.adapters.queue import RUN_JOB_TASK, TaskiqDispatcher
from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import Job
from benchmax.models._base import utcnow
from benchmax.services.jobs import JobContext
from benchmax.settings import Settings


class RecordedJobQueue:
    def __init__(self) -> None:
        self.received: list[int] = []
        self._changed = threading.Condition()
        broker = InMemoryBroker()

        @broker.task(task_name=RUN_JOB_TASK)
        async def record(job_id: int) -> None:
            with self._changed:
                self.received.append(job_id)
                self._changed.notify_all()

        self.dispatcher = TaskiqDispatcher(broker)

    def wait_for(self, count: int, timeout: float = 5.0) -> list[int]:
        """The ids received once there are at least ``count`` (fails after ``timeout``)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(self.received) < count:
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"expected {count} job messages, got {self.received}"
                self._changed.wait(remaining)
            return list(self.received)


@pytest.fixture
def job_queue(job_ctx: JobContext) -> Iterator[RecordedJobQueue]:
    queue = RecordedJobQueue()
    job_ctx.queue.attach(queue.dispatcher)
    yield queue
    job_ctx.queue.attach(None)
    queue.dispatcher.close()


@pytest.fixture
def job_ctx(settings: Settings, engine: Engine) -> JobContext:
    """A context on this test's database with quick retries and a short lease."""
    fast = settings.model_copy(
        update={
            "job_lease_seconds": 30,
            "scan_timeout_seconds": 20,
            "job_backoff_base_seconds": 1.0,
            "job_backoff_max_seconds": 8.0,
        }
    )
    return JobContext.from_settings(fast, engine=engine)


@pytest.fixture
def local_storage(tmp_path: Path) -> LocalStorage:
    return LocalStorage(tmp_path / "objects")


@pytest.fixture
def pipeline_ctx(job_ctx: JobContext, local_storage: LocalStorage) -> JobContext:
    """``job_ctx`` whose handlers use this test's ``local_storage``."""
    return replace(job_ctx, storage=local_storage)


def reload_job(engine: Engine, job_id: int) -> Job:
    """The job row as committed, read in a fresh session."""
    with Session(engine) as session:
        job = session.get(Job, job_id)
        assert job is not None
        return job


def set_job(engine: Engine, job_id: int, **values: Any) -> None:
    """Force columns of a committed job, e.g. to move its times into the past."""
    with Session(engine) as session:
        session.execute(update(Job).where(col(Job.id) == job_id).values(**values))
        session.commit()


def ago(seconds: float) -> datetime:
    return utcnow() - timedelta(seconds=seconds)
