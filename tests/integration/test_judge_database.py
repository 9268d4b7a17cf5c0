"""The database keeps the judge honest: pinned snapshots, append-only samples, an exact budget."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import Session, select

from benchmax.models import (
    JudgeBudgetDay,
    JudgeSample,
    JudgeSnapshot,
    JudgeState,
    Review,
    SamplePurpose,
    SampleStatus,
)
from benchmax.services.jobs import JobContext, enqueue, run_job
from benchmax.services.judge.budget import utc_day
from benchmax.services.judge.review import JUDGE_REVIEW
from benchmax.settings import Settings
from tests.support.factories import make_test, make_user
from tests.support.fake_judge import FakeJudge
from tests.support.judge_helpers import judge_settings, make_active_snapshot, steps

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


def _sample(session: Session, snapshot: JudgeSnapshot) -> JudgeSample:
    sample = JudgeSample(
        snapshot_id=snapshot.id, purpose=SamplePurpose.CALIBRATION, requested_model="m",
        status=SampleStatus.OK, score=50,
    )  # fmt: skip
    session.add(sample)
    session.commit()
    return sample


@BOTH
def test_a_snapshot_is_pinned_once_a_sample_references_it(
    engine: Engine, settings: Settings, fake_judge: FakeJudge
) -> None:
    on = judge_settings(settings, fake_judge, "b" * 64)
    with Session(engine) as session:
        snapshot = make_active_snapshot(session, on)
        session.execute(text("UPDATE judge_snapshot SET name = 'renamed before use'"))
        session.commit()
        _sample(session, snapshot)
        for statement in (
            "UPDATE judge_snapshot SET prompt_template = 'x {nonce} {marker}'",
            "UPDATE judge_snapshot SET model_ids = '[\"other-2026-01-01\"]'",
            "UPDATE judge_snapshot SET samples_per_review = 1",
            "DELETE FROM judge_snapshot",
            "UPDATE judge_sample SET score = 100",
            "DELETE FROM judge_sample",
        ):
            with pytest.raises((DBAPIError, IntegrityError)):
                session.execute(text(statement))
            session.rollback()
        # Its state may still move: that is how a failed re-calibration switches it off.
        session.execute(text("UPDATE judge_snapshot SET state = 'inactive'"))
        session.commit()
        assert session.exec(select(JudgeSnapshot.state)).one() == JudgeState.INACTIVE


@BOTH
def test_at_most_one_snapshot_is_active(
    engine: Engine, settings: Settings, fake_judge: FakeJudge
) -> None:
    on = judge_settings(settings, fake_judge, "b" * 64)
    with Session(engine) as session:
        make_active_snapshot(session, on)
        session.commit()
        with pytest.raises(IntegrityError):
            make_active_snapshot(session, on, name="second")


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_twenty_concurrent_reviews_against_a_budget_of_ten_send_exactly_ten(
    engine: Engine, settings: Settings, fake_judge: FakeJudge
) -> None:
    on = judge_settings(
        settings, fake_judge, "c" * 64, judge_daily_sample_budget=10,
        judge_contributor_daily_samples=100,
    )  # fmt: skip
    fake_judge.state.delay = 0.05  # overlap the requests
    with Session(engine) as session:
        make_active_snapshot(session, on, samples_per_review=1)
        jobs = []
        for n in range(20):
            test = make_test(session, make_user(session), output_text=steps(n % 10, 2))
            jobs.append(enqueue(session, JUDGE_REVIEW, test.id).id)
        session.commit()
    ctx = JobContext.from_settings(on, engine=engine)
    with ThreadPoolExecutor(max_workers=20) as pool:
        list(pool.map(lambda job_id: run_job(job_id, ctx, "race"), jobs))
    assert fake_judge.state.calls == 10
    with Session(engine) as session:
        assert len(session.exec(select(Review)).all()) == 10
        day = session.get(JudgeBudgetDay, utc_day())
        assert day is not None
        assert (day.used, day.reserved) == (10, 0)
