"""Dead-letter handling and the queue-health read models."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from benchmax.models import AuditEvent, JobState
from benchmax.models._base import utcnow
from benchmax.services.errors import Conflict
from benchmax.services.jobs import (
    JobContext,
    JobCount,
    discard,
    enqueue,
    job_counts,
    list_jobs,
    oldest_waiting_age,
    requeue,
)
from tests.support.factories import make_user
from tests.support.jobs_fixtures import RecordedJobQueue, ago, reload_job, set_job

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


def _dead_job(engine: Engine) -> int:
    with Session(engine, expire_on_commit=False) as session:
        job = enqueue(session, "test.admin", "subject", delay_seconds=3600)
        session.commit()
    assert job.id is not None
    set_job(
        engine,
        job.id,
        state=JobState.DEAD,
        attempts=5,
        last_error_code="RuntimeError",
        finished_at=utcnow(),
    )
    return job.id


def _audit(engine: Engine, job_id: int) -> list[AuditEvent]:
    with Session(engine) as session:
        query = select(AuditEvent).where(AuditEvent.subject_id == str(job_id))
        return list(session.exec(query.order_by(col(AuditEvent.id))))


def test_requeue_gives_a_dead_job_fresh_attempts_and_sends_it_after_commit(
    engine: Engine, job_ctx: JobContext, job_queue: RecordedJobQueue
) -> None:
    job_id = _dead_job(engine)
    with job_ctx.session() as session:
        owner = make_user(session)
        job = requeue(session, job_id, actor_id=owner.id, reason="scanner fixed in 1.2")
        assert (job.state, job.attempts) == (JobState.PENDING, 0)
        assert job_queue.received == []
        session.commit()
    assert job_queue.wait_for(1) == [job_id]
    stored = reload_job(engine, job_id)
    assert (stored.state, stored.attempts, stored.finished_at) == (JobState.PENDING, 0, None)
    [event] = _audit(engine, job_id)
    assert (event.action, event.subject_type, event.actor_id) == ("job.requeue", "job", owner.id)
    assert event.detail == {"kind": "test.admin", "reason": "scanner fixed in 1.2"}


def test_discard_is_final_and_audited(engine: Engine) -> None:
    job_id = _dead_job(engine)
    with Session(engine) as session:
        discard(session, job_id, actor_id=None, reason="subject deleted by owner")
        session.commit()
    assert reload_job(engine, job_id).state == JobState.DISCARDED
    assert [event.action for event in _audit(engine, job_id)] == ["job.discard"]
    with Session(engine) as session, pytest.raises(Conflict):
        requeue(session, job_id, actor_id=None, reason="too late for this one")


def test_only_dead_jobs_can_be_requeued_or_discarded(engine: Engine) -> None:
    with Session(engine, expire_on_commit=False) as session:
        pending = enqueue(session, "test.admin", "subject")
        session.commit()
    assert pending.id is not None
    with Session(engine) as session:
        with pytest.raises(Conflict):
            requeue(session, pending.id, actor_id=None, reason="not dead yet")
        with pytest.raises(Conflict):
            discard(session, 424242, actor_id=None, reason="no such job")
    assert _audit(engine, pending.id) == []


def test_job_counts_by_kind_and_state(engine: Engine) -> None:
    dead = _dead_job(engine)
    with Session(engine) as session:
        for subject in ("a", "b"):
            enqueue(session, "test.admin", subject)
        enqueue(session, "test.other", "c")
        session.commit()
        assert job_counts(session) == [
            JobCount("test.admin", JobState.DEAD, 1),
            JobCount("test.admin", JobState.PENDING, 2),
            JobCount("test.other", JobState.PENDING, 1),
        ]
        assert [job.id for job in list_jobs(session, state=JobState.DEAD)] == [dead]
        assert len(list_jobs(session, kind="test.admin")) == 3


def test_oldest_waiting_age_counts_only_due_pending_jobs(engine: Engine) -> None:
    with Session(engine) as session:
        assert oldest_waiting_age(session) is None
        enqueue(session, "test.admin", "later", delay_seconds=600)
        session.commit()
        assert oldest_waiting_age(session) is None

        waiting = enqueue(session, "test.admin", "waiting")
        session.commit()
        assert waiting.id is not None
        set_job(engine, waiting.id, next_attempt_at=ago(90))
        age = oldest_waiting_age(session)
        assert age is not None
        assert timedelta(seconds=89) < age < timedelta(seconds=100)

        set_job(engine, waiting.id, state=JobState.RUNNING)
        assert oldest_waiting_age(session) is None
