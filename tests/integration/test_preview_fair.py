"""Fair previews: one account's flood waits behind itself, and spends only its own share.

No browser here: the queueing and the budget are database work, checked on both engines
with the real job queue recording what is sent. The end-to-end figure (account B's preview
while account A has twenty queued) is ``bench/fairness.py previews``.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlmodel import Session, col, select

from benchmax.adapters.storage.local import LocalStorage
from benchmax.models import EvidenceFile, Job, JobState, PreviewEvaluation, PreviewState, Test, User
from benchmax.services.jobs import JobContext, claim_job, enqueue
from benchmax.services.preview import budget
from benchmax.services.preview.fair import active_previews, let_in_next
from benchmax.services.preview.jobs import (
    PREVIEW_EVALUATE,
    evaluation_for,
    request_preview,
    source_zip,
)
from benchmax.services.preview.view import retry_preview
from tests.support.factories import make_stored_evidence, make_test, make_user
from tests.support.jobs_fixtures import RecordedJobQueue
from tests.support.preview_sites import WORKING, zip_of

pytestmark = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def ctx(pipeline_ctx: JobContext) -> JobContext:
    settings = pipeline_ctx.settings.model_copy(
        update={"preview_sandbox": "local", "preview_queue_per_account": 1}
    )
    return replace(pipeline_ctx, settings=settings)  # the same queue ``job_queue`` records


def _publish(ctx: JobContext, session: Session, storage: LocalStorage, user: User) -> Test:
    test = make_test(session, contributor=user)
    make_stored_evidence(
        session,
        storage,
        test,
        zip_of(WORKING),
        kind="source",
        content_type="application/zip",
        original_name="site.zip",
        safe_name="site.zip",
    )
    session.commit()
    with ctx.session() as publishing:
        request_preview(publishing, ctx.settings, test.id)
    return test


def _job(ctx: JobContext, test_id: str) -> Job:
    with Session(ctx.engine) as reading:
        return reading.exec(select(Job).where(Job.subject_id == test_id)).one()


def _end(ctx: JobContext, test_id: str) -> None:
    """The preview of ``test_id`` ran and ended, and its account's next one may go."""
    with ctx.session() as session:
        job = session.exec(select(Job).where(Job.subject_id == test_id)).one()
        job.state = JobState.DONE
        session.add(job)
        let_in_next(session, ctx.settings, job.account_id, test_id)


def test_a_flood_is_parked_behind_itself_and_another_account_goes_next(
    ctx: JobContext, session: Session, local_storage: LocalStorage, job_queue: RecordedJobQueue
) -> None:
    flooder, other = make_user(session), make_user(session)
    flood = [_publish(ctx, session, local_storage, flooder) for _ in range(3)]
    late = _publish(ctx, session, local_storage, other)
    sent = job_queue.wait_for(2)
    first, late_job = _job(ctx, flood[0].id), _job(ctx, late.id)
    assert sent == [first.id, late_job.id]  # the flood's second and third are not queued
    assert {_job(ctx, t.id).account_id for t in flood} == {flooder.id}
    with Session(ctx.engine) as reading:
        assert active_previews(reading, flooder.id) == 1
    _end(ctx, flood[0].id)
    assert job_queue.wait_for(3)[2] == _job(ctx, flood[1].id).id
    with Session(ctx.engine) as reading:
        assert active_previews(reading, flooder.id) == 1
    parked = _job(ctx, flood[2].id)
    assert parked.state == JobState.PENDING
    assert parked.next_attempt_at.year > 2100  # neither sent nor due: the sweeper skips it
    _end(ctx, flood[1].id)
    assert job_queue.wait_for(4)[3] == parked.id


def test_a_parked_preview_is_not_claimable(ctx: JobContext, session: Session) -> None:
    user = make_user(session)
    session.commit()
    with ctx.session() as writing:
        enqueue(writing, PREVIEW_EVALUATE, "t1", account_id=user.id)
        parked = enqueue(writing, PREVIEW_EVALUATE, "t2", account_id=user.id, delay_seconds=1e9)
    assert parked.id is not None
    with ctx.session() as claiming:
        assert claim_job(claiming, parked.id, "w", lease_seconds=30, account_cap=1) is None


def test_a_running_preview_never_holds_up_the_same_accounts_scan(
    ctx: JobContext, session: Session
) -> None:
    user = make_user(session)
    session.commit()
    with ctx.session() as writing:
        preview = enqueue(writing, PREVIEW_EVALUATE, "t1", account_id=user.id)
        scan = enqueue(writing, "scan_evidence", "e1", account_id=user.id)
        second = enqueue(writing, "scan_evidence", "e2", account_id=user.id)
    assert preview.id
    assert scan.id
    assert second.id
    with ctx.session() as claiming:
        assert claim_job(claiming, preview.id, "w", lease_seconds=30, account_cap=1)
    with ctx.session() as claiming:
        assert claim_job(claiming, scan.id, "w", lease_seconds=30, account_cap=1)
    with ctx.session() as claiming:  # the account's own cap on scans still holds
        assert claim_job(claiming, second.id, "w", lease_seconds=30, account_cap=1) is None


def test_each_account_spends_only_its_share_of_the_day(ctx: JobContext, session: Session) -> None:
    flooder, other = make_user(session), make_user(session)
    session.commit()
    taken = []
    for _ in range(4):
        with ctx.session() as counting:
            ok = budget.take_evaluation(counting, 5, flooder.id, 2)
            if not ok:
                counting.rollback()
            taken.append(ok)
    assert taken == [True, True, False, False]
    with ctx.session() as counting:
        assert budget.take_evaluation(counting, 5, other.id, 2)
    for _ in range(2):
        with ctx.session() as counting:
            assert budget.take_evaluation(counting, 5, make_user(counting).id, 2)
    with ctx.session() as counting:  # the day itself is spent: 2 + 1 + 2
        assert not budget.take_evaluation(counting, 5, make_user(counting).id, 2)


def test_the_contributors_retry_waits_its_turn_too(
    ctx: JobContext, session: Session, local_storage: LocalStorage, job_queue: RecordedJobQueue
) -> None:
    user = make_user(session)
    failed = _publish(ctx, session, local_storage, user)
    running = _publish(ctx, session, local_storage, user)
    job_queue.wait_for(1)
    _end(ctx, failed.id)  # lets ``running``'s job in
    with ctx.session() as writing:
        evaluation = evaluation_for(writing, failed.id, _source(writing, failed.id))
        evaluation.state = PreviewState.FAILED
        writing.add(evaluation)
    with ctx.session() as asking:
        retry_preview(asking, ctx.settings, user.id, failed.id)
    with Session(ctx.engine) as reading:
        retried = reading.exec(
            select(Job)
            .where(Job.subject_id == failed.id, Job.state == JobState.PENDING)
            .order_by(col(Job.id).desc())
        ).first()
        assert (
            reading.exec(select(PreviewEvaluation).where(PreviewEvaluation.test_id == failed.id))
            .one()
            .state
            == PreviewState.PENDING
        )
    assert retried is not None
    assert retried.next_attempt_at.year > 2100  # ``running`` holds the account's turn
    assert retried.account_id == user.id
    _end(ctx, running.id)
    assert retried.id in job_queue.wait_for(3)


def _source(session: Session, test_id: str) -> EvidenceFile:
    source = source_zip(session, test_id)
    assert source is not None
    return source
