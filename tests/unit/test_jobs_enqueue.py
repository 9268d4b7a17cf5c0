"""Enqueue-after-commit through a real Taskiq dispatcher, from sync and async callers."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from benchmax.models import Job, JobState
from benchmax.services.jobs import JobContext, enqueue
from benchmax.services.jobs.registry import CONTEXT_KEY
from tests.support.jobs_fixtures import RecordedJobQueue, reload_job

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


def test_job_is_sent_only_after_commit(
    engine: Engine, job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    with job_ctx.session() as session:
        job = enqueue(session, "test.enqueue", "subject-1")
        session.flush()
        assert job_queue.received == []
        session.commit()
    assert job_queue.wait_for(1) == [job.id]
    stored = reload_job(engine, job.id)  # type: ignore[arg-type]
    assert (stored.kind, stored.subject_id, stored.state) == (
        "test.enqueue",
        "subject-1",
        JobState.PENDING,
    )


def test_rollback_sends_nothing_and_leaves_no_row(
    engine: Engine, job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    with job_ctx.session() as session:
        enqueue(session, "test.enqueue", "rolled-back")
        session.rollback()
        kept = enqueue(session, "test.enqueue", "kept")
        session.commit()
    # Messages arrive in order on one loop, so a message for the first would come first.
    assert job_queue.wait_for(1) == [kept.id]
    with job_ctx.session() as session:
        assert session.exec(select(func.count()).select_from(Job)).one() == 1


def test_closing_without_commit_sends_nothing(
    engine: Engine, job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    # Opened as the context opens its sessions, but closed without committing.
    with Session(job_ctx.engine, info={CONTEXT_KEY: job_ctx}) as session:
        enqueue(session, "test.enqueue", "abandoned")
    with job_ctx.session() as session:
        kept = enqueue(session, "test.enqueue", "kept")
        session.commit()
    assert job_queue.wait_for(1) == [kept.id]


def test_all_jobs_of_a_transaction_are_sent_together(
    engine: Engine, job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    with job_ctx.session() as session:
        ids = [enqueue(session, "test.enqueue", f"s{n}").id for n in range(3)]
        session.commit()
    assert job_queue.wait_for(3) == ids


def test_delayed_job_waits_for_the_sweeper(
    engine: Engine, job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    with job_ctx.session() as session:
        delayed = enqueue(session, "test.enqueue", "later", delay_seconds=60)
        now = enqueue(session, "test.enqueue", "now")
        session.commit()
    assert job_queue.wait_for(1) == [now.id]
    assert delayed.next_attempt_at > now.next_attempt_at


@pytest.mark.asyncio
async def test_commit_inside_a_running_event_loop_does_not_block_it(
    engine: Engine, job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    # As in a Reflex event handler or an async Starlette route: sync ORM code on the loop.
    with job_ctx.session() as session:
        job = enqueue(session, "test.enqueue", "from-async")
        session.commit()
    assert await asyncio.to_thread(job_queue.wait_for, 1) == [job.id]


def test_commit_without_a_dispatcher_still_commits(engine: Engine) -> None:
    with Session(engine, expire_on_commit=False) as session:
        job = enqueue(session, "test.enqueue", "no-dispatcher")
        session.commit()
    assert reload_job(engine, job.id).state == JobState.PENDING  # type: ignore[arg-type]


@pytest.mark.parametrize(("kind", "subject"), [("", "s"), ("k" * 65, "s"), ("k", "")])
def test_enqueue_refuses_bad_identifiers(engine: Engine, kind: str, subject: str) -> None:
    with Session(engine) as session, pytest.raises(ValueError, match="1-64 characters"):
        enqueue(session, kind, subject)
