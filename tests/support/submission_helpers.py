"""Helpers for submission tests: a contributor, a complete draft, and running due jobs here."""

from __future__ import annotations

from contextlib import AbstractContextManager

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from benchmax.adapters.storage import ObjectStorage
from benchmax.models import EvidenceFile, Job, JobState, Test, User
from benchmax.models._base import utcnow
from benchmax.services import pipeline, submissions
from benchmax.services.jobs import JobContext, run_job
from benchmax.services.safety import SafetyLimits
from benchmax.settings import Settings
from tests.support.factories import make_user

# The job kinds run by ``drain`` are registered when the pipeline module is imported.
PIPELINE = pipeline

COMPLETE = {
    "prompt": "Build a todo app in one HTML file.",
    "model_label": "Claude Sonnet 4.5",
    "harness_label": "Claude Code",
    "reasoning_label": "medium",
}


def contributor(engine: Engine, **overrides: object) -> User:
    with Session(engine, expire_on_commit=False) as session:
        user = make_user(session, **overrides)
        session.commit()
    return user


def draft_with(
    engine: Engine | JobContext,
    storage: ObjectStorage,
    user: User,
    fields: dict[str, str] | None = None,
    files: dict[str, bytes] | None = None,
    *,
    submit: bool = True,
    limits: SafetyLimits | None = None,
    settings: Settings | None = None,
) -> str:
    """A committed Test with ``fields`` and ``files``, submitted unless told otherwise.

    Given a job context rather than an engine, its queue sends the jobs the submission made
    and its settings set the account's caps; otherwise ``settings`` do (the defaults if none).
    """
    if isinstance(engine, JobContext):
        opened: AbstractContextManager[Session] = engine.session()
        settings = settings or engine.settings
    else:
        opened = Session(engine, expire_on_commit=False)
    settings = settings or Settings(_env_file=None)
    with opened as session:
        test = submissions.create_draft(session, user, settings)
        submissions.save_draft(session, user, test.id, fields or COMPLETE)
        for name, data in (files or {}).items():
            submissions.add_file(
                session, storage, user, test.id, name, [data], limits=limits, settings=settings
            )
        if submit:
            submissions.submit(session, user, test.id)
        session.commit()
    return test.id


def drain(ctx: JobContext, rounds: int = 50) -> list[str]:
    """Run every due pending job in this process until none is left; the kinds run, in order."""
    ran: list[str] = []
    for _ in range(rounds):
        with Session(ctx.engine) as session:
            due = session.exec(
                select(Job)
                .where(Job.state == JobState.PENDING, col(Job.next_attempt_at) <= utcnow())
                .order_by(col(Job.id))
            ).all()
        if not due:
            return ran
        for job in due:
            assert job.id is not None
            run_job(job.id, ctx, "test-worker")
            ran.append(job.kind)
    raise AssertionError("jobs kept coming")


def exhaust_only_job(ctx: JobContext, attempts: int = 2) -> None:
    """Give the one queued job ``attempts`` tries and run them all now, ignoring backoff."""
    with Session(ctx.engine) as session:
        job = session.exec(select(Job)).one()
        job.max_attempts = attempts
        session.add(job)
        session.commit()
    for _ in range(attempts):
        drain(ctx)
        with Session(ctx.engine) as session:
            session.execute(Job.__table__.update().values(next_attempt_at=Job.created_at))  # type: ignore[attr-defined]
            session.commit()


def load(engine: Engine, test_id: str) -> tuple[Test, list[EvidenceFile]]:
    with Session(engine, expire_on_commit=False) as session:
        test = session.get(Test, test_id)
        assert test is not None
        files = session.exec(
            select(EvidenceFile)
            .where(EvidenceFile.test_id == test_id)
            .order_by(col(EvidenceFile.position))
        ).all()
        return test, list(files)
