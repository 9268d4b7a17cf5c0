"""The judge budget counts what may have been billed, and a judge's reply never carries a key.

A real local HTTP server speaks the OpenAI protocol (``tests.support.fake_judge``) and fails
the ways a provider does after it has read the request: an error status, a 200 whose body is
cut short, a connection reset. Each may have been billed, so each spends budget; only a
connection that was never made is free.
"""

from __future__ import annotations

import logging
import socket
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Engine, text
from sqlmodel import Session, select

from benchmax.models import (
    CaseState,
    JudgeBudgetDay,
    JudgeSample,
    ModerationHold,
    RedactionDay,
    Review,
    SampleStatus,
)
from benchmax.services.derived_text import JUDGE, redaction_counts
from benchmax.services.jobs import JobContext, enqueue, run_job
from benchmax.services.judge.budget import utc_day
from benchmax.services.judge.review import HOLD_JUDGE_REDACTED, JUDGE_REVIEW
from benchmax.services.leaderboard.policy import open_hold_test_ids
from benchmax.settings import Settings
from tests.support.canary import every_row
from tests.support.factories import make_test, make_user
from tests.support.fake_judge import FakeJudge
from tests.support.judge_helpers import judge_settings, make_active_snapshot, steps
from tests.unit.safety.corpus import canary_key


def _context(engine: Engine, settings: Settings, **extra: object) -> JobContext:
    return JobContext.from_settings(settings.model_copy(update=extra), engine=engine)


def _queue_reviews(engine: Engine, count: int) -> list[tuple[str, int]]:
    """``count`` public Tests with an AI review job each: (Test id, job id)."""
    queued = []
    with Session(engine) as session:
        for n in range(count):
            test = make_test(session, make_user(session), output_text=steps(n % 10, 2))
            job_id = enqueue(session, JUDGE_REVIEW, test.id).id
            assert job_id is not None
            queued.append((test.id, job_id))
        session.commit()
    return queued


def _day(engine: Engine) -> tuple[int, int]:
    with Session(engine) as session:
        day = session.get(JudgeBudgetDay, utc_day())
        return (day.used, day.reserved) if day is not None else (0, 0)


@pytest.fixture
def on(settings: Settings, engine: Engine, fake_judge: FakeJudge) -> Settings:
    """The judge on, one sample per review, and an active snapshot."""
    on = judge_settings(settings, fake_judge, "d" * 64)
    with Session(engine) as session:
        make_active_snapshot(session, on, samples_per_review=1)
        session.commit()
    return on


@pytest.mark.parametrize("behaviour", ["internal", "error", "truncated", "reset", "garbage"])
def test_a_request_that_reached_the_judge_counts_whatever_came_back(
    engine: Engine, on: Settings, fake_judge: FakeJudge, behaviour: str
) -> None:
    fake_judge.state.behaviour = behaviour
    ((test_id, job_id),) = _queue_reviews(engine, 1)
    run_job(job_id, _context(engine, on), "billing")
    assert fake_judge.state.calls == 1
    assert _day(engine) == (1, 0)
    with Session(engine) as session:
        (failed,) = session.exec(select(JudgeSample).where(JudgeSample.test_id == test_id)).all()
        assert failed.status == SampleStatus.FAILED
        assert failed.error_code.startswith("judge_")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_only_a_request_that_never_left_is_free(
    engine: Engine, on: Settings, fake_judge: FakeJudge
) -> None:
    ctx = _context(engine, on, judge_base_url=f"http://127.0.0.1:{_closed_port()}/v1")
    ((_, job_id),) = _queue_reviews(engine, 1)
    run_job(job_id, ctx, "billing")
    assert _day(engine) == (0, 0)
    with Session(engine) as session:
        codes = session.exec(select(JudgeSample.error_code)).all()
    assert codes == ["judge_unreachable"]


def test_retries_spend_budget_like_first_tries(
    engine: Engine, on: Settings, fake_judge: FakeJudge
) -> None:
    """The job's own retries and the client's: every request sent is counted."""
    fake_judge.state.behaviour = "internal"
    ((_, job_id),) = _queue_reviews(engine, 1)
    ctx = _context(engine, on, judge_max_retries=2)
    run_job(job_id, ctx, "billing")
    assert fake_judge.state.calls == 3  # the first try and the client's two retries
    assert _day(engine) == (3, 0)
    with Session(engine) as session:
        session.execute(text("UPDATE job SET next_attempt_at = created_at"))
        session.commit()
    run_job(job_id, ctx, "billing")
    assert fake_judge.state.calls == 6
    assert _day(engine) == (6, 0)


