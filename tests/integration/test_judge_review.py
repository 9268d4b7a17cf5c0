"""The AI review job end to end: publication, the fake judge over HTTP, samples, holds, budget."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from benchmax.models import (
    CaseState,
    Job,
    JobState,
    JudgeBudgetDay,
    JudgeReviewSample,
    JudgeSample,
    ModerationHold,
    Review,
    ReviewerKind,
    ReviewState,
    SampleStatus,
    Test,
    TestState,
)
from benchmax.models._base import utcnow
from benchmax.services.catalog.seed import seed_catalog
from benchmax.services.jobs import JobContext
from benchmax.services.judge.budget import utc_day
from benchmax.services.judge.review import HOLD_JUDGE_SUSPECTED, JUDGE_REVIEW
from benchmax.services.moderation.holds import INJECTION_HOLD_CODE
from benchmax.services.moderation.queues import flagged_tests
from benchmax.settings import Settings
from tests.support.fake_judge import FakeJudge
from tests.support.judge_helpers import INJECTION, judge_settings, make_active_snapshot, steps
from tests.support.submission_helpers import COMPLETE, contributor, draft_with, drain


@pytest.fixture
def judged(settings: Settings, engine: Engine, fake_judge: FakeJudge) -> JobContext:
    on = judge_settings(settings, fake_judge, "a" * 64)
    with Session(engine) as session:
        seed_catalog(session)
        make_active_snapshot(session, on)
        session.commit()
    return JobContext.from_settings(on, engine=engine)


def _publish(ctx: JobContext, output: str = steps(8, 2), **fields: str) -> str:
    user = contributor(ctx.engine, handle=fields.pop("handle", "ada_lovelace"),
                       display_name="Ada Lovelace")  # fmt: skip
    test_id = draft_with(
        ctx.engine, ctx.storage, user, {**COMPLETE, "output_text": output, **fields}
    )
    drain(ctx)
    return test_id


def _reviews(engine: Engine, test_id: str) -> list[Review]:
    with Session(engine) as session:
        return list(session.exec(select(Review).where(Review.test_id == test_id)).all())


def _judge_jobs(engine: Engine) -> list[Job]:
    with Session(engine) as session:
        return list(session.exec(select(Job).where(Job.kind == JUDGE_REVIEW)).all())


def _retry_now(engine: Engine) -> None:
    with Session(engine) as session:
        session.execute(
            update(Job)
            .where(col(Job.kind) == JUDGE_REVIEW, col(Job.state) == JobState.PENDING)
            .values(next_attempt_at=utcnow() - timedelta(seconds=1))
        )
        session.commit()


def test_with_the_judge_off_publication_queues_nothing(
    job_ctx: JobContext, fake_judge: FakeJudge
) -> None:
    test_id = _publish(job_ctx)
    with Session(job_ctx.engine) as session:
        assert session.get(Test, test_id).state == TestState.PUBLIC  # type: ignore[union-attr]
    assert _judge_jobs(job_ctx.engine) == []
    assert fake_judge.state.calls == 0


def test_a_published_test_gets_an_ai_review_with_its_samples(
    judged: JobContext, fake_judge: FakeJudge
) -> None:
    test_id = _publish(judged)
    (review,) = _reviews(judged.engine, test_id)
    assert review.reviewer_kind == ReviewerKind.AI
    assert review.score == 80
    assert review.judge_snapshot_id
    assert review.reviewer_id is None
    with Session(judged.engine) as session:
        test = session.get(Test, test_id)
        assert test is not None
        assert test.review_state == ReviewState.REVIEWED
        linked = session.exec(
            select(JudgeSample)
            .join(JudgeReviewSample, col(JudgeReviewSample.sample_id) == JudgeSample.id)
            .where(JudgeReviewSample.review_id == review.id)
        ).all()
        assert sorted(sample.round for sample in linked) == [0, 1, 2]
        for sample in linked:
            assert sample.reported_model == "fake-judge-2026-11-20-served"
            assert sample.system_fingerprint == "fp_fake_judge"
            assert sample.prompt_tokens
            assert sample.completion_tokens == 40
        day = session.get(JudgeBudgetDay, utc_day())
        assert day is not None
        assert (day.used, day.reserved, day.metered_samples) == (3, 0, 3)
    assert fake_judge.state.calls == 3
    # The job is idempotent: running it again sends nothing and adds nothing.
    from benchmax.services.judge.review import review_test

    review_test(judged, test_id)
    assert fake_judge.state.calls == 3
    assert len(_reviews(judged.engine, test_id)) == 1


def test_the_judge_never_sees_model_harness_or_contributor_names(
    judged: JobContext, fake_judge: FakeJudge
) -> None:
    output = (
        "I am Claude Sonnet 4.5 (claude-sonnet-4-5-20250929), made by Anthropic, running in "
        "Claude Code. Compared with GPT-5 and gemini 2.5 pro this is better. Thanks ada_lovelace, "
        "Ada Lovelace.\n" + steps(6, 4)
    )
    _publish(judged, output=output, settings_text="Claude Code with Opus 4.5")
    bodies = " ".join(json.dumps(r.body) for r in fake_judge.state.requests)
    text = bodies.replace("\\u02c6", " ").lower()
    for name in ("sonnet", "claude", "anthropic", "gpt-5", "gemini", "opus", "ada", "lovelace"):
        assert name not in text, name
    assert "[model]" in text
    assert "[vendor]" in text
    assert "[harness]" in text
    assert "[contributor]" in text


def test_judge_errors_retry_with_backoff_and_end_dead_leaving_the_test_public(
    judged: JobContext, fake_judge: FakeJudge
) -> None:
    fake_judge.state.behaviour = "error"
    test_id = _publish(judged)
    with Session(judged.engine) as session:
        session.execute(update(Job).where(col(Job.kind) == JUDGE_REVIEW).values(max_attempts=3))
        session.commit()
    for _ in range(3):
        _retry_now(judged.engine)
        drain(judged)
    (job,) = _judge_jobs(judged.engine)
    assert job.state == JobState.DEAD
    assert job.last_error_code == "judge_http_503"
    assert job.attempts == 3
    with Session(judged.engine) as session:
        test = session.get(Test, test_id)
        assert test is not None
        assert (test.state, test.review_state) == (TestState.PUBLIC, ReviewState.AWAITING)
        failed = session.exec(select(JudgeSample).where(JudgeSample.test_id == test_id)).all()
        assert {s.error_code for s in failed} == {"judge_http_503"}
        # The endpoint read each request before it failed (it may have billed them), so
        # every attempt spent its sample.
        day = session.get(JudgeBudgetDay, utc_day())
        assert day is not None
        assert (day.used, day.reserved) == (3, 0)
    assert _reviews(judged.engine, test_id) == []


@pytest.mark.parametrize(
    ("behaviour", "code"),
    [("malformed", "reply_not_json"), ("wrong_nonce", "reply_nonce_mismatch")],
)
def test_invalid_replies_are_failed_samples_retried_once(
    judged: JobContext, fake_judge: FakeJudge, behaviour: str, code: str
) -> None:
    fake_judge.state.behaviour = behaviour
    test_id = _publish(judged)
    assert fake_judge.state.calls == 6  # three slots, each asked twice
    (job,) = _judge_jobs(judged.engine)
    assert job.state == JobState.PENDING
    assert job.last_error_code == "judge_invalid_reply"
    with Session(judged.engine) as session:
        samples = session.exec(select(JudgeSample).where(JudgeSample.test_id == test_id)).all()
        assert len(samples) == 6
        assert {(s.status, s.error_code) for s in samples} == {(SampleStatus.FAILED, code)}
    assert _reviews(judged.engine, test_id) == []
    # The judge recovers: the retry pays only for the missing slots and appends the review.
    fake_judge.state.behaviour = "honest"
    _retry_now(judged.engine)
    drain(judged)
    assert fake_judge.state.calls == 9
    assert [r.score for r in _reviews(judged.engine, test_id)] == [80]


def test_injection_puts_the_test_on_hold_for_moderation(
    judged: JobContext, fake_judge: FakeJudge
) -> None:
    test_id = _publish(judged, output=steps(3, 7) + INJECTION)
    with Session(judged.engine) as session:
        holds = session.exec(select(ModerationHold).where(ModerationHold.test_id == test_id)).all()
        assert {h.reason_code for h in holds} == {INJECTION_HOLD_CODE, HOLD_JUDGE_SUSPECTED}
        assert all(h.state == CaseState.OPEN for h in holds)
        test = session.get(Test, test_id)
        assert test is not None
        assert test.state == TestState.PUBLIC
        (flag,) = [item for item in flagged_tests(session, 50) if item.test_id == test_id]
        assert HOLD_JUDGE_SUSPECTED in flag.hold_codes
    (review,) = _reviews(judged.engine, test_id)
    assert review.score == 30  # the honest judge did not obey


def test_an_exhausted_budget_defers_to_the_next_utc_day(
    judged: JobContext, fake_judge: FakeJudge
) -> None:
    ctx = replace(
        judged, settings=judged.settings.model_copy(update={"judge_daily_sample_budget": 4})
    )
    first = _publish(ctx, handle="first")
    second = _publish(ctx, handle="second")
    assert fake_judge.state.calls == 4
    assert len(_reviews(ctx.engine, first)) == 1
    assert _reviews(ctx.engine, second) == []
    waiting = [job for job in _judge_jobs(ctx.engine) if job.state == JobState.PENDING]
    assert [job.subject_id for job in waiting] == [second]
    tomorrow = utcnow().date() + timedelta(days=1)
    assert waiting[0].next_attempt_at.date() == tomorrow
    with Session(ctx.engine) as session:
        day = session.get(JudgeBudgetDay, utc_day())
        assert day is not None
        assert day.used == 4
        assert day.reserved == 0


def test_one_contributor_cannot_spend_the_whole_day(
    judged: JobContext, fake_judge: FakeJudge
) -> None:
    ctx = replace(
        judged, settings=judged.settings.model_copy(update={"judge_contributor_daily_samples": 3})
    )
    user = contributor(ctx.engine, handle="prolific")
    ids = [
        draft_with(ctx.engine, ctx.storage, user, {**COMPLETE, "output_text": steps(5, 5)})
        for _ in range(2)
    ]
    drain(ctx)
    reviewed = [test_id for test_id in ids if _reviews(ctx.engine, test_id)]
    assert len(reviewed) == 1
    assert fake_judge.state.calls == 3
    other = _publish(ctx, handle="someone_else")
    assert len(_reviews(ctx.engine, other)) == 1


def test_no_active_snapshot_means_no_calls(
    settings: Settings, engine: Engine, fake_judge: FakeJudge
) -> None:
    ctx = JobContext.from_settings(judge_settings(settings, fake_judge, "a" * 64), engine=engine)
    test_id = _publish(ctx)
    (job,) = _judge_jobs(engine)
    assert job.state == JobState.DONE
    assert fake_judge.state.calls == 0
    assert _reviews(engine, test_id) == []


@pytest.mark.parametrize(
    "trouble",
    ["down", "unauthorized", "out_of_budget", "slow", "unconfigured_key"],
)
def test_a_new_test_publishes_whatever_the_judge_does(
    judged: JobContext, fake_judge: FakeJudge, trouble: str
) -> None:
    """Publication is finished and committed before the review job is even claimed."""
    updates: dict[str, object] = {}
    if trouble == "down":
        updates["judge_base_url"] = "http://127.0.0.1:9/v1"
    elif trouble == "out_of_budget":
        updates["judge_daily_sample_budget"] = 0
    elif trouble == "unconfigured_key":
        updates["judge_api_key"] = None
        fake_judge.state.behaviour = "unauthorized"
    elif trouble == "slow":
        updates["judge_timeout_seconds"] = 0.3
        fake_judge.state.delay = 1.0
    else:
        fake_judge.state.behaviour = "unauthorized"
    ctx = JobContext.from_settings(judged.settings.model_copy(update=updates), engine=judged.engine)
    user = contributor(ctx.engine, handle=f"t_{trouble}")
    test_id = draft_with(ctx.engine, ctx.storage, user, {**COMPLETE, "output_text": steps(5, 5)})
    ran = drain(ctx)
    assert ran.index("publish_test") < ran.index(JUDGE_REVIEW)
    with Session(ctx.engine) as session:
        test = session.get(Test, test_id)
        assert test is not None
        assert (test.state, test.review_state) == (TestState.PUBLIC, ReviewState.AWAITING)
        assert test.failure_code == ""
    assert _reviews(ctx.engine, test_id) == []


def test_several_judge_models_give_one_median(
    settings: Settings, engine: Engine, fake_judge: FakeJudge
) -> None:
    on = judge_settings(settings, fake_judge, "a" * 64)
    with Session(engine) as session:
        make_active_snapshot(
            session, on, samples_per_review=1,
            model_ids=["small-a-2026-01-01", "small-b-2026-02-01", "small-c-2026-03-01"],
        )  # fmt: skip
        session.commit()
    ctx = JobContext.from_settings(on, engine=engine)
    test_id = _publish(ctx, output=steps(6, 4))
    asked = sorted(r.body["model"] for r in fake_judge.state.requests)
    assert asked == ["small-a-2026-01-01", "small-b-2026-02-01", "small-c-2026-03-01"]
    (review,) = _reviews(engine, test_id)
    assert review.score == 60


def test_a_panel_reply_counts_each_answering_seat_as_a_sample(
    settings: Settings, engine: Engine, fake_judge: FakeJudge
) -> None:
    on = judge_settings(settings, fake_judge, "a" * 64)
    with Session(engine) as session:
        make_active_snapshot(
            session, on, model_ids=["bench/reviewers"], panel=True, panel_seats=3,
            samples_per_review=1,
        )  # fmt: skip
        session.commit()
    fake_judge.state.panel = ["honest", "length", "identity"]
    ctx = JobContext.from_settings(on, engine=engine)
    test_id = _publish(ctx, output=steps(5, 5))
    assert fake_judge.state.calls == 1
    with Session(engine) as session:
        samples = session.exec(select(JudgeSample).where(JudgeSample.test_id == test_id)).all()
        assert sorted(s.seat for s in samples) == [
            "reviewer-0-honest", "reviewer-1-length", "reviewer-2-identity",
        ]  # fmt: skip
        assert {s.reported_model for s in samples} == {s.seat for s in samples}
        day = session.get(JudgeBudgetDay, utc_day())
        assert day is not None
        assert day.used == 3
        # Blinded, the identity-loving seat has no name to favour; the median is the honest 50.
        scores = sorted(s.score for s in samples if s.score is not None)
        assert scores[:2] == [50, 50]
    (review,) = _reviews(engine, test_id)
    assert review.score == 50