def test_the_budget_bounds_the_client_retries_before_the_first_send(
    engine: Engine, on: Settings, fake_judge: FakeJudge
) -> None:
    """Two samples left and a client that may send three: nothing is sent today."""
    fake_judge.state.behaviour = "internal"
    ((_, job_id),) = _queue_reviews(engine, 1)
    run_job(job_id, _context(engine, on, judge_max_retries=2, judge_daily_sample_budget=2), "b")
    assert fake_judge.state.calls == 0
    assert _day(engine) == (0, 0)


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
@pytest.mark.parametrize("behaviour", ["internal", "reset"])
def test_twenty_concurrent_failing_reviews_against_a_budget_of_ten_send_at_most_ten(
    engine: Engine, on: Settings, fake_judge: FakeJudge, behaviour: str
) -> None:
    fake_judge.state.behaviour = behaviour
    fake_judge.state.delay = 0.05  # overlap the requests
    jobs = [job_id for _, job_id in _queue_reviews(engine, 20)]
    ctx = _context(engine, on, judge_daily_sample_budget=10, judge_contributor_daily_samples=100)
    with ThreadPoolExecutor(max_workers=20) as pool:
        list(pool.map(lambda job_id: run_job(job_id, ctx, "race"), jobs))
    assert fake_judge.state.calls <= 10
    used, reserved = _day(engine)
    assert (used, reserved) == (fake_judge.state.calls, 0)
    with Session(engine) as session:
        session.execute(text("UPDATE job SET next_attempt_at = created_at"))
        session.commit()
    # The retries find the day spent: nothing more is sent.
    with ThreadPoolExecutor(max_workers=20) as pool:
        list(pool.map(lambda job_id: run_job(job_id, ctx, "race"), jobs))
    assert fake_judge.state.calls <= 10


def test_a_key_in_the_judges_reply_is_redacted_counted_and_the_test_held(
    engine: Engine,
    on: Settings,
    fake_judge: FakeJudge,
    caplog: pytest.LogCaptureFixture,
    database_url: str,
) -> None:
    key = canary_key()
    fake_judge.state.behaviour, fake_judge.state.leak = "leaky", key
    ((test_id, job_id),) = _queue_reviews(engine, 1)
    with caplog.at_level(logging.DEBUG):
        run_job(job_id, _context(engine, on), "leaky")
    with Session(engine) as session:
        (sample,) = session.exec(select(JudgeSample).where(JudgeSample.test_id == test_id)).all()
        assert sample.status == SampleStatus.OK
        assert "[removed: looked like an Anthropic API key]" in sample.reasoning
        assert "[removed: looked like an Anthropic API key]" in sample.reported_model
        (review,) = session.exec(select(Review).where(Review.test_id == test_id)).all()
        assert "[removed: looked like an Anthropic API key]" in review.reasoning
        holds = session.exec(select(ModerationHold).where(ModerationHold.test_id == test_id))
        assert {(h.reason_code, h.state) for h in holds} == {(HOLD_JUDGE_REDACTED, CaseState.OPEN)}
        assert test_id in open_hold_test_ids(session)  # not ranked while held
        counts = redaction_counts(session)
        # The reasoning, the fingerprint, and the model (reported on the reply and its answer).
        assert counts.today[JUDGE] == counts.total[JUDGE] == 4
        assert session.exec(select(RedactionDay)).one().source == JUDGE
    assert key[13:45] not in caplog.text
    assert key[13:45].encode() not in every_row(engine, database_url)


def test_a_panel_seat_that_leaks_is_redacted(
    engine: Engine, settings: Settings, fake_judge: FakeJudge, database_url: str
) -> None:
    key = canary_key()
    on = judge_settings(settings, fake_judge, "e" * 64)
    with Session(engine) as session:
        make_active_snapshot(session, on, model_ids=["bench/reviewers"], panel=True,
                             panel_seats=2, samples_per_review=1)  # fmt: skip
        session.commit()
    fake_judge.state.panel, fake_judge.state.leak = ["honest", "leaky"], key
    ((_, job_id),) = _queue_reviews(engine, 1)
    run_job(job_id, _context(engine, on), "panel")
    with Session(engine) as session:
        seats = sorted(s.seat for s in session.exec(select(JudgeSample)))
        assert seats == [
            "reviewer-0-honest",
            "reviewer-1-leaky [removed: looked like an Anthropic API key]",
        ]
        assert session.exec(select(ModerationHold.reason_code)).all() == [HOLD_JUDGE_REDACTED]
    assert key[13:45].encode() not in every_row(engine, database_url)
